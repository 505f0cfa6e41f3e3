#!/bin/sh
# tests/family-suspend.sh: the [suspend] family (src/knobs/suspend.c): every
# value of mem_sleep and hibernate planned on every recorded machine: the
# kernel command line's mem_sleep_default= and resume=, the platform's hwdb
# entry winning over every value, keep included (a test entry in the roots'
# /etc/udev/hwdb.d for desktop-sata; a copy of desktop-sata without it keeps
# the profile's), the swap each root's fstab names, the refusals
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/family-lib.sh"
plan 12

family_root() {
        [ "$2" != desktop-plain ] || return 0
        mkdir -p "$1/etc/udev/hwdb.d"
        cat >"$1/etc/udev/hwdb.d/99-family-suspend.hwdb" <<'HWDB'
# tests/family-suspend.sh: desktop-sata (Dell OptiPlex 980) sleeps deep
dmi:*:svnDellInc.:pnOptiPlex980:*
 IDLECFG_MEM_SLEEP=deep
 IDLECFG_MEM_SLEEP_REASON=family test deep
HWDB
}
for v in s2idle shallow deep keep; do
        value "$v" suspend mem_sleep "$v" cmdline
done
value src suspend mem_sleep "ac:s2idle battery:deep"
value bad suspend mem_sleep mem
value hib-yes suspend hibernate yes cmdline
value hib-no suspend hibernate no cmdline
value hib-src suspend hibernate "ac:yes battery:no"
# desktop-sata without its platform entry: a copy the family's entry skips,
# with an entry for another platform only
mkdir -p "$tmp/machines/desktop-plain"
cp -R "$TESTS_DATA/machines/desktop-sata/." "$tmp/machines/desktop-plain/"
hwdb_variant suspend-plain desktop-plain 'dmi:*:svnNoSuchVendor:*
 IDLECFG_MEM_SLEEP=s2idle
 IDLECFG_MEM_SLEEP_REASON=variant another platform'
plan_all
M=suspend.mem_sleep H=/etc/udev/hwdb.d/99-family-suspend.hwdb

# desktop-sata: deep from its platform entry, whatever the profile says
deep() {
        [ "$(rows "$1" $M desktop-sata | cut -d'|' -f7,8,11,12)" = "mem_sleep_default|deep|cmdline|hwdb $H:3 (family test deep)" ] &&
                grep -qx "mem_sleep_default=deep pcie_aspm.policy=default" "$(out desktop-sata "$1" cmdline)"
}
# amd-laptop and intel-laptop suspend to idle only (/sys/power/mem_sleep:
# [s2idle]): deep is a skip there, saying the firmware offers no S3 (#36)
no_s3() {
        for _m in amd-laptop intel-laptop; do
                [ "$(rows deep $M $_m | cut -d'|' -f8,12)" = "|skipped: $(reason_of deep suspend mem_sleep deep) asks for deep, but this firmware offers no S3 (/sys/power/mem_sleep: [s2idle]): the machine suspends to idle" ] &&
                        ! grep -q mem_sleep_default "$(out $_m deep cmdline)" || { echo "$_m:"; rows deep $M $_m; return 1; }
        done
}
mem() {
        ok_plans "$1" && deep "$1" || return 1
        _ms="amd-laptop buildhost intel-laptop"
        [ "$1" != deep ] || { no_s3 && _ms=buildhost; } || return 1
        for _m in $_ms; do
                [ "$(rows "$1" $M $_m | cut -d'|' -f7,8,11,12)" = "mem_sleep_default|$1|cmdline|$(reason_of "$1" suspend mem_sleep "$1")" ] &&
                        grep -q "^mem_sleep_default=$1\( \|\$\)" "$(out $_m "$1" cmdline)" || { echo "$_m:"; rows "$1" $M $_m; cat "$(out $_m "$1" cmdline)"; return 1; }
        done
}
for v in s2idle shallow deep; do
        check "mem_sleep = $v: mem_sleep_default=$v on the command line of three machines (deep: of buildhost, the s2idle-only laptops skipped); desktop-sata's platform entry (deep) wins" mem $v
done
mem_keep() {
        ok_plans keep && deep keep &&
                default_stays keep $M suspend mem_sleep keep amd-laptop buildhost intel-laptop &&
                ! grep -q mem_sleep_default "$(out intel-laptop keep cmdline)"
}
check "mem_sleep = keep: nothing but a skip saying the kernel default stays where no platform entry says better; desktop-sata's entry still wins (a known-good fact)" mem_keep
# ---- what the platform entry does ----
ms_deny() {
        for _v in s2idle shallow keep; do
                deep $_v || { echo "$_v:"; rows $_v $M desktop-sata; return 1; }
        done
}
hwdb_point deny IDLECFG_MEM_SLEEP "desktop-sata's entry (deep) replaces the profile's s2idle, shallow and keep: mem_sleep_default=deep with the entry's reason" ms_deny
ms_keep() {
        for _v in s2idle shallow deep; do
                [ "$(rows $_v $M suspend-plain | cut -d'|' -f7,8,11,12)" = "mem_sleep_default|$_v|cmdline|$(reason_of $_v suspend mem_sleep $_v)" ] &&
                        grep -q "^mem_sleep_default=$_v\( \|\$\)" "$(out suspend-plain $_v cmdline)" ||
                        { echo "$_v:"; rows $_v $M suspend-plain; cat "$(out suspend-plain $_v cmdline)"; return 1; }
        done
        default_stays keep $M suspend mem_sleep keep suspend-plain
}
hwdb_point keep IDLECFG_MEM_SLEEP "desktop-sata without its entry (an entry for another platform only): the profile's s2idle, shallow, deep with its reason; keep, the kernel default" ms_keep
check "mem_sleep takes no per-source value (a command-line word): refused with the file and line" refused_source src suspend mem_sleep
check "a word mem_sleep does not take is refused with the file and line" refused_word bad suspend mem_sleep \
        "unknown value 'mem' for [suspend] mem_sleep; valid: s2idle, shallow, deep, keep"
R=suspend.resume
hib_yes() {
        ok_plans hib-yes || return 1
        _r=$(reason_of hib-yes suspend hibernate yes)
        printf '%s\n' "amd-laptop|resume|UUID=7fdfa477-0727-5270-8159-258ff91508bd|cmdline|$_r; swap /dev/nvme0n1p3 from fstab" \
                "desktop-sata|resume|UUID=784efa85-56ef-5a82-9e1c-54e1e87629e0|cmdline|$_r; swap /dev/sda3 from fstab" \
                "intel-laptop|resume|UUID=5d8144cc-eb5b-5f37-b09a-ea1c14b2b1ef|cmdline|$_r; swap /dev/nvme0n1p3 from fstab" >"$tmp/w"
        planned hib-yes $R | cut -d'|' -f1,7,8,11,12 | diff -u "$tmp/w" - &&
                [ "$(rows hib-yes $R buildhost | cut -d'|' -f8,12)" = "|skipped: the profile asks for hibernation but the target has no swap device with a UUID" ] &&
                grep -q ' resume=UUID=5d8144cc-eb5b-5f37-b09a-ea1c14b2b1ef$' "$(out intel-laptop hib-yes cmdline)"
}
check "hibernate = yes: resume=UUID= of the swap in each root's fstab on the command line; the VM has none: skipped, saying so" hib_yes
hib_no() {
        ok_plans hib-no && [ -z "$(planned hib-no $R)" ] && ! grep -q 'resume=' "$(out intel-laptop hib-no cmdline)" &&
                default_stays hib-no $R suspend hibernate no $FAMILY_MACHINES
}
check "hibernate = no: no resume= anywhere, a skip saying the kernel default stays" hib_no
check "hibernate takes no per-source value: refused with the file and line" refused_source hib-src suspend hibernate
check "every value changes its own knob alone: the rest of each plan is balanced's" only_knobs $M $R
done_testing
