#!/bin/sh
# tests/bench/ratio-bench.sh [BUILDDIR]: idlecfg against a bare libudev reader
# (tests/bench/bare-reader: the same subsystems and attributes as detect, and
# nothing else), timed interleaved in SESSIONS umockdev sessions per machine
# (the bare reader's time moves by up to half between two sessions of the
# same recording; the medians are of all sessions' runs together), on the
# recorded machines and on generated ones of 250, 1000, 2000 and 4000 devices.
# Prints per machine the bare reader's median and the medians of detect, plan
# (with this system's whole hwdb.d in the root) and refresh (nothing changed)
# as ratios to it, and the peak RSS of plan; then the goals of issue #13:
# plan <= 2x, refresh <= 0.5x, plan's RSS < 8 MiB. Beside them what no program
# can beat: the CPU time of starting /bin/true in the session (refresh's ratio
# is also given net of it) and the bare reader's own peak RSS (plan's is also
# given minus it). Run: make bench
# Environment: RUNS (per session, default 7), GEN_RUNS (runs on generated
# machines, default RUNS), SESSIONS (default 3), SIZES (default "250 1000 2000 4000"; empty: none), MACHINES (recorded
# machines by name, default all of tests/data/machines, and t60p-fixture: the
# ThinkPad T60p recording of the shared fixtures, where they are).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/_build}
idlecfg=$build/src/idlecfg
bare=$build/tests/bench/bare-reader
timeit=$build/tests/bench/timeit
runs=${RUNS:-7}
sessions=${SESSIONS:-3}
gen_runs=${GEN_RUNS:-$runs}
sizes=${SIZES-250 1000 2000 4000}
# the ThinkPad T60p of systemd's sys-script recording (454 devices), where
# the shared fixtures are (issue #32 measured the quiet refresh on it)
t60p=${IDLECFG_FIXTURES:-$top/../shared/fixtures}/recordings/systemd-sys-script/thinkpad-t60p-sys-script.umockdev
machines=${MACHINES-$(cd "$top/tests/data/machines" && echo *; [ ! -f "$t60p" ] || echo t60p-fixture)}
for p in "$idlecfg" "$bare" "$timeit"; do
        [ -x "$p" ] || { echo "bench: $p is missing (make bench builds it)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

root=$tmp/root
mkdir -p "$root/etc/kernel" "$root/run" "$root/var/lib" "$root/usr/share/idlecfg/profiles" "$root/usr/lib/udev/hwdb.d"
sh "$top/tests/mkmodroot.sh" "$top/tests/data/modroot.spec" "$root" 6.1.0-18-amd64 >/dev/null
cp "$top"/profiles/*.profile "$root/usr/share/idlecfg/profiles/"
cp /usr/lib/udev/hwdb.d/*.hwdb "$root/usr/lib/udev/hwdb.d/" 2>/dev/null || true
cp "$top"/hwdb/*.hwdb "$root/usr/lib/udev/hwdb.d/"
echo "root=/dev/sda1 ro" >"$root/etc/kernel/cmdline"
hwdb_kb=$(du -sk "$root/usr/lib/udev/hwdb.d" | cut -f1)
# what a Debian desktop has besides: the kernel's image (no --kernel: the
# root's newest kernel is chosen, as the hooks and the first-boot unit do),
# a dpkg status of 2500 packages with the kernel's package among them (its
# upstream version is read there) and that package's file list
kver=6.1.0-18-amd64
mkdir -p "$root/boot/loader/entries" "$root/var/lib/dpkg/info"
: >"$root/boot/vmlinuz-$kver"
awk -v k="linux-image-$kver" 'BEGIN {
        for (i = 0; i < 2500; i++) {
                name = sprintf("%s%04d", i < 1250 ? "lib-package-" : "tool-package-", i)
                if (i == 1250)
                        stanza(k, "6.1.76-1", "kernel")
                stanza(name, "1." i "-1", "misc")
        } }
        function stanza(n, v, sec) {
                printf "Package: %s\nStatus: install ok installed\nPriority: optional\nSection: %s\n", n, sec
                printf "Installed-Size: %d\nMaintainer: Debian Maintainers <debian-devel@lists.debian.org>\n", 100 + i
                printf "Architecture: amd64\nVersion: %s\nDepends: libc6 (>= 2.34), libgcc-s1 (>= 3.0), zlib1g (>= 1:1.2.0)\n", v
                printf "Description: package %s of a desktop system\n", n
                for (l = 0; l < 8; l++)
                        printf " A line of the long description of %s, as most packages have several.\n", n
                printf "Homepage: https://example.org/%s\n\n", n
        }' >"$root/var/lib/dpkg/status"
printf '/boot/vmlinuz-%s\n' "$kver" >"$root/var/lib/dpkg/info/linux-image-$kver.list"
dpkg_kb=$(du -sk "$root/var/lib/dpkg/status" | cut -f1)

# one session: install once (refresh needs a manifest) and make the boot
# entry it asks for (kernel-install's work: refresh is quiet, as on a
# configured machine), then RUNS rounds of bare / detect / plan / refresh,
# one after the other, then rollback
session() {
        "$top/tests/run-machine" "$1" sh -c '
                timeit=$1 bare=$2 out=$3 runs=$4 root=$5 kver=$6; shift 6
                # not /dev/null: umockdev emulates it as a terminal, which blocks when full
                export TIMEIT_OUT=$out.out
                "$@" install --profile balanced >"$out.out" 2>&1
                printf "title Debian\nversion %s\nlinux /vmlinuz-%s\noptions %s\n" "$kver" "$kver" \
                        "$(cat "$root/etc/kernel/cmdline")" >"$root/boot/loader/entries/debian-$kver.conf"
                for i in $(seq "$runs"); do
                        "$timeit" /bin/true >>"$out.start"
                        "$timeit" "$bare" >>"$out.bare"
                        "$timeit" "$@" detect --json >>"$out.detect"
                        "$timeit" "$@" plan --profile balanced >>"$out.plan"
                        "$timeit" "$@" refresh >>"$out.refresh"
                done
                "$@" rollback >"$out.out" 2>&1
                rm -f "$root/boot/loader/entries/debian-$kver.conf"' sh "$timeit" "$bare" "$tmp/t" "$2" "$root" "$kver" \
                "$idlecfg" --root "$root" \
                </dev/null >"$tmp/session.log" 2>&1 || { cat "$tmp/session.log" >&2; exit 1; }
}

# median FILE COLUMN: column 1 is wall time, 4 CPU time (user + system)
median() { awk -v c="$2" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
maxrss() { awk '$2 > m { m = $2 } END { print m }' "$1"; }
# exit 4 is success for detect and plan; refresh must be quiet (0: the boot
# entry has the words, nothing is left)
failed() { awk -v q="$2" '$3 != 0 && ($3 != 4 || q) { n++ } END { print n + 0 }' "$1"; }

printf '%-16s %6s %10s %8s %8s %8s %10s   %9s %8s %8s %8s   %8s %8s   %8s %8s\n' machine devices "bare ms" detect plan refresh \
        "plan RSS" "bare cpu" detect plan refresh "start" "refr-net" "bare RSS" "own RSS"
: >"$tmp/summary"
run() {
        name=$1 rec=$2 n=$3
        rm -f "$tmp"/t.*
        for _s in $(seq "$sessions"); do
                session "$rec" "$n"
        done
        for v in detect plan refresh; do
                [ "$(failed "$tmp/t.$v" "$([ $v != refresh ] || echo quiet)")" -eq 0 ] ||
                        { echo "bench: $v failed on $name" >&2; exit 1; }
        done
        b=$(median "$tmp/t.bare" 1)
        bc=$(median "$tmp/t.bare" 4)
        awk -v name="$name" -v dev="$(grep -c '^P:' "$rec")" -v b="$b" -v d="$(median "$tmp/t.detect" 1)" \
            -v p="$(median "$tmp/t.plan" 1)" -v r="$(median "$tmp/t.refresh" 1)" -v rss="$(maxrss "$tmp/t.plan")" \
            -v bc="$bc" -v dc="$(median "$tmp/t.detect" 4)" -v pc="$(median "$tmp/t.plan" 4)" -v rc="$(median "$tmp/t.refresh" 4)" \
            -v sc="$(median "$tmp/t.start" 4)" -v brss="$(maxrss "$tmp/t.bare")" '
                BEGIN { if (bc < 1) bc = 1
                        # refresh net of what starting any process costs here (/bin/true under umockdev)
                        net = bc - sc > 1 ? (rc - sc) / (bc - sc) : 0
                        printf "%-16s %6d %10.1f %7.2fx %7.2fx %7.2fx %6.1f MiB   %7.1f ms %7.2fx %7.2fx %7.2fx   %5.1f ms %7.2fx   %4.1f MiB %4.1f MiB\n",
                               name, dev, b / 1000, d / b, p / b, r / b, rss / 1024, bc / 1000, dc / bc, pc / bc, rc / bc,
                               sc / 1000, net, brss / 1024, (rss - brss) / 1024 }' |
                tee -a "$tmp/summary"
}
for name in $machines; do
        m=$top/tests/data/machines/$name/machine.umockdev
        [ "$name" != t60p-fixture ] || m=$t60p
        [ -f "$m" ] || { echo "bench: no recorded machine $name" >&2; exit 1; }
        grep -v '^#' "$m" >"$tmp/rec.umockdev"
        run "$name" "$tmp/rec.umockdev" "$runs"
done
for n in $sizes; do
        sh "$top/tests/bench/gen-machine.sh" "$n" >"$tmp/gen.umockdev"
        run "generated-$n" "$tmp/gen.umockdev" "$gen_runs"
done
echo "(medians of $runs interleaved runs ($gen_runs on generated machines) in each of $sessions umockdev sessions; ratios to the bare libudev reader, of wall time"
echo " and of CPU time (user + system, which a loaded machine does not inflate);"
echo " plan and refresh with $((hwdb_kb / 1024)) MB of hwdb files and a dpkg status of $((dpkg_kb / 1024)) MB in the root,"
echo " whose boot entry has the words (refresh quiet, exit 0); load average $(cut -d' ' -f1 /proc/loadavg));"
echo " start: CPU time of /bin/true in the same session, what starting any process costs under umockdev;"
echo " refr-net: refresh's CPU ratio net of it, (refresh - start) / (bare - start); own RSS: plan's peak RSS"
echo " minus the bare reader's (libudev's share grows with the devices in both)"
awk '{ p = $5 + 0; r = $6 + 0; s = $7 + 0; pc = $12 + 0; rc = $13 + 0; st = $14 + 0; rn = $16 + 0; b = $17 + 0; o = $19 + 0
       if (p > pm) pm = p; if (r > rm) rm = r; if (s > sm) sm = s; if (pc > pcm) pcm = pc; if (rc > rcm) rcm = rc
       if (rn > rnm) rnm = rn; if (o > om) om = o; if (b > bm) bm = b
       if (2 * st > $9 + 0 && (imp == "" || $9 + 0 < ib)) { imp = $1; ib = $9 + 0; is = st } }
     END { printf "worst: plan %.2fx wall, %.2fx CPU (goal <= 2); refresh %.2fx wall, %.2fx CPU (goal <= 0.5; #32: < 0.2), net of process start %.2fx;\n",
                  pm, pcm, rm, rcm, rnm
           printf "       plan RSS %.1f MiB (goal < 8), bare reader up to %.1f MiB, idlecfg'"'"'s own share up to %.1f MiB\n", sm, bm, om
           if (imp != "")
                   printf "note: on %s starting /bin/true (%.1f ms) costs more than half the bare reader (%.1f ms): refresh <= 0.5x cannot hold there for any program; the net ratio is the one to read\n", imp, is, ib }' "$tmp/summary"
