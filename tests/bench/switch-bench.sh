#!/bin/sh
# tests/bench/switch-bench.sh [BUILDDIR]: what a power-source switch costs
# beside a quiet refresh (issue #23: a switch costs no more CPU than a quiet
# refresh), both as ratios to the bare libudev reader (tests/bench/bare-reader,
# as in ratio-bench.sh). The intel-laptop recording with the supplies of
# tests/data/power/mains-laptop.umockdev; the profile is balanced with TLP's
# per-source values for PCI runtime PM and audio (the test profile of
# tests/power-source.sh: 21 settings differ between the sources, the worst
# case of the issue; the shipped balanced switches one sysctl), its /proc/sys
# a copy (IDLECFG_TEST_PROC). Then RUNS rounds of: bare reader, refresh
# (nothing changed), the adapter unplugged and power-source event (a switch to
# battery), plugged and power-source event (back to AC), and an event with
# nothing changed. Medians of CPU time (user + system) and their ratios; the
# wall time of a switch includes the 200 ms debounce (a sleep, no CPU). With
# strace: the fsyncs of one switch and of one quiet refresh. The root (its
# journal) is on the disk of $TMPDIR; the mock /sys goes to /dev/shm when
# there is one (BENCH_SYS_DIR): real sysfs writes touch no file system,
# while writes to a recorded tree on ext4 cost a truncate and a write each.
# STRACE_OUT=FILE: also strace -c -f of one switch into FILE.
# Run: make bench
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/_build}
idlecfg=$build/src/idlecfg
bare=$build/tests/bench/bare-reader
timeit=$build/tests/bench/timeit
runs=${RUNS:-7}
for p in "$idlecfg" "$bare" "$timeit"; do
        [ -x "$p" ] || { echo "bench: $p is missing (make bench builds it)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
mkdir -p "$root/etc/kernel" "$root/run" "$root/var/lib" "$root/usr/share/idlecfg/profiles" "$root/usr/lib/udev/hwdb.d" \
        "$root/etc/idlecfg/profiles" "$tmp/proc/sys/vm"
sh "$top/tests/mkmodroot.sh" "$top/tests/data/modroot.spec" "$root" 6.1.0-18-amd64 >/dev/null
cp "$top"/profiles/*.profile "$root/usr/share/idlecfg/profiles/"
cp "$top"/hwdb/*.hwdb "$root/usr/lib/udev/hwdb.d/"
cat >"$root/etc/idlecfg/profiles/switch.profile" <<'EOP'
[profile]
description = balanced with TLP's per-source PCI runtime PM and audio power save
inherit = balanced
[pci]
runtime_pm = ac:on battery:auto
[audio]
power_save = ac:0 battery:10
EOP
echo "root=/dev/sda1 ro" >"$root/etc/kernel/cmdline"
# the boot entry kernel-install makes once the profile's word is in the
# command line: the boot configuration lacks nothing, so install and
# refresh exit 0
mkdir -p "$root/boot/loader/entries"
printf 'version 6.1.0-18-amd64\noptions root=/dev/sda1 ro pcie_aspm.policy=default\n' >"$root/boot/loader/entries/test.conf"
echo 500 >"$tmp/proc/sys/vm/dirty_writeback_centisecs"
m=$tmp/machine
mkdir -p "$m"
cp "$top/tests/data/machines/intel-laptop/modparams" "$m/"
{ grep -v '^#' "$top/tests/data/machines/intel-laptop/machine.umockdev"; echo
  grep -v '^#' "$top/tests/data/power/mains-laptop.umockdev"; } >"$m/machine.umockdev"
strace=$(command -v strace || true)
sysdir=${BENCH_SYS_DIR-/dev/shm}
[ -n "$sysdir" ] && [ -d "$sysdir" ] && [ -w "$sysdir" ] || sysdir=${TMPDIR:-/tmp}
IDLECFG_TEST_PROC=$tmp/proc TMPDIR=$sysdir "$top/tests/run-machine" "$m" sh -c '
        timeit=$1 bare=$2 out=$3 runs=$4 ic=$5 root=$6 strace=$7; shift 7
        export TIMEIT_OUT=$out.out
        # install, refresh and rollback take the kernel and profile; power-source neither
        ps() { "$ic" --root "$root" power-source "$@"; }
        sup=/sys/class/power_supply
        "$@" install >"$out.out" 2>&1
        ps boot >"$out.out" 2>&1
        for i in $(seq "$runs"); do
                "$timeit" /bin/true >>"$out.start"
                "$timeit" "$bare" >>"$out.bare"
                "$timeit" "$@" refresh >>"$out.refresh"
                echo 0 >$sup/ACAD/online
                "$timeit" "$ic" --root "$root" power-source event >>"$out.battery"
                echo 1 >$sup/ACAD/online; echo Charging >$sup/BAT0/status
                "$timeit" "$ic" --root "$root" power-source event >>"$out.ac"
                "$timeit" "$ic" --root "$root" power-source event >>"$out.same"
                echo Discharging >$sup/BAT0/status
        done
        if [ -n "$strace" ]; then
                "$strace" -f -c -e trace=fsync,fdatasync -o "$out.fsync-refresh" "$@" refresh >/dev/null 2>&1
                echo 0 >$sup/ACAD/online
                "$strace" -f -c -e trace=fsync,fdatasync -o "$out.fsync-switch" "$ic" --root "$root" power-source event >/dev/null 2>&1
                echo 1 >$sup/ACAD/online; echo Charging >$sup/BAT0/status
                if [ -n "${STRACE_OUT:-}" ]; then
                        "$strace" -c -f -o "$STRACE_OUT" "$ic" --root "$root" power-source event >/dev/null 2>&1
                fi
        fi
        wc -l <"$root/var/lib/idlecfg/apply.journal" >"$out.journal" 2>/dev/null
        grep -vc "^#" "$root/etc/idlecfg/power-source.conf" >"$out.table" 2>/dev/null
        "$@" rollback >"$out.out" 2>&1' sh "$timeit" "$bare" "$tmp/t" "$runs" "$idlecfg" "$root" "$strace" \
        "$idlecfg" --root "$root" --kernel 6.1.0-18-amd64 --profile switch </dev/null >"$tmp/log" 2>&1 ||
        { cat "$tmp/log" "$tmp/t.out" >&2; exit 1; }
median() { awk -v c="$2" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for v in bare refresh battery ac same; do
        awk '$3 != 0 { exit 1 }' "$tmp/t.$v" || { echo "bench: $v failed" >&2; exit 1; }
done
# the fsync and fdatasync calls strace -c counted (none: the file is empty of them)
fsyncs() { [ -e "$1" ] && awk '$NF ~ /^(fsync|fdatasync)$/ { n += $4 } END { print n + 0 }' "$1" || echo "?"; }
awk -v s="$(median "$tmp/t.start" 4)" -v bare="$(median "$tmp/t.bare" 4)" -v r="$(median "$tmp/t.refresh" 4)" \
    -v b="$(median "$tmp/t.battery" 4)" -v a="$(median "$tmp/t.ac" 4)" -v q="$(median "$tmp/t.same" 4)" \
    -v bw="$(median "$tmp/t.battery" 1)" -v n="$(cat "$tmp/t.table" 2>/dev/null)" \
    -v fr="$(fsyncs "$tmp/t.fsync-refresh")" -v fs="$(fsyncs "$tmp/t.fsync-switch")" -v jl="$(cat "$tmp/t.journal" 2>/dev/null)" '
        BEGIN { if (bare < 1) bare = 1; if (r < 1) r = 1
                printf "power-source (intel-laptop, balanced with per-source PCI runtime PM and audio; CPU medians of %s runs):\n", '"$runs"'
                printf "  bare libudev reader %.1f ms, /bin/true %.1f ms\n", bare / 1000, s / 1000
                printf "  quiet refresh       %6.1f ms  %5.2fx bare  %5.2fx refresh  fsyncs %s\n", r / 1000, r / bare, 1, fr
                printf "  switch to battery   %6.1f ms  %5.2fx bare  %5.2fx refresh  fsyncs %s (wall %.0f ms with the debounce)\n",
                       b / 1000, b / bare, b / r, fs, bw / 1000
                printf "  switch back to AC   %6.1f ms  %5.2fx bare  %5.2fx refresh\n", a / 1000, a / bare, a / r
                printf "  event, no change    %6.1f ms  %5.2fx bare  %5.2fx refresh\n", q / 1000, q / bare, q / r
                printf "  goal: a switch <= 1x a quiet refresh; the journal after all these switches: %s lines (%d settings switch)\n", jl, n }'
