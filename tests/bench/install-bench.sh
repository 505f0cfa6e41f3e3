#!/bin/sh
# tests/bench/install-bench.sh [BUILDDIR]: wall time and peak RSS of install
# (first and unchanged), refresh when nothing changed (what a package hook
# pays on every upgrade), the first boot of an image (refresh --image on a
# root install --image prepared, its commands logged by /bin/true instead of
# run; the boot steps are idlecfg-boot-steps.service's, after the boot), the
# first-boot unit's command (refresh --image) on a
# machine already configured (what a boot after a /usr update pays), its
# ExecCondition= (what every other boot pays: the second boot's cost), and rollback, into a temporary root, for this
# machine's own devices (read from /sys; nothing is written outside the
# temporary root) and for a recorded laptop inside one umockdev session.
# Needs GNU time (Debian package "time"). Run: make bench
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/_build}
idlecfg=$build/src/idlecfg
runs=${RUNS:-9}
[ -x /usr/bin/time ] || { echo "bench: needs GNU time (apt-get install time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

root=$tmp/root
mkdir -p "$root/etc/kernel" "$root/run" "$root/var/lib" "$root/usr/share/idlecfg/profiles" "$root/usr/lib/udev/hwdb.d"
sh "$top/tests/mkmodroot.sh" "$top/tests/data/modroot.spec" "$root" 6.1.0-18-amd64 >/dev/null
cp "$top"/profiles/*.profile "$root/usr/share/idlecfg/profiles/"
cp "$top"/hwdb/*.hwdb "$root/usr/lib/udev/hwdb.d/"
# the size of a real system's hwdb: this machine's, when it has one
cp /usr/lib/udev/hwdb.d/*.hwdb "$root/usr/lib/udev/hwdb.d/" 2>/dev/null || true
echo "root=/dev/sda1 ro" >"$root/etc/kernel/cmdline"

# measure NAME CMD...: median wall time and max RSS over $runs runs
measure() {
        name=$1
        shift
        for i in $(seq "$runs"); do
                s=$(date +%s%N)
                /usr/bin/time -q -f %M -o "$tmp/rss" "$@" >/dev/null 2>&1 || true
                e=$(date +%s%N)
                echo "$(( (e - s) / 1000 )) $(cat "$tmp/rss")"
        done | sort -n | awk -v name="$name" -v n="$runs" '
                { t[NR] = $1; if ($2 > rss) rss = $2 }
                END { printf "%-46s median %7.1f ms  max RSS %6.1f MiB  (%d runs)\n", name, t[int((NR + 1) / 2)] / 1000, rss / 1024, n }'
}
ic="$idlecfg --root $root --kernel 6.1.0-18-amd64 --profile balanced"
hwdb_mb=$(du -sm "$root/usr/lib/udev/hwdb.d" | cut -f1)
echo "this machine ($(ls /sys/bus/*/devices 2>/dev/null | wc -l) devices), hwdb ${hwdb_mb} MB:"
measure "  install into an empty root, then rollback" sh -c "$ic install && $ic rollback"
$ic install >/dev/null 2>&1
measure "  install, nothing to change" $ic install
measure "  refresh, nothing changed" $ic refresh
measure "  refresh --image (first-boot unit), same" $ic refresh --image
$ic rollback >/dev/null
measure "  install --image (to subtract from the next)" sh -c "$ic install --image && $ic rollback"
measure "  first boot: install --image, refresh --image" \
        sh -c "$ic install --image && IDLECFG_TEST_TAKE_EFFECT=/bin/true $ic refresh --image; $ic rollback"
$ic install >/dev/null 2>&1
# what the unit's ExecCondition= pays at a boot where its stamp says nothing to do
# (the stamp as idlecfg-boot-steps.service leaves it: /usr's mtime, machine-id, hardware key)
mkdir -p "$root/usr"
echo 0123456789abcdef0123456789abcdef >"$root/etc/machine-id"
printf 'USR_TIMESTAMP_NSEC=%s\nMACHINE_ID=0123456789abcdef0123456789abcdef\n' \
        "$(stat -c %.9Y "$root/usr" | tr -d .)" >"$root/var/lib/idlecfg/firstboot.stamp"
# the key of this machine's hardware, as the condition reads it (it names it for a stamp without one)
hw=$($ic refresh --image --condition -v 2>/dev/null | sed -n 's/.*other hardware (none, now \([^:]*:[0-9a-f-]*\): .*/\1/p')
echo "HARDWARE=$hw" >>"$root/var/lib/idlecfg/firstboot.stamp"
$ic refresh --image --condition >/dev/null 2>&1 && echo "bench: the stamp was not taken" >&2
measure "  refresh --image --condition (ExecCondition=)" $ic refresh --image --condition
measure "  /bin/true (for comparison)" /bin/true
rm -f "$root/var/lib/idlecfg/firstboot.stamp" "$root/etc/machine-id"
measure "  plan (for comparison)" $ic plan
$ic rollback >/dev/null

# the recorded laptop, timed inside one umockdev session
m=$top/tests/data/machines/intel-laptop
"$top/tests/run-machine" "$m" sh -c '
        ic="$1 --root $2 --kernel 6.1.0-18-amd64 --profile balanced"; runs=$3
        $ic install >/dev/null 2>&1
        for cmd in refresh "refresh --image"; do
                for i in $(seq "$runs"); do s=$(date +%s%N); $ic $cmd >/dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000 )); done |
                        sort -n | awk -v n="$runs" -v c="$cmd" "{ t[NR] = \$1 } END { printf \"intel-laptop under umockdev: %-16s nothing changed  median %7.1f ms  (%d runs)\n\", c, t[int((NR + 1) / 2)] / 1000, n }"
        done
        $ic rollback >/dev/null
        for i in $(seq "$runs"); do
                $ic install --image >/dev/null
                s=$(date +%s%N); IDLECFG_TEST_TAKE_EFFECT=/bin/true $ic refresh --image >/dev/null; e=$(date +%s%N)
                $ic rollback >/dev/null
                echo $(( (e - s) / 1000 ))
        done | sort -n | awk -v n="$runs" "{ t[NR] = \$1 } END { printf \"intel-laptop under umockdev: first boot (refresh --image after install --image)  median %7.1f ms  (%d runs)\n\", t[int((NR + 1) / 2)] / 1000, n }"' sh "$idlecfg" "$root" "$runs"
