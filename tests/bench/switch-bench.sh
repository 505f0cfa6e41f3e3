#!/bin/sh
# tests/bench/switch-bench.sh [BUILDDIR]: what a power-source switch costs
# beside a quiet refresh (issue #23: a switch costs no more CPU than a quiet
# refresh). The intel-laptop recording with the supplies of
# tests/data/power/mains-laptop.umockdev, balanced installed; then RUNS rounds
# of: refresh (nothing changed), the adapter unplugged and power-source event
# (a switch to battery), plugged and power-source event (back to AC), and an
# event with nothing changed. Medians of CPU time (user + system) and the
# switch's ratio to refresh; the wall time of a switch includes the 200 ms
# debounce (a sleep, no CPU). STRACE_OUT=FILE: also strace -c of one switch.
# Run: make bench
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/_build}
idlecfg=$build/src/idlecfg
timeit=$build/tests/bench/timeit
runs=${RUNS:-7}
for p in "$idlecfg" "$timeit"; do
        [ -x "$p" ] || { echo "bench: $p is missing (make bench builds it)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
mkdir -p "$root/etc/kernel" "$root/run" "$root/var/lib" "$root/usr/share/idlecfg/profiles" "$root/usr/lib/udev/hwdb.d"
sh "$top/tests/mkmodroot.sh" "$top/tests/data/modroot.spec" "$root" 6.1.0-18-amd64 >/dev/null
cp "$top"/profiles/*.profile "$root/usr/share/idlecfg/profiles/"
cp "$top"/hwdb/*.hwdb "$root/usr/lib/udev/hwdb.d/"
echo "root=/dev/sda1 ro" >"$root/etc/kernel/cmdline"
m=$tmp/machine
mkdir -p "$m"
cp "$top/tests/data/machines/intel-laptop/modparams" "$m/"
{ grep -v '^#' "$top/tests/data/machines/intel-laptop/machine.umockdev"; echo
  grep -v '^#' "$top/tests/data/power/mains-laptop.umockdev"; } >"$m/machine.umockdev"
"$top/tests/run-machine" "$m" sh -c '
        timeit=$1 out=$2 runs=$3; shift 3
        export TIMEIT_OUT=$out.out
        sup=/sys/class/power_supply
        "$@" install >"$out.out" 2>&1
        "$@" power-source boot >"$out.out" 2>&1
        for i in $(seq "$runs"); do
                "$timeit" /bin/true >>"$out.start"
                "$timeit" "$@" refresh >>"$out.refresh"
                echo 0 >$sup/ACAD/online
                "$timeit" "$@" power-source event >>"$out.battery"
                echo 1 >$sup/ACAD/online; echo Charging >$sup/BAT0/status
                "$timeit" "$@" power-source event >>"$out.ac"
                "$timeit" "$@" power-source event >>"$out.same"
                echo Discharging >$sup/BAT0/status
        done
        if [ -n "${STRACE_OUT:-}" ]; then echo 0 >$sup/ACAD/online; strace -c -f -o "$STRACE_OUT" "$@" power-source event >/dev/null 2>&1; fi
        "$@" rollback >"$out.out" 2>&1' sh "$timeit" "$tmp/t" "$runs" \
        "$idlecfg" --root "$root" --kernel 6.1.0-18-amd64 --profile balanced </dev/null >"$tmp/log" 2>&1 ||
        { cat "$tmp/log" >&2; exit 1; }
median() { awk -v c="$2" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for v in refresh battery ac same; do
        awk '$3 != 0 { exit 1 }' "$tmp/t.$v" || { echo "bench: $v failed" >&2; exit 1; }
done
awk -v s="$(median "$tmp/t.start" 4)" -v r="$(median "$tmp/t.refresh" 4)" -v b="$(median "$tmp/t.battery" 4)" \
    -v a="$(median "$tmp/t.ac" 4)" -v q="$(median "$tmp/t.same" 4)" -v bw="$(median "$tmp/t.battery" 1)" \
    -v n="$(grep -c . "$root/etc/idlecfg/power-source.conf" 2>/dev/null || echo 0)" '
        BEGIN { if (r < 1) r = 1
                printf "power-source (intel-laptop, balanced; CPU medians of %s runs):\n", '"$runs"'
                printf "  /bin/true %.1f ms, quiet refresh %.1f ms; switch to battery %.1f ms (%.2fx refresh, wall %.0f ms with the debounce),\n",
                       s / 1000, r / 1000, b / 1000, b / r, bw / 1000
                printf "  back to AC %.1f ms (%.2fx), event with nothing changed %.1f ms (%.2fx); goal: a switch <= 1x a quiet refresh\n",
                       a / 1000, a / r, q / 1000, q / r }'
