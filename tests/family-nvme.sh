#!/bin/sh
# tests/family-nvme.sh: the [nvme] family (src/knobs/nvme.c): both values of
# apst planned on every recorded machine: the two laptops' drives have no
# quirk in the packaged hwdb; test entries in the roots' /etc/udev/hwdb.d give
# intel-laptop's drive a deny (APST off: nvme_core.default_ps_max_latency_us=0)
# and amd-laptop's a no-deepest (the kernel's own quirk: nothing to plan)
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/family-lib.sh"
plan 6

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

quirks() {
        param quirks $K nvme_core default_ps_max_latency_us 0 modprobe "hwdb $H:3 (family test deny)" intel-laptop &&
                [ "$(rows quirks $K intel-laptop | cut -d'|' -f3)" = nvme0 ] &&
                [ "$(rows quirks $K amd-laptop | cut -d'|' -f3,8,12)" = "nvme0||skipped: hwdb $H:7 (family test no-deepest): the kernel applies this quirk itself" ] &&
                ! grep -q nvme_core "$(out amd-laptop quirks modprobe)" "$(out amd-laptop quirks cmdline)" &&
                # no NVMe drive, no row
                [ -z "$(rows quirks $K desktop-sata buildhost)" ]
}
check "apst = quirks: the denied drive turns APST off (nvme_core.default_ps_max_latency_us=0 in modprobe.d); a no-deepest quirk is the kernel's own: skipped" quirks
noquirk() {
        # the packaged hwdb has no quirk for either drive (tests/data's golden plans say so)
        grep -q '"reason": "skipped: no APST quirk for HFM512GD3JX013N: the kernel.s APST stays"' "$TESTS_DATA/machines/amd-laptop/expected/plan-balanced.json" &&
                grep -q '"reason": "skipped: no APST quirk for WDS200T1X0E-00AFY0: the kernel.s APST stays"' "$TESTS_DATA/machines/intel-laptop/expected/plan-balanced.json"
}
check "without the test entries neither drive has a quirk (the golden plans): the entries made the difference" noquirk
keep() { kept keep $K nvme apst modprobe cmdline && ! grep -q nvme_core "$(out intel-laptop keep modprobe)"; }
check "apst = keep: nothing planned (the hwdb's deny not used either), one skip naming the profile line" keep
check "apst takes no per-source value: refused with the file and line" refused_source src nvme apst
check "a word apst does not take is refused with the file and line" refused_word bad nvme apst "unknown value 'off' for [nvme] apst; valid: quirks, keep"
check "every value changes nvme.apst alone: the rest of each plan is balanced's" only_knobs $K
done_testing
