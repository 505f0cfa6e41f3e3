#!/bin/sh
# tests/modules.sh: libkmod resolution against fixture module trees (depmod -b),
# and what happens without libkmod.so.2 at run time (src/root/modules.c opens it with dlopen)
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}"
plan 17

cat > "$tmp/m.umockdev" <<'REC'
P: /devices/pci0000:00/0000:00:1f.3
E: SUBSYSTEM=pci
E: DRIVER=snd_hda_intel
E: MODALIAS=pci:v00008086d0000A0C8sv000017AAsd000022BEbc04sc03i00
A: vendor=0x8086
A: device=0xa0c8
A: class=0x040300

P: /devices/pci0000:00/0000:00:14.0
E: SUBSYSTEM=pci
E: DRIVER=xhci_hcd
E: MODALIAS=pci:v00008086d0000A0EDsv000017AAsd000022D5bc0Csc03i30
A: vendor=0x8086
A: device=0xa0ed
A: class=0x0c0330

P: /devices/pci0000:00/0000:00:1e.0
E: SUBSYSTEM=pci
E: MODALIAS=pci:v0000ABCDd00001234sv00000000sd00000000bcFFsc00i00
A: vendor=0xabcd
A: device=0x1234

P: /devices/pci0000:00/0000:00:17.0
E: SUBSYSTEM=pci
E: DRIVER=ahci
E: MODALIAS=pci:v00008086d0000A0D3sv000017AAsd000022D5bc01sc06i01
A: vendor=0x8086
A: class=0x010601

P: /devices/pci0000:00/0000:00:17.0/ata1/host0
E: SUBSYSTEM=scsi
E: DEVTYPE=scsi_host

P: /devices/pci0000:00/0000:00:17.0/ata1/host0/scsi_host/host0
E: SUBSYSTEM=scsi_host
A: link_power_management_policy=max_performance
A: proc_name=ahci

P: /devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0
E: SUBSYSTEM=scsi
E: DEVTYPE=scsi_device
E: DRIVER=sd
E: MODALIAS=scsi:t-0x00
A: vendor=ATA
A: model=Samsung SSD 860
A: rev=RVT0
A: type=0
REC

# state of module NAME in the JSON of file F
state() { grep -A1 "\"name\": \"$2\"" "$1" | sed -n 's/.*"state": "\(.*\)".*/\1/p' | head -n 1; }

if mkmodroot "$tmp/root"; then ok "fixture module tree built with depmod -b"; else not_ok "fixture module tree"; fi
run_machine "$tmp/m.umockdev" "$IDLECFG" detect --json --root "$tmp/root" --kernel "$KVER" >"$tmp/out.json" 2>"$tmp/err"
check "detect ran" test -s "$tmp/out.json"
check "HDA controller -> snd_hda_intel, loadable" test "$(state "$tmp/out.json" snd_hda_intel)" = loadable
check "xHCI by class alias -> xhci_pci, loadable" test "$(state "$tmp/out.json" xhci_pci)" = loadable
check "SCSI disk -> sd_mod, built in" test "$(state "$tmp/out.json" sd_mod)" = builtin
check "unknown device resolves to no module" sh -c "sed -n '/\"name\": \"0000:00:1e.0\"/,/\"children\"/p' '$tmp/out.json' | grep -q '\"modules\": \[\]'"
check "module directory reported" grep -q "\"module_dir\": \"$tmp/root/lib/modules/$KVER\"" "$tmp/out.json"

# newest kernel in the root is chosen without --kernel
mkdir -p "$tmp/root/lib/modules/5.10.0-old"
run_machine "$tmp/m.umockdev" "$IDLECFG" detect --json --root "$tmp/root" >"$tmp/out2.json" 2>&1
check "newest kernel of the root chosen" sh -c "grep -q '\"release\": \"$KVER\"' '$tmp/out2.json' && grep -q '\"source\": \"newest-installed\"' '$tmp/out2.json'"

# a root without modules: said plainly, nothing resolved, detect still works
mkdir -p "$tmp/empty/etc"
run_machine "$tmp/m.umockdev" "$IDLECFG" detect --root "$tmp/empty" --kernel 6.99.0 >"$tmp/out3.txt" 2>&1; rc=$?
check "no module directory: exit 0 and said plainly" sh -c "test $rc -eq 0 && tr '\n' ' ' < '$tmp/out3.txt' | tr -s ' ' | grep -q 'no module directory $tmp/empty/lib/modules/6.99.0'"

# a directory that depmod never ran on
mkdir -p "$tmp/nodep/lib/modules/$KVER"
run_machine "$tmp/m.umockdev" "$IDLECFG" detect --root "$tmp/nodep" >"$tmp/out4.txt" 2>&1
check "module directory without indexes: says to run depmod" sh -c "tr '\n' ' ' < '$tmp/out4.txt' | tr -s ' ' | grep -q 'run depmod for $KVER'"

# the host (the root "/") and a kernel it has no module directory for. The
# host fact this needs is only that /lib/modules/$absent is not there: the
# kernel is given with --kernel, so that neither the running kernel's tree nor
# another kernel's (headers only, after an upgrade before the reboot) decides
absent=0.0.0-idlecfg-test-absent
if [ ! -e "/lib/modules/$absent" ]; then
        "$IDLECFG" --kernel "$absent" detect >"$tmp/host.txt" 2>&1
        check "host without /lib/modules/$absent: plain note" sh -c "tr '\n' ' ' < '$tmp/host.txt' | tr -s ' ' |
                grep -q 'no module directory /lib/modules/$absent: this kernel has no loadable modules installed'"
else
        skip "host without /lib/modules/$absent: plain note" "this machine has /lib/modules/$absent"
fi

# 12-14: libkmod.so.2 missing at run time. IDLECFG_TEST_LIBKMOD names the
# library src/root/modules.c opens instead of libkmod.so.2: one that does not exist
nolib() { IDLECFG_TEST_LIBKMOD=libkmod-absent.so.2 run_machine "$tmp/m.umockdev" "$IDLECFG" "$@"; }
moddir=$tmp/root/lib/modules/$KVER
nolib plan --root "$tmp/root" --kernel "$KVER" --profiles-dir "$top_srcdir/profiles" --profile balanced >"$tmp/nolib.out" 2>"$tmp/nolib.err"; rc=$?
check "no libkmod, module indexes in the root: plan exits 3 and says why, prints no plan" sh -c "
        test $rc -eq 3 && test ! -s '$tmp/nolib.out' && grep -qx 'idlecfg: the module index of $moddir cannot be read: libkmod-absent.so.2: cannot open shared object file: No such file or directory' '$tmp/nolib.err'"
nolib detect --root "$tmp/root" --kernel "$KVER" >"$tmp/nolib2.out" 2>&1; rc=$?
check "and detect the same" sh -c "test $rc -eq 3 && grep -q 'the module index of $moddir cannot be read: libkmod-absent.so.2' '$tmp/nolib2.out'"
nolib plan --root "$tmp/empty" --kernel 6.99.0 --profiles-dir "$top_srcdir/profiles" >"$tmp/nolib3.out" 2>&1; rc=$?
check "no libkmod and no module directory: nothing needs it, plan exits 0" sh -c "
        test $rc -eq 0 && grep -q '^Profile balanced .*, kernel 6.99.0\$' '$tmp/nolib3.out' && grep -q ' settings (udev ' '$tmp/nolib3.out'"
# 15: a plan that asks no module question (the buildhost recording: virtio,
# no GPU, no HDA) needs no libkmod: the same plan with it or without it
bh=$TESTS_DATA/machines/buildhost
run_machine "$bh" "$IDLECFG" plan --root "$tmp/root" --kernel "$KVER" --profiles-dir "$top_srcdir/profiles" \
        --profile balanced >"$tmp/bh.out" 2>&1; rc1=$?
IDLECFG_TEST_LIBKMOD=libkmod-absent.so.2 run_machine "$bh" "$IDLECFG" plan --root "$tmp/root" --kernel "$KVER" \
        --profiles-dir "$top_srcdir/profiles" --profile balanced >"$tmp/bh-nolib.out" 2>&1; rc2=$?
check "no module question (buildhost): the same plan without libkmod, exit 0" sh -c "
        test $rc1 -eq 0 && test $rc2 -eq 0 && grep -q '^pci.runtime_pm ' '$tmp/bh.out' && cmp '$tmp/bh.out' '$tmp/bh-nolib.out'"

# 16: the real library made unreadable, without the hook: an empty file bound over
# it in a private mount namespace (as root, with unshare)
lib=$(ldconfig -p 2>/dev/null | sed -n 's/^[[:space:]]*libkmod\.so\.2 (libc6,x86-64) => //p' | head -n 1)
[ -n "$lib" ] || lib=$(PATH=$PATH:/sbin:/usr/sbin ldconfig -p 2>/dev/null | sed -n 's/^[[:space:]]*libkmod\.so\.2 .* => //p' | head -n 1)
: >"$tmp/empty.so"
if [ -n "$lib" ] && root_ns &&
   unshare -m sh -c "mount --bind '$tmp/empty.so' '$(readlink -f "$lib" 2>/dev/null)'" 2>/dev/null; then
        unshare -m sh -c 'mount --bind "$1" "$2" && exec "$3" "$4" "$5" plan --root "$6" --kernel "$7" --profiles-dir "$8" --profile balanced' sh \
                "$tmp/empty.so" "$(readlink -f "$lib")" "$top_srcdir/tests/run-machine" "$tmp/m.umockdev" "$IDLECFG" \
                "$tmp/root" "$KVER" "$top_srcdir/profiles" >"$tmp/nolib4.out" 2>&1; rc=$?
        check "libkmod.so.2 unreadable ($lib bound to an empty file): plan exits 3 naming it" sh -c "
                test $rc -eq 3 && grep -q '^idlecfg: the module index of $moddir cannot be read: [^ ]*libkmod.so.2: ' '$tmp/nolib4.out'"
else
        skip "libkmod.so.2 hidden by a bind mount" "needs root, unshare -m and ldconfig -p"
fi

# parameters of a built-in module are known from modules.builtin.modinfo
check "modinfo sees usbcore as built in with its parameter" sh -c "PATH=\$PATH:/sbin:/usr/sbin modinfo -b '$tmp/root' -k '$KVER' usbcore | grep -q 'parm:.*autosuspend'"
done_testing
