#!/bin/sh
# tests/family-nvme.sh: the [nvme] family (src/knobs/nvme.c).
# 1-6: both values of apst planned on every recorded machine (Linux 6.1's
# modules: no nvme quirks=): the two laptops' drives have no quirk in the
# packaged hwdb; test entries in the roots' /etc/udev/hwdb.d give
# intel-laptop's drive a deny (APST off machine-wide:
# nvme_core.default_ps_max_latency_us=0) and amd-laptop's a local no-deepest
# (which 6.1 cannot apply to one drive: skipped).
# 7-: per drive, on check-vm's q35 (tests/data/nvme: its NVMe 1b36:0010, and a
# variant with a second controller 8086:5845 of the same model) with a local
# deny for 1b36:0010, one root holding a 6.1 module tree and a 7.3 one whose
# nvme has quirks= (drivers/nvme/host/pci.c quirks_param_set()): --kernel
# alone decides between that drive's quirk and the machine-wide switch.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/family-lib.sh"
plan 16

family_root() {
        mkdir -p "$1/etc/udev/hwdb.d"
        cat >"$1/etc/udev/hwdb.d/99-family-nvme.hwdb" <<'HWDB'
# tests/family-nvme.sh: intel-laptop's WD drive denied, amd-laptop's SK hynix no-deepest
idlecfg-nvme:WDS200T1X0E-00AFY0:*
 IDLECFG_NVME_APST=deny
 IDLECFG_NVME_APST_REASON=family test deny

idlecfg-nvme:HFM512GD3JX013N:41000C20
 IDLECFG_NVME_APST=no-deepest
 IDLECFG_NVME_APST_REASON=family test no-deepest
HWDB
}
value quirks nvme apst quirks modprobe cmdline
value keep nvme apst keep modprobe cmdline
value src nvme apst "ac:quirks battery:keep"
value bad nvme apst off
plan_all
K=nvme.apst H=/etc/udev/hwdb.d/99-family-nvme.hwdb
NOQ="kernel $KVER's nvme has no quirks= parameter (Linux 7.x's has)"

quirks() {
        param quirks $K nvme_core default_ps_max_latency_us 0 modprobe "hwdb $H:3 (family test deny); machine-wide, as $NOQ" intel-laptop &&
                [ "$(rows quirks $K intel-laptop | cut -d'|' -f3)" = nvme0 ] &&
                [ "$(rows quirks $K amd-laptop | cut -d'|' -f3,8,12)" = "nvme0||skipped: hwdb $H:7 (family test no-deepest): $NOQ: the deepest power state cannot be kept out for one drive; APST stays" ] &&
                ! grep -q nvme "$(out amd-laptop quirks modprobe)" "$(out amd-laptop quirks cmdline)" &&
                [ -z "$(rows quirks nvme.quirks)" ] &&
                # no NVMe drive, no row
                [ -z "$(rows quirks $K desktop-sata buildhost)" ]
}
hwdb_point deny IDLECFG_NVME_APST "apst = quirks, 6.1: the denied drive turns APST off machine-wide (nvme_core.default_ps_max_latency_us=0 in modprobe.d); a local no-deepest cannot be one drive's: skipped" quirks
noquirk() {
        # the packaged hwdb has no quirk for either drive (tests/data's golden plans say so)
        grep -q '"reason": "skipped: no APST quirk for HFM512GD3JX013N: the kernel.s APST stays"' "$TESTS_DATA/machines/amd-laptop/expected/plan-balanced.json" &&
                grep -q '"reason": "skipped: no APST quirk for WDS200T1X0E-00AFY0: the kernel.s APST stays"' "$TESTS_DATA/machines/intel-laptop/expected/plan-balanced.json"
}
check "without the test entries neither drive has a quirk (the golden plans): the entries made the difference" noquirk
keep() { kept keep $K nvme apst modprobe cmdline && ! grep -q nvme "$(out intel-laptop keep modprobe)"; }
check "apst = keep: nothing planned (the hwdb's deny not used either), one skip naming the profile line" keep
check "apst takes no per-source value: refused with the file and line" refused_source src nvme apst
check "a word apst does not take is refused with the file and line" refused_word bad nvme apst "unknown value 'off' for [nvme] apst; valid: quirks, keep"
check "every value changes nvme.apst alone: the rest of each plan is balanced's" only_knobs $K

# ---- per drive: check-vm's q35 ----
K73=7.3.4+deb13-amd64 K73B=7.3.4+builtin-nvme
Q=$TESTS_DATA/nvme
mkdir -p "$tmp/q35" "$tmp/q35two"
cp "$Q/q35.umockdev" "$tmp/q35/machine.umockdev"
{ cat "$Q/q35.umockdev"; echo; cat "$Q/q35-second-nvme.umockdev"; } >"$tmp/q35two/machine.umockdev"
QUIRKS_PARM='parm=quirks:Enable\/disable NVMe quirks by specifying \\quirks=VID:DID:quirk_names'
sed "/^nvme /s/\$/ $QUIRKS_PARM/" "$TESTS_DATA/modroot.spec" >"$tmp/spec-7.3"
# the same with nvme built in: its parameter goes to the command line
sed -e "/^nvme /s/\$/ $QUIRKS_PARM/" -e '/^nvme /s/ loadable / builtin /' "$TESTS_DATA/modroot.spec" >"$tmp/spec-7.3b"
# qroot: a local deny for 1b36:0010; ndroot: a local no-deepest for the model
# (both drives); kmroot: a no-deepest for 8086:5845 in a file of
# hwdb/import-linux's (the kernel's own quirk)
for r in qroot ndroot kmroot; do
        mkroot_installed "$tmp/q35" "$tmp/$r" || { echo "Bail out! no root"; exit 1; }
        for k in "7.3 $K73" "7.3b $K73B"; do
                set -- $k
                sh "$top_srcdir/tests/mkmodroot.sh" "$tmp/spec-$1" "$tmp/$r" "$2" >"$tmp/mkmodroot.log" 2>&1 ||
                        { cat "$tmp/mkmodroot.log"; echo "Bail out! module tree $2"; exit 1; }
        done
        mkdir -p "$tmp/$r/etc/udev/hwdb.d"
done
printf '# family-nvme: q35 drive denied\npci:v00001B36d00000010*\n IDLECFG_NVME_APST=deny\n IDLECFG_NVME_APST_REASON=q35 local deny\n' \
        >"$tmp/qroot/etc/udev/hwdb.d/99-q35.hwdb"
printf '# family-nvme: the model no-deepest\nidlecfg-nvme:QEMU NVMe Ctrl:*\n IDLECFG_NVME_APST=no-deepest\n IDLECFG_NVME_APST_REASON=q35 local no-deepest\n' \
        >"$tmp/ndroot/etc/udev/hwdb.d/99-q35.hwdb"
printf '\n# family-nvme: as if the kernel had it\npci:v00008086d00005845sv*sd*bc*sc*i*\n IDLECFG_NVME_APST=no-deepest\n IDLECFG_NVME_APST_REASON=kernel NO_DEEPEST_PS quirk (test)\n' \
        >>"$tmp/kmroot/usr/lib/udev/hwdb.d/60-idlecfg-linux-nvme.hwdb"
KMLINE=$(grep -c '' "$tmp/kmroot/usr/lib/udev/hwdb.d/60-idlecfg-linux-nvme.hwdb")
# one umockdev session per machine: "MACHINE ID ROOT KERNEL EXT VERB ARGS..."
# lines, the output in $tmp/MACHINE.ID.EXT
qcase() { echo "$*" >>"$tmp/qcases.$1"; }
for m in q35 q35two; do
        for k in "73 $K73" "61 $KVER"; do
                set -- $k
                qcase $m q$1 qroot $2 json plan --json
                qcase $m q$1 qroot $2 modprobe plan --format=modprobe
                qcase $m nd$1 ndroot $2 json plan --json
                qcase $m nd$1 ndroot $2 modprobe plan --format=modprobe
        done
done
qcase q35 qb qroot $K73B json plan --json
qcase q35 qb qroot $K73B cmdline plan --format=cmdline
qcase q35two km kmroot $K73 json plan --json
qcase q35two km kmroot $K73 modprobe plan --format=modprobe
qcase q35two x0 qroot $K73 explain explain nvme0
qcase q35two x1 qroot $K73 explain explain nvme1
for m in q35 q35two; do
        while read -r _m _id _r _k _ext _args; do
                echo "'$IDLECFG' $_args --profile balanced --root '$tmp/$_r' --kernel $_k >'$tmp/$_m.$_id.$_ext' 2>>'$tmp/$_m.err'"
        done <"$tmp/qcases.$m" >"$tmp/$m.batch"
        run_machine "$tmp/$m" sh "$tmp/$m.batch" || { echo "Bail out! the session of $m"; exit 1; }
done
# live values for verify: the option in effect, and the nvme module loaded without it
for v in set empty; do
        mkdir -p "$tmp/q35$v" && cp "$tmp/q35/machine.umockdev" "$tmp/q35$v/"
done
echo "nvme/quirks=1b36:0010:no_apst" >"$tmp/q35set/modparams"
echo "nvme/quirks=" >"$tmp/q35empty/modparams"
for v in set empty; do
        run_machine "$tmp/q35$v" "$IDLECFG" verify --json --profile balanced --root "$tmp/qroot" --kernel $K73 \
                >"$tmp/verify-$v.json" 2>"$tmp/verify-$v.err"
done
# qrows M ID: knob|device|module|param|value|mechanism|reason of the nvme
# knobs of the plan (also to stdout for check's diagnostics)
qrows() {
        python3 -c '
import json, sys
for s in json.load(open(sys.argv[1]))["settings"]:
    if s["knob"].startswith("nvme."):
        print("|".join(str(s.get(k) or "") for k in ("knob", "device", "module", "param", "value", "mechanism", "reason")))
' "$tmp/$1.$2.json"
}
DENY="hwdb /etc/udev/hwdb.d/99-q35.hwdb:3 (q35 local deny)"
PER="per drive: 1b36:0010:no_apst in nvme.quirks (kernel $K73's nvme takes quirks=), for PCI ID 1b36:0010 alone"
KEEP="nvme.apst|nvme1||||none|skipped: no APST quirk for QEMU NVMe Ctrl: the kernel's APST stays"

bar73() {
        [ "$(qrows q35 q73)" = "nvme.quirks|nvme0|nvme|quirks|1b36:0010:no_apst|modprobe|$DENY; $PER" ] &&
                [ "$(grep -v '^#' "$tmp/q35.q73.modprobe" | grep .)" = "options nvme quirks=1b36:0010:no_apst" ]
}
check "q35, the root's 7.3 modules (nvme has quirks=): the denied drive gets its own quirk nvme.quirks=1b36:0010:no_apst in modprobe.d, no machine-wide switch" bar73
bar61() {
        [ "$(qrows q35 q61)" = "nvme.apst|nvme0|nvme_core|default_ps_max_latency_us|0|modprobe|$DENY; machine-wide, as $NOQ" ] &&
                [ "$(grep -v '^#' "$tmp/q35.q61.modprobe" | grep .)" = "options nvme_core default_ps_max_latency_us=0" ]
}
check "q35, the same root's 6.1 modules (no quirks=): the machine-wide switch stays (nvme_core.default_ps_max_latency_us=0)" bar61
deny_keep73() {
        [ "$(qrows q35two q73)" = "nvme.quirks|nvme0|nvme|quirks|1b36:0010:no_apst|modprobe|$DENY; $PER; APST stays on for nvme1 (QEMU NVMe Ctrl)
$KEEP" ] && [ "$(grep -v '^#' "$tmp/q35two.q73.modprobe" | grep .)" = "options nvme quirks=1b36:0010:no_apst" ]
}
hwdb_point keep IDLECFG_NVME_APST "two drives of one model, 7.3: the deny fires for 1b36:0010 (nvme0) alone, nvme1 (8086:5845), without an entry, keeps APST and the plan says so" deny_keep73
deny_keep61() {
        [ "$(qrows q35two q61)" = "nvme.apst|nvme0|nvme_core|default_ps_max_latency_us|0|modprobe|$DENY; machine-wide, as $NOQ: APST also off for nvme1 (QEMU NVMe Ctrl)
nvme.apst|nvme1||||none|skipped: no APST quirk for QEMU NVMe Ctrl, but nvme_core.default_ps_max_latency_us=0 (for nvme0) turns its APST off too" ]
}
check "two drives, 6.1: the machine-wide switch names the drive it also turns off, and that drive's row says so" deny_keep61
showconfig() {
        mkdir -p "$tmp/md" && cp "$tmp/q35.q73.modprobe" "$tmp/md/idlecfg.conf" &&
                modprobe -C "$tmp/md" --showconfig 2>&1 | grep -qx 'options nvme quirks=1b36:0010:no_apst'
}
check "modprobe -C DIR --showconfig reads the emitted file: options nvme quirks=1b36:0010:no_apst" showconfig
builtin() {
        [ "$(qrows q35 qb | cut -d'|' -f1-6)" = "nvme.quirks|nvme0|nvme|quirks|1b36:0010:no_apst|cmdline" ] &&
                tr " " "\n" <"$tmp/q35.qb.cmdline" | grep -qx "nvme.quirks=1b36:0010:no_apst"
}
check "nvme built into the 7.3 kernel: the quirk goes to the command line (nvme.quirks=1b36:0010:no_apst)" builtin
nodeepest() {
        V=1b36:0010:no_deepest_ps-8086:5845:no_deepest_ps
        [ "$(qrows q35two nd73 | cut -d'|' -f1-6)" = "nvme.quirks|nvme0|nvme|quirks|$V|modprobe
nvme.quirks|nvme1|nvme|quirks|$V|modprobe" ] &&
                [ "$(grep -v '^#' "$tmp/q35two.nd73.modprobe" | grep .)" = "options nvme quirks=$V" ] &&
                [ "$(qrows q35two nd61 | cut -d'|' -f1,2,5,7)" = "nvme.apst|nvme0||skipped: hwdb /etc/udev/hwdb.d/99-q35.hwdb:3 (q35 local no-deepest): $NOQ: the deepest power state cannot be kept out for one drive; APST stays
nvme.apst|nvme1||skipped: hwdb /etc/udev/hwdb.d/99-q35.hwdb:3 (q35 local no-deepest): $NOQ: the deepest power state cannot be kept out for one drive; APST stays" ] &&
                ! grep -q nvme "$tmp/q35two.nd61.modprobe"
}
check "a local no-deepest on both drives' model: one quirks= entry per PCI ID ('-' between) in one options line on 7.3; on 6.1 skipped, nothing written" nodeepest
mirror() {
        [ "$(qrows q35two km)" = "nvme.apst|nvme0||||none|skipped: no APST quirk for QEMU NVMe Ctrl: the kernel's APST stays
nvme.apst|nvme1||||none|skipped: hwdb /usr/lib/udev/hwdb.d/60-idlecfg-linux-nvme.hwdb:$((KMLINE - 1)) (kernel NO_DEEPEST_PS quirk (test)): the kernel applies this quirk itself" ] &&
                ! grep -q nvme "$tmp/q35two.km.modprobe"
}
check "a no-deepest entry of hwdb/import-linux's files is the kernel's own quirk: nothing planned for it" mirror
explain() {
        grep -q '^  nvme.quirks: quirks ? -> 1b36:0010:no_apst (modprobe)$' "$tmp/q35two.x0.explain" &&
                grep -qF "$DENY; $PER; APST stays on for nvme1 (QEMU NVMe Ctrl)" "$tmp/q35two.x0.explain" &&
                grep -qF "skipped: no APST quirk for QEMU NVMe Ctrl: the kernel's APST stays" "$tmp/q35two.x1.explain" &&
                ! grep -q quirks "$tmp/q35two.x1.explain"
}
check "explain: nvme0 shows its quirk with the plan's value, mechanism and reason; nvme1 its kept APST" explain
verify() {
        python3 - "$tmp/verify-set.json" "$tmp/verify-empty.json" <<'PY'
import json, sys
def nv(f):
    return [(s["state"], s["wanted"], s["actual"]) for s in json.load(open(f))["settings"] if s["knob"] == "nvme.quirks"]
a, b = nv(sys.argv[1]), nv(sys.argv[2])
print(a, b)
sys.exit(0 if a == [("match", "1b36:0010:no_apst", "1b36:0010:no_apst")] and b == [("drift", "1b36:0010:no_apst", "")] else 1)
PY
}
check "verify reads /sys/module/nvme/parameters/quirks: the quirk in effect matches, nvme loaded without it (an empty string) is drift" verify
done_testing
