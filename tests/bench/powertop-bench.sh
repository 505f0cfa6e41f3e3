#!/bin/sh
# tests/bench/powertop-bench.sh [BUILDDIR]: what `idlecfg apply` changes on
# every recorded machine in tests/data/machines, against what
# `powertop --auto-tune` changes on the same recording, as one table per
# machine by knob family (make bench; README "Benchmarks").
#
# Each tool runs in its own umockdev session of the recording inside
# tests/bench/sandbox.sh: a mount and network namespace where every mount is
# read-only, /proc/sys is a tmpfs with copies of the sysctls (so powertop's
# sysctl writes land there and are read back), there is no network interface
# and modprobe & co. are stubs; the sandbox checks all that before the tool
# runs. Inside the session the mock /sys is also bind-mounted on /sys, since
# powertop finds devices with glob(3), which umockdev does not redirect. The
# mock /sys (and the /proc/sys copies) before and after each run are compared
# and every changed file is classified by knob family (powertop-compare.py).
#
# The hand-made recordings carry no runtime_active_time/runtime_suspended_time
# counters, and powertop offers runtime PM only where one is non-zero; the
# session adds them where the recording's runtime_status says runtime PM is
# enabled (active or suspended), as the kernel's accounting would show them.
#
# Needs root, umockdev and powertop: when powertop is missing and apt-get is
# there, the script installs it (apt-get install powertop) and says so.
# BENCH_PROFILES: idlecfg's profiles to compare (default "balanced powersave").
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/_build}
build=$(cd "$build" && pwd)
profiles=${BENCH_PROFILES:-balanced powersave}
PATH=$PATH:/usr/sbin:/sbin

if [ "$(id -u)" -ne 0 ]; then
        echo "powertop-bench: skipped: needs root (unshare -m -n for the sandbox)"
        exit 0
fi
for c in umockdev-run unshare python3 perl; do
        command -v "$c" >/dev/null || { echo "powertop-bench: skipped: $c not installed"; exit 0; }
done
if ! command -v powertop >/dev/null; then
        if command -v apt-get >/dev/null; then
                echo "powertop-bench: installing powertop (apt-get install powertop) for the comparison"
                DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends powertop >/dev/null ||
                        { echo "powertop-bench: apt-get install powertop failed" >&2; exit 1; }
        else
                echo "powertop-bench: skipped: powertop not installed and no apt-get"
                exit 0
        fi
fi

export IDLECFG="$build/src/idlecfg" top_srcdir="$top"
# lib.sh: mkroot_installed (a recorded machine's root with profiles and hwdb)
# shellcheck source=../lib.sh
. "$top/tests/lib.sh"
work=$build/tests/bench/powertop
rm -rf "$work"
mkdir -p "$work"

# the run inside the umockdev session: TOOL is powertop or a profile name
cat >"$work/inner.sh" <<'SH'
set -u
tool=$1
sys=$UMOCKDEV_DIR/sys
# the harness reads the mock tree as plain files, without umockdev's preload
# (through it, a read of some files opens an emulated device node and
# blocks); the tools run with it
preload=$LD_PRELOAD
unset LD_PRELOAD
# runtime PM counters where the recording has none
find "$sys/devices" -path '*/power/runtime_status' -type f | while IFS= read -r f; do
        d=${f%/runtime_status}
        [ -e "$d/runtime_active_time" ] && continue
        case $(cat "$f") in
        active) echo 120000 >"$d/runtime_active_time"; echo 0 >"$d/runtime_suspended_time" ;;
        suspended) echo 1000 >"$d/runtime_active_time"; echo 119000 >"$d/runtime_suspended_time" ;;
        esac
done
snap() {
        (cd "$sys" && find . -type f ! -name 'runtime_*_time' | LC_ALL=C sort | perl -ne '
                chomp; my $f = $_; my $v;
                if (open(my $h, "<", $f)) { local $/; $v = <$h>; $v = "" unless defined $v;
                        $v =~ s/\n\z//; $v =~ s/\\/\\\\/g; $v =~ s/\n/\\n/g; $v = substr($v, 0, 300) }
                else { $v = "<unreadable>" }
                $f =~ s{^\.}{/sys};
                print "$f\t$v\n"') >"$1"
}
if [ "$tool" = powertop ]; then
        mount --bind "$sys" /sys || { echo "cannot bind the mock /sys on /sys" >&2; exit 1; }
        [ "$(stat -c %d:%i /sys/.)" = "$(stat -c %d:%i "$sys/.")" ] || { echo "/sys is not the mock" >&2; exit 1; }
        snap "$OUT/before"
        LD_PRELOAD=$preload timeout 300 powertop --auto-tune >"$OUT/tool.log" 2>&1
        echo "exit $?" >>"$OUT/tool.log"
else
        # /proc/sys here is the sandbox's tmpfs of copies, where powertop's
        # sysctl writes land too: idlecfg is told so (IDLECFG_TEST_PROC),
        # since under umockdev it otherwise leaves /proc/sys alone
        IDLECFG_TEST_PROC=/proc LD_PRELOAD=$preload "$IDLECFG" plan --json --root "$ROOT" --kernel "$KVER" --profile "$tool" \
                >"$OUT/plan.json" 2>"$OUT/plan.err"
        snap "$OUT/before"
        IDLECFG_TEST_PROC=/proc LD_PRELOAD=$preload "$IDLECFG" apply --root "$ROOT" --kernel "$KVER" --profile "$tool" \
                >"$OUT/tool.log" 2>&1
        echo "exit $?" >>"$OUT/tool.log"
fi
snap "$OUT/after"
SH

machines=
for md in "$top"/tests/data/machines/*/; do
        m=$(basename "$md")
        [ -f "$md/machine.umockdev" ] || continue
        machines="$machines $m"
        for tool in $profiles powertop; do
                out=$work/$m/$tool
                mkdir -p "$out"
                root=$out/root
                if [ "$tool" != powertop ]; then
                        mkroot_installed "$md" "$root" || { echo "powertop-bench: no root for $m" >&2; exit 1; }
                        mkdir -p "$root/run" "$root/var/lib"
                fi
                rc=0
                OUT=$out ROOT=$root KVER=$KVER IDLECFG=$IDLECFG \
                        sh "$top/tests/bench/sandbox.sh" "$out" "$top/tests/run-machine" "$md" sh "$work/inner.sh" "$tool" \
                        >"$out/sandbox.log" 2>&1 || rc=$?
                if [ $rc -ne 0 ] || [ ! -s "$out/after" ]; then
                        echo "powertop-bench: $m, $tool: the run failed (exit $rc):" >&2
                        cat "$out/sandbox.log" "$out/tool.log" >&2 2>/dev/null
                        exit 1
                fi
                rm -rf "$root" "$out/tmp" "$out/.stub"
        done
done
echo
echo "== What apply changes: idlecfg ($profiles) against powertop --auto-tune, per recorded machine =="
echo "   (sandbox: $(sed 's/^sandbox: //' "$work/$(echo $machines | cut -d' ' -f1)/powertop/sandbox"))"
# shellcheck disable=SC2086
python3 "$top/tests/bench/powertop-compare.py" "$work" "$top/tests/data/machines" "$profiles" $machines
