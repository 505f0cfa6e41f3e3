#!/bin/sh
# tests/family-i2c.sh: the [i2c] family (src/knobs/i2c.c): every value of
# runtime_pm planned on every recorded machine: the I2C controllers and
# clients that get power/control, the i2c-hid touchpads left alone, the
# hwdb's deny (intel-laptop's PIXA3854 touchpad, packaged) and allow (a test
# entry in the roots' /etc/udev/hwdb.d for amd-laptop's ASUE120B touchpad),
# the udev rules and the refusals
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/family-lib.sh"
plan 10

family_root() {
        mkdir -p "$1/etc/udev/hwdb.d"
        cat >"$1/etc/udev/hwdb.d/99-family-i2c.hwdb" <<'HWDB'
# tests/family-i2c.sh: amd-laptop's touchpad allowed
acpi:ASUE120B:*
 IDLECFG_I2C_RUNTIME_PM=allow
 IDLECFG_I2C_RUNTIME_PM_REASON=family test allow
HWDB
}
for v in platform auto on keep; do
        value "$v" i2c runtime_pm "$v" udev
done
value src i2c runtime_pm "ac:auto battery:on"
value bad i2c runtime_pm off
plan_all
K=i2c.runtime_pm
ALLOW="hwdb /etc/udev/hwdb.d/99-family-i2c.hwdb:3 (family test allow)"
PIXA="i2c-PIXA3854:00|i2c-client|||||||none|skipped: hwdb /usr/lib/udev/hwdb.d/60-idlecfg-i2c.hwdb:[0-9]* (runtime PM hides touchpad input from idle detection"

platform() {
        ok_plans platform && [ -z "$(rows platform $K desktop-sata buildhost)" ] &&
                # only the allowed client, with its entry as the reason
                [ "$(planned platform $K | cut -d'|' -f1,3,4,5,8,12)" = "amd-laptop|i2c-ASUE120B:00|i2c-client|power/control|auto|$ALLOW" ] &&
                rows platform $K intel-laptop | grep -q "^intel-laptop|$K|$PIXA" &&
                rows platform $K intel-laptop | cut -d'|' -f3,12 | grep -qxF "|skipped: $(reason_of platform i2c runtime_pm platform): no hwdb entry allows runtime PM of an I2C device here (1 clients); the kernel's default stays: the DesignWare and LPSS controller drivers allow it themselves"
}
hwdb_point keep IDLECFG_I2C_RUNTIME_PM "platform: auto only for the client an hwdb entry allows (amd-laptop's touchpad); intel-laptop's denied touchpad skipped, its controllers left to their drivers" platform
check "platform: the udev rules write exactly that" udev_rules platform $K
# every VALUE: the controllers get it from the profile, the allowed client from its entry
every() {
        ok_plans "$1" && [ -z "$(rows "$1" $K desktop-sata buildhost)" ] || return 1
        _r=$(reason_of "$1" i2c runtime_pm "$1")
        printf '%s\n' "amd-laptop|AMDI0010:03|i2c-adapter|power/control|$1|$_r" \
                "amd-laptop|i2c-ASUE120B:00|i2c-client|power/control|$1|$ALLOW" \
                "intel-laptop|i2c_designware.0|i2c-adapter|power/control|$1|$_r" \
                "intel-laptop|i2c_designware.1|i2c-adapter|power/control|$1|$_r" \
                "intel-laptop|i2c_designware.2|i2c-adapter|power/control|$1|$_r" >"$tmp/w"
        planned "$1" $K | cut -d'|' -f1,3,4,5,8,12 | diff -u "$tmp/w" - &&
                rows "$1" $K intel-laptop | grep -q "^intel-laptop|$K|$PIXA"
}
hwdb_point deny IDLECFG_I2C_RUNTIME_PM "auto: power/control=auto on the four I2C controllers and the allowed touchpad; the denied one skipped with the entry's reason (shipped 60-idlecfg-i2c.hwdb)" every auto
check "auto: the udev rules write exactly those" udev_rules auto $K
check "on: power/control=on on the same devices" every on
check "on: the udev rules write exactly those" udev_rules on $K
check "keep: nothing planned (the hwdb's allow not used either), one skip naming the profile line" kept keep $K i2c runtime_pm udev
check "runtime_pm takes no per-source value: refused with the file and line" refused_source src i2c runtime_pm
check "a word runtime_pm does not take is refused with the file and line" refused_word bad i2c runtime_pm \
        "unknown value 'off' for [i2c] runtime_pm; valid: platform, auto, on, keep"
check "every value changes i2c.runtime_pm alone: the rest of each plan is balanced's" only_knobs $K
done_testing
