#!/bin/sh
# tests/family-gpu.sh: the [gpu] family (src/knobs/gpu.c): every value of
# i915_fbc, i915_psr, amdgpu_abm and runtime_pm planned on every recorded
# machine: the i915 and amdgpu parameters in modprobe.d, the platform's hwdb
# entries (test entries in the roots' /etc/udev/hwdb.d for the DMI identities
# of intel-laptop and amd-laptop), power/control of the runpm GPUs (and of
# amd-laptop's dGPU as if amdgpu had allowed runtime PM: a variant), the
# refusals, and each platform property's deny and keep (hwdb_variant: the
# laptops with their family entries turned round)
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/family-lib.sh"
plan 39

family_root() {
        mkdir -p "$1/etc/udev/hwdb.d"
        cat >"$1/etc/udev/hwdb.d/99-family-gpu.hwdb" <<'HWDB'
# tests/family-gpu.sh: intel-laptop (Framework 12th gen): FBC allowed, PSR denied
dmi:*:svnFramework:*:rnFRANMACP08:*
 IDLECFG_I915_FBC=allow
 IDLECFG_I915_FBC_REASON=family test fbc
 IDLECFG_I915_PSR=deny
 IDLECFG_I915_PSR_REASON=family test psr

# amd-laptop (ASUS Vivobook M3500QA): ABM level 3
dmi:*:svnASUSTeKCOMPUTERINC.:pnVivobook_ASUSLaptopM3500QA_M3500QA:*
 IDLECFG_AMDGPU_ABM=3
 IDLECFG_AMDGPU_ABM_REASON=family test abm
HWDB
}
for k in i915_fbc i915_psr amdgpu_abm; do
        for v in platform off keep; do
                value "$k-$v" gpu "$k" "$v" modprobe cmdline udev
        done
        value "$k-src" gpu "$k" "ac:platform battery:off"
        value "$k-bad" gpu "$k" on
done
for v in auto on keep; do
        value "rpm-$v" gpu runtime_pm "$v" udev modprobe
done
value rpm-src gpu runtime_pm "ac:auto battery:on"
value rpm-bad gpu runtime_pm off
# amd-laptop as if amdgpu had found a runtime D3 (BOCO/BACO) and allowed runtime PM at probe
variant amd-runpm amd-laptop 0000:03:00.0 power/control auto
# amd-laptop on a kernel that offers ABM through the panel (6.9 and later): its
# eDP connector has amdgpu/panel_power_savings (the recording, 6.1, has none)
mkdir -p "$tmp/machines/amd-abm"
cp -R "$TESTS_DATA/machines/amd-laptop/." "$tmp/machines/amd-abm/"
awk '/^P: /{ p = $2 } { print } p ~ /card0-eDP-1$/ && /^A: enabled=/ { print "A: amdgpu/panel_power_savings=0\\n" }' \
        "$TESTS_DATA/machines/amd-laptop/machine.umockdev" >"$tmp/machines/amd-abm/machine.umockdev"
grep -q '^A: amdgpu/panel_power_savings=0' "$tmp/machines/amd-abm/machine.umockdev" || { echo "Bail out! amd-abm"; exit 1; }
FAMILY_MACHINES="$FAMILY_MACHINES amd-abm"
# intel-laptop with a Turing dGPU (GTX 1650 Mobile, 10de:1f9d, a 3D controller)
# bound to nvidia behind a root port, and its HDA function: the GPU's
# power/control is on, as the driver leaves it. nv-desktop: the same machine
# with a desktop chassis (type 3, in chassis_type and the DMI modalias)
nv_records() {
        cat <<'REC'

P: /devices/pci0000:00/0000:00:01.0
E: DRIVER=pcieport
E: MODALIAS=pci:v00008086d0000460Dsv0000F111sd00000002bc06sc04i00
E: SUBSYSTEM=pci
A: class=0x060400\n
A: device=0x460d\n
L: driver=../../../bus/pci/drivers/pcieport
A: modalias=pci:v00008086d0000460Dsv0000F111sd00000002bc06sc04i00\n
A: power/control=auto\n
A: power/runtime_status=active\n
A: secondary_bus_number=2\n
A: subordinate_bus_number=2\n
A: subsystem_device=0x0002\n
A: subsystem_vendor=0xf111\n
A: vendor=0x8086\n

P: /devices/pci0000:00/0000:00:01.0/0000:02:00.0
E: DRIVER=nvidia
E: MODALIAS=pci:v000010DEd00001F9Dsv0000F111sd00000002bc03sc02i00
E: SUBSYSTEM=pci
A: class=0x030200\n
A: d3cold_allowed=1\n
A: device=0x1f9d\n
L: driver=../../../../bus/pci/drivers/nvidia
A: modalias=pci:v000010DEd00001F9Dsv0000F111sd00000002bc03sc02i00\n
A: power/control=on\n
A: power/runtime_status=active\n
A: power_state=D0\n
A: subsystem_device=0x0002\n
A: subsystem_vendor=0xf111\n
A: vendor=0x10de\n

P: /devices/pci0000:00/0000:00:01.0/0000:02:00.1
E: DRIVER=snd_hda_intel
E: MODALIAS=pci:v000010DEd000010FAsv0000F111sd00000002bc04sc03i00
E: SUBSYSTEM=pci
A: class=0x040300\n
A: device=0x10fa\n
L: driver=../../../../bus/pci/drivers/snd_hda_intel
A: modalias=pci:v000010DEd000010FAsv0000F111sd00000002bc04sc03i00\n
A: power/control=auto\n
A: power/runtime_status=suspended\n
A: power_state=D3hot\n
A: subsystem_device=0x0002\n
A: subsystem_vendor=0xf111\n
A: vendor=0x10de\n
REC
}
mkdir -p "$tmp/machines/nv-laptop" "$tmp/machines/nv-desktop"
cp -R "$TESTS_DATA/machines/intel-laptop/." "$tmp/machines/nv-laptop/"
{ cat "$TESTS_DATA/machines/intel-laptop/machine.umockdev"; nv_records; } >"$tmp/machines/nv-laptop/machine.umockdev"
cp -R "$tmp/machines/nv-laptop/." "$tmp/machines/nv-desktop/"
sed -e 's/^A: chassis_type=10\\n$/A: chassis_type=3\\n/' -e '/^A: modalias=dmi:/s/:ct10:/:ct3:/' \
        "$tmp/machines/nv-laptop/machine.umockdev" >"$tmp/machines/nv-desktop/machine.umockdev"
[ "$(grep -c '^A: chassis_type=3\\n$\|^A: modalias=dmi:.*:ct3:' "$tmp/machines/nv-desktop/machine.umockdev")" = 2 ] ||
        { echo "Bail out! nv-desktop"; exit 1; }
FAMILY_MACHINES="$FAMILY_MACHINES nv-laptop nv-desktop"
# the opt-in: the GPU on this platform (idlecfg-on:DMI|PCI); nv-deny adds a deny
# for the GPU alone (a deny by GPU ID or platform wins over the allow)
NV_ALLOW='idlecfg-on:dmi:*:svnFramework:*:rnFRANMACP08:*|pci:v000010DEd00001F9D*
 IDLECFG_NVIDIA_RTD3=allow
 IDLECFG_NVIDIA_RTD3_REASON=variant nvidia allow'
hwdb_variant nv-allow nv-laptop "$NV_ALLOW"
hwdb_variant nv-deny nv-laptop "$NV_ALLOW

pci:v000010DEd00001F9D*
 IDLECFG_NVIDIA_RTD3=deny
 IDLECFG_NVIDIA_RTD3_REASON=variant nvidia deny"
hwdb_variant nv-desk-allow nv-desktop "$NV_ALLOW"
# the family's entries turned round (a later file wins, key by key):
# intel-laptop with FBC denied and PSR allowed; amd-abm with ABM denied
hwdb_variant gpu-flip intel-laptop 'dmi:*:svnFramework:*:rnFRANMACP08:*
 IDLECFG_I915_FBC=deny
 IDLECFG_I915_FBC_REASON=variant fbc deny
 IDLECFG_I915_PSR=allow
 IDLECFG_I915_PSR_REASON=variant psr allow'
hwdb_variant gpu-abm-deny amd-abm 'dmi:*:svnASUSTeKCOMPUTERINC.:pnVivobook_ASUSLaptopM3500QA_M3500QA:*
 IDLECFG_AMDGPU_ABM=deny
 IDLECFG_AMDGPU_ABM_REASON=variant abm deny'
plan_all
H=/etc/udev/hwdb.d/99-family-gpu.hwdb
# what a planned i915 parameter's reason ends with: all three are unsafe
taints() { echo "; i915.$1 is an unsafe parameter: setting it taints the kernel (TAINT_USER, 'U' in /proc/sys/kernel/tainted; kernel/params.c param_check_unsafe())"; }

# the platform values: from the test entries for the two laptops; desktop-sata
# (a radeon GPU amdgpu would also take) has none: skipped, the driver's default stays
platform_fbc() {
        param i915_fbc-platform gpu.i915_fbc i915 enable_fbc 1 modprobe "hwdb $H:3 (family test fbc)$(taints enable_fbc)" intel-laptop &&
                [ -z "$(rows i915_fbc-platform gpu.i915_fbc amd-laptop desktop-sata buildhost)" ]
}
check "i915_fbc = platform: enable_fbc=1 on intel-laptop from its platform's allow entry, saying that it taints the kernel; no i915 elsewhere" platform_fbc
platform_psr() {
        param i915_psr-platform gpu.i915_psr i915 enable_psr 0 modprobe "hwdb $H:5 (family test psr)$(taints enable_psr)" intel-laptop &&
                [ -z "$(rows i915_psr-platform gpu.i915_psr amd-laptop desktop-sata buildhost)" ]
}
check "i915_psr = platform: enable_psr=0 on intel-laptop from its platform's deny entry, saying that it taints the kernel" platform_psr
NOFILE="but no panel of 0000:03:00.0 has amdgpu/panel_power_savings (Linux 6.9 and later, internal LCD panels): amdgpu.abmlevel is never planned, it takes the control away from compositors and power-profiles-daemon"
THROUGH="; through the panel's amdgpu/panel_power_savings, never amdgpu.abmlevel (which takes that control away from compositors and power-profiles-daemon)"
platform_abm() {
        ok_plans amdgpu_abm-platform &&
                [ "$(rows amdgpu_abm-platform gpu.amdgpu_abm amd-abm | cut -d'|' -f3,5,8,11,12)" = "card0-eDP-1|amdgpu/panel_power_savings|3|udev|hwdb $H:10 (family test abm)$THROUGH" ] &&
                [ "$(rows amdgpu_abm-platform gpu.amdgpu_abm amd-laptop | cut -d'|' -f3,8,12)" = "||skipped: hwdb $H:10 (family test abm) wants ABM level 3, $NOFILE" ] &&
                rows amdgpu_abm-platform gpu.amdgpu_abm desktop-sata | cut -d'|' -f8,12 |
                grep -qxF "|skipped: $(reason_of amdgpu_abm-platform gpu amdgpu_abm platform), and no hwdb entry for this platform or GPU: the driver's default stays (amdgpu leaves ABM to the compositor or its abmlevel default)" &&
                [ -z "$(rows amdgpu_abm-platform gpu.amdgpu_abm intel-laptop buildhost)" ]
}
never_abmlevel() {
        for _m in $FAMILY_MACHINES; do
                for _v in platform off keep; do
                        ! grep -q abmlevel "$(out $_m amdgpu_abm-$_v modprobe)" "$(out $_m amdgpu_abm-$_v cmdline)" ||
                                { echo "$_m amdgpu_abm-$_v: abmlevel written"; return 1; }
                done
        done
}
check "amdgpu_abm = platform: level 3 from amd-laptop's platform entry through its panel's amdgpu/panel_power_savings (the variant that has it), skipped saying why where the panel has none; desktop-sata without an entry skipped" platform_abm
check "amdgpu_abm = platform: the udev rule writes exactly that" udev_rules amdgpu_abm-platform gpu.amdgpu_abm
check "amdgpu_abm: no value ever writes amdgpu.abmlevel (modprobe.d or the command line)" never_abmlevel
check "i915_fbc = off: enable_fbc=0 whatever the hwdb allows, saying that it taints the kernel" param i915_fbc-off gpu.i915_fbc i915 enable_fbc 0 modprobe \
        "$(reason_of i915_fbc-off gpu i915_fbc off)$(taints enable_fbc)" intel-laptop
check "i915_psr = off: enable_psr=0 from the profile, saying that it taints the kernel" param i915_psr-off gpu.i915_psr i915 enable_psr 0 modprobe \
        "$(reason_of i915_psr-off gpu i915_psr off)$(taints enable_psr)" intel-laptop
abm_off() {
        ok_plans amdgpu_abm-off &&
                [ "$(planned amdgpu_abm-off gpu.amdgpu_abm | cut -d'|' -f1,3,5,8,11,12)" = "amd-abm|card0-eDP-1|amdgpu/panel_power_savings|0|udev|$(reason_of amdgpu_abm-off gpu amdgpu_abm off)$THROUGH" ] &&
                [ "$(rows amdgpu_abm-off gpu.amdgpu_abm amd-laptop | cut -d'|' -f12)" = "skipped: $(reason_of amdgpu_abm-off gpu amdgpu_abm off) wants ABM level 0, $NOFILE" ]
}
check "amdgpu_abm = off: panel_power_savings 0 on the panel that has it, the hwdb's level 3 and all; skipped without it" abm_off
keep_feature() {
        kept "$1-keep" "gpu.$1" gpu "$1" && ! grep -q "$2" "$(out "$3" "$1-keep" modprobe)"
}
check "i915_fbc = keep: nothing planned (the hwdb's allow not used either), no enable_fbc" keep_feature i915_fbc enable_fbc intel-laptop
check "i915_psr = keep: nothing planned (the hwdb's deny not used either), no enable_psr" keep_feature i915_psr enable_psr intel-laptop
check "amdgpu_abm = keep: nothing planned, no abmlevel" keep_feature amdgpu_abm abmlevel amd-laptop
refused_all() {
        for _k in i915_fbc i915_psr amdgpu_abm; do
                refused_source "$_k-src" gpu "$_k" &&
                        refused_word "$_k-bad" gpu "$_k" "unknown value 'on' for [gpu] $_k; valid: platform, off, keep" || return 1
        done
}
check "i915_fbc, i915_psr, amdgpu_abm: per-source values (module options) and unknown words refused with the file and line" refused_all

# ---- what each hwdb property does to the platform ----
HF=/etc/udev/hwdb.d/99-gpu-flip.hwdb HA=/etc/udev/hwdb.d/99-gpu-abm-deny.hwdb
hwdb_point deny IDLECFG_I915_FBC "FBC denied (a variant of intel-laptop): platform plans enable_fbc=0 with the entry's reason" \
        param i915_fbc-platform gpu.i915_fbc i915 enable_fbc 0 modprobe "hwdb $HF:3 (variant fbc deny)$(taints enable_fbc)" gpu-flip
hwdb_point keep IDLECFG_I915_FBC "FBC allowed (intel-laptop's family entry): platform plans enable_fbc=1 with that entry's reason" \
        param i915_fbc-platform gpu.i915_fbc i915 enable_fbc 1 modprobe "hwdb $H:3 (family test fbc)$(taints enable_fbc)" intel-laptop
hwdb_point deny IDLECFG_I915_PSR "PSR denied (intel-laptop's family entry): platform plans enable_psr=0 with the entry's reason" \
        param i915_psr-platform gpu.i915_psr i915 enable_psr 0 modprobe "hwdb $H:5 (family test psr)$(taints enable_psr)" intel-laptop
hwdb_point keep IDLECFG_I915_PSR "PSR allowed (a variant of intel-laptop): platform plans enable_psr=1 with the entry's reason" \
        param i915_psr-platform gpu.i915_psr i915 enable_psr 1 modprobe "hwdb $HF:5 (variant psr allow)$(taints enable_psr)" gpu-flip
# abm_panel ID MACHINE LEVEL REASON: the one ABM row of MACHINE's panel
abm_panel() {
        [ "$(rows "$1" gpu.amdgpu_abm "$2" | cut -d'|' -f3,5,8,11,12)" = "card0-eDP-1|amdgpu/panel_power_savings|$3|udev|$4$THROUGH" ] ||
                { rows "$1" gpu.amdgpu_abm "$2"; return 1; }
}
hwdb_point deny IDLECFG_AMDGPU_ABM "ABM denied (a variant of amd-abm): platform plans panel_power_savings 0 on its panel with the entry's reason" \
        abm_panel amdgpu_abm-platform gpu-abm-deny 0 "hwdb $HA:3 (variant abm deny)"
hwdb_point keep IDLECFG_AMDGPU_ABM "amd-abm's family entry (level 3): platform plans panel_power_savings 3 with that entry's reason" \
        abm_panel amdgpu_abm-platform amd-abm 3 "hwdb $H:10 (family test abm)"

R=gpu.runtime_pm
# the GPUs: amd-laptop's amdgpu and desktop-sata's radeon run runpm; i915 its own
rpm_common() {
        rows "$1" $R intel-laptop | cut -d'|' -f3,8,12 |
                grep -qxF "0000:00:02.0||skipped: driver i915: its runtime PM is the driver's own (i915 and xe enable it themselves; nvidia needs its DynamicPowerManagement option)" &&
                [ -z "$(rows "$1" $R buildhost)" ]
}
rpm_auto() {
        ok_plans rpm-auto && rpm_common rpm-auto || return 1
        rows rpm-auto $R amd-laptop | cut -d'|' -f3,12 | grep -qxF "0000:03:00.0|skipped: amdgpu left runtime PM off (power/control = on): no runtime D3 on this GPU (no BOCO/BACO or _PR3), or its runpm parameter is 0" &&
                rows rpm-auto $R desktop-sata | cut -d'|' -f3,12 | grep -qxF "0000:01:00.0|skipped: radeon left runtime PM off (power/control = on): no runtime D3 on this GPU (no BOCO/BACO or _PR3), or its runpm parameter is 0" &&
                # where the driver allowed it, auto is planned so that it stays so
                [ "$(planned rpm-auto $R | cut -d'|' -f1,3,5,8,11,12)" = "amd-runpm|0000:03:00.0|power/control|auto|udev|$(reason_of rpm-auto gpu runtime_pm auto); amdgpu allowed runtime PM at probe (runtime D3 present): planned so that it stays so" ]
}
check "runtime_pm = auto: auto where amdgpu allowed runtime PM (the variant); the recorded GPUs their drivers left on skipped, saying so; i915 is its own" rpm_auto
check "runtime_pm = auto: the udev rules write exactly that" udev_rules rpm-auto $R
rpm_on() {
        ok_plans rpm-on && rpm_common rpm-on &&
                [ "$(planned rpm-on $R | cut -d'|' -f1,3,5,8,11,12)" = "amd-laptop|0000:03:00.0|power/control|on|udev|$(reason_of rpm-on gpu runtime_pm on)
desktop-sata|0000:01:00.0|power/control|on|udev|$(reason_of rpm-on gpu runtime_pm on)
amd-runpm|0000:03:00.0|power/control|on|udev|$(reason_of rpm-on gpu runtime_pm on)
amd-abm|0000:03:00.0|power/control|on|udev|$(reason_of rpm-on gpu runtime_pm on)" ]
}
check "runtime_pm = on: power/control=on on the runpm GPUs, allowed or not" rpm_on
check "runtime_pm = on: the udev rules write exactly those" udev_rules rpm-on $R
check "runtime_pm = keep: nothing planned, one skip naming the profile line" kept rpm-keep $R gpu runtime_pm udev
check "runtime_pm takes no per-source value: refused with the file and line" refused_source rpm-src gpu runtime_pm
check "runtime_pm: a word it does not take is refused with the file and line" refused_word rpm-bad gpu runtime_pm \
        "unknown value 'off' for [gpu] runtime_pm; valid: auto, on, keep"
# explain of the i915 GPU shows its driver's parameters, and that they taint
export KVER
ROOT=$tmp/intel-laptop-root run_machine "$(machine_dir intel-laptop)" sh -c '
        "$IDLECFG" --root "$ROOT" --kernel "$KVER" --profile i915_psr-platform explain 0000:00:02.0' >"$tmp/explain" 2>&1
explain_taint() {
        grep -qxF "  gpu.i915_psr: enable_psr -1 -> 0 (modprobe)" "$tmp/explain" &&
                grep -qxF "      hwdb $H:5 (family test psr)$(taints enable_psr)" "$tmp/explain" || { cat "$tmp/explain"; return 1; }
}
check "explain of the i915 GPU: its planned enable_psr=0, saying that it taints the kernel" explain_taint

# ---- NVIDIA runtime D3: an opt-in by hwdb entry, notebooks only ----
NP=gpu.nvidia_rtd3 NB=gpu.nvidia_runtime_pm HN=/etc/udev/hwdb.d/99-nv-allow.hwdb
NV_WHY="hwdb $HN:3 (variant nvidia allow)"
NV_PARAM_WHY="$NV_WHY; fine-grained runtime D3 (0x02, NVIDIA's README): the driver turns it on by itself only on Ampere and newer notebooks"
NV_BIND_WHY="$NV_WHY; at the nvidia driver's bind, as NVIDIA's udev rule (and on again at its unbind): the driver leaves runtime PM to user space"
NV_RULE='SUBSYSTEM=="pci", ATTR{vendor}=="0x10de", ATTR{device}=="0x1f9d", ATTR{subsystem_vendor}=="0xf111", ATTR{subsystem_device}=="0x0002"'
# nv_rc MACHINE: plan rpm-auto exited 0 on a machine of hwdb_variant's
nv_rc() { [ "$(cat "$tmp/out/$1/rpm-auto.rc")" = 0 ] || { cat "$tmp/out/$1/rpm-auto.err"; return 1; }; }
nv_planned() {
        nv_rc nv-allow && param rpm-auto $NP nvidia NVreg_DynamicPowerManagement 0x02 modprobe "$NV_PARAM_WHY" nv-allow &&
                [ "$(rows rpm-auto $NB nv-allow | cut -d'|' -f3,5,8,11,12)" = "0000:02:00.0|power/control|auto|udev|$NV_BIND_WHY" ] &&
                # gpu.runtime_pm leaves the NVIDIA GPU to it
                [ -z "$(rows rpm-auto $R nv-allow | grep '|0000:02:00.0|')" ]
}
hwdb_point keep IDLECFG_NVIDIA_RTD3 "an allow entry for the Turing GPU on this notebook: runtime_pm = auto plans nvidia NVreg_DynamicPowerManagement=0x02 (modprobe.d) and power/control=auto at the driver's bind, with the entry's reason" \
        nv_planned
nv_showconfig() {
        _nd=$tmp/nv-modprobe.d
        mkdir -p "$_nd" && cp "$(out nv-allow rpm-auto modprobe)" "$_nd/idlecfg.conf" &&
                [ "$(modprobe -C "$_nd" --showconfig | grep '^options nvidia ')" = "options nvidia NVreg_DynamicPowerManagement=0x02" ] ||
                { modprobe -C "$_nd" --showconfig | grep nvidia; return 1; }
}
check "nvidia's option as modprobe reads it (modprobe -C DIR --showconfig): options nvidia NVreg_DynamicPowerManagement=0x02" nv_showconfig
nv_rules() {
        _f=$(out nv-allow rpm-auto udev)
        grep -qxF "ACTION==\"bind\", $NV_RULE, DRIVER==\"nvidia\", TEST==\"power/control\", ATTR{power/control}=\"auto\"" "$_f" &&
                grep -qxF "ACTION==\"unbind\", $NV_RULE, TEST==\"power/control\", ATTR{power/control}=\"on\"" "$_f" &&
                [ "$(grep -c 'ATTR{device}=="0x1f9d"' "$_f")" = 2 ] || { cat "$_f"; return 1; }
}
check "the rules: power/control=auto at the nvidia driver's bind of that GPU, on at its unbind (no DRIVER there), nothing at add" nv_rules
nv_none() {
        _m=$1 _why=$2
        nv_rc "$_m" && [ -z "$(rows rpm-auto $NP "$_m")" ] &&
                [ "$(rows rpm-auto $NB "$_m" | cut -d'|' -f3,8,12-)" = "0000:02:00.0||$_why" ] &&
                ! grep -q nvidia "$(out "$_m" rpm-auto modprobe)" && ! grep -q 'ACTION=="bind"' "$(out "$_m" rpm-auto udev)" ||
                { rows rpm-auto $NP "$_m"; rows rpm-auto $NB "$_m"; return 1; }
}
check "a desktop chassis with the same GPU and the same allow entry: nothing planned, said why" nv_none nv-desk-allow \
        "skipped: not a notebook (DMI chassis type 3): NVIDIA supports runtime D3 on notebooks only, and idlecfg never plans it elsewhere, hwdb entry or not"
check "the notebook without the entry: nothing planned, said why" nv_none nv-laptop \
        "skipped: no hwdb entry allows runtime D3 for this GPU on this platform (IDLECFG_NVIDIA_RTD3=allow, keyed idlecfg-on:DMI|PCI): the driver's default stays (it turns runtime D3 on by itself only on Ampere and newer notebooks)"
hwdb_point deny IDLECFG_NVIDIA_RTD3 "a deny entry for the GPU (by its ID) beside the platform's allow: nothing planned, with the deny's reason" \
        nv_none nv-deny "skipped: hwdb /etc/udev/hwdb.d/99-nv-deny.hwdb:7 (variant nvidia deny): the driver's default stays"
nv_on_keep() {
        [ -z "$(planned rpm-on $NP nv-laptop nv-desktop)" ] && [ -z "$(planned rpm-keep $NP)" ] && [ -z "$(planned rpm-keep $NB)" ] &&
                [ "$(rows rpm-on $NB nv-laptop | cut -d'|' -f3,8,12)" = "0000:02:00.0||skipped: $(reason_of rpm-on gpu runtime_pm on) keeps GPUs awake: no runtime D3 for this NVIDIA GPU" ]
}
check "runtime_pm = on and keep: no NVIDIA runtime D3" nv_on_keep

# verify on the notebook as the rules leave it (power/control auto): D3cold
# reached is no blocker; not reached, verify says why
cat >"$tmp/nv-verify.sh" <<'SH'
G=$UMOCKDEV_DIR/sys/devices/pci0000:00/0000:00:01.0/0000:02:00.0 A=$UMOCKDEV_DIR/sys/devices/pci0000:00/0000:00:01.0/0000:02:00.1
ic() {
        "$IDLECFG" --root "$ROOT" --kernel "$KVER" --profile rpm-auto verify >"$OUT.$1" 2>&1
        "$IDLECFG" --root "$ROOT" --kernel "$KVER" --profile rpm-auto verify --json >"$OUT.$1.json" 2>/dev/null
}
echo auto >"$G/power/control"; echo suspended >"$G/power/runtime_status"; echo D3cold >"$G/power_state"
echo 812345 >"$G/power/runtime_suspended_time"; ic cold
echo D3hot >"$G/power_state"; ic hot
echo active >"$G/power/runtime_status"; echo D0 >"$G/power_state"; echo on >"$A/power/control"; echo active >"$A/power/runtime_status"; ic audio
echo auto >"$A/power/control"; echo suspended >"$A/power/runtime_status"; ic held
SH
ROOT=$tmp/nv-allow-root OUT=$tmp/nv-verify run_machine "$(machine_dir nv-laptop)" sh "$tmp/nv-verify.sh" >"$tmp/nv-verify.log" 2>&1
nv_verify() {
        ! grep -q 'NVIDIA GPU' "$tmp/nv-verify.cold" &&
                grep -qF "0000:02:00.0 (pci): NVIDIA GPU runtime-suspended but not in D3cold (power_state D3hot, firmware_node/real_power_state absent): the platform has no power resource to cut (no _PR3), or d3cold_allowed is 0" "$tmp/nv-verify.hot" &&
                grep -qF "0000:02:00.0 (pci): NVIDIA GPU not in D3cold (runtime_status active): its function 0000:02:00.1 (class 0x040300) is active with power/control = on: it shares the GPU's power, so the GPU stays up" "$tmp/nv-verify.audio" &&
                grep -qF "0000:02:00.0 (pci): NVIDIA GPU not in D3cold (runtime_status active, power_state D0): the driver holds it (in use, NVreg_DynamicPowerManagement not 0x02, or video memory in use; /proc/driver/nvidia/gpus/0000:02:00.0/power says which)" "$tmp/nv-verify.held" ||
                { cat "$tmp/nv-verify.log" "$tmp"/nv-verify.*; return 1; }
}
check "verify: D3cold reached, no blocker; D3hot only, the audio function awake, or the driver holding it: not reached, and why" nv_verify
# verify states the GPU's runtime power in every case: D3cold reached (no
# blocker), runtime-suspended in D3hot, or not suspended, with the time
# suspended and, short of D3cold, the blocker that says why (text and JSON)
NV_RT="$tmp/nv-verify"
nv_runtime() { # CASE: the GPU's runtime row of verify --json, one line
        python3 -c 'import json, sys
s = [x for x in json.load(open(sys.argv[1]))["settings"] if x["knob"] == "gpu.nvidia_runtime_pm"]
r = s[0]["runtime"]
print("|".join(str(r[k]) for k in ("state", "status", "power_state", "real_power_state", "suspended_time_ms", "why")))' "$NV_RT.$1.json"
}
NV_RT_HEAD="Runtime power of the devices the plan lets suspend:"
nv_rt_cold() {
        grep -qxF "$NV_RT_HEAD" "$NV_RT.cold" &&
                grep -qxF "  0000:02:00.0 (pci): D3cold reached (runtime_status suspended, power_state D3cold); suspended 812.3 s in all since it was added" "$NV_RT.cold" &&
                [ "$(nv_runtime cold)" = "d3cold|suspended|D3cold|None|812345|None" ] ||
                { cat "$NV_RT.cold"; nv_runtime cold; return 1; }
}
check "verify, D3cold reached: said, with runtime_status, power_state and the time suspended (text; JSON runtime.state d3cold)" nv_rt_cold
nv_rt_hot() {
        grep -qxF "  0000:02:00.0 (pci): runtime-suspended in D3hot, not D3cold (runtime_status suspended, power_state D3hot); suspended 812.3 s in all since it was added; why not D3cold: its idle blocker above" "$NV_RT.hot" &&
                [ "$(nv_runtime hot)" = "suspended|suspended|D3hot|None|812345|NVIDIA GPU runtime-suspended but not in D3cold (power_state D3hot, firmware_node/real_power_state absent): the platform has no power resource to cut (no _PR3), or d3cold_allowed is 0" ] ||
                { cat "$NV_RT.hot"; nv_runtime hot; return 1; }
}
check "verify, runtime-suspended in D3hot only: said, with why not D3cold (text: its blocker; JSON runtime.why)" nv_rt_hot
nv_rt_awake() {
        grep -qxF "  0000:02:00.0 (pci): not runtime-suspended (runtime_status active, power_state D0); suspended 812.3 s in all since it was added; why not D3cold: its idle blocker above" "$NV_RT.held" &&
                [ "$(nv_runtime held)" = "awake|active|D0|None|812345|NVIDIA GPU not in D3cold (runtime_status active, power_state D0): the driver holds it (in use, NVreg_DynamicPowerManagement not 0x02, or video memory in use; /proc/driver/nvidia/gpus/0000:02:00.0/power says which)" ] &&
                case "$(nv_runtime audio)" in "awake|active|D0|None|812345|NVIDIA GPU not in D3cold (runtime_status active): its function 0000:02:00.1"*) ;; *) false ;; esac ||
                { cat "$NV_RT.held"; nv_runtime held; nv_runtime audio; return 1; }
}
check "verify, not runtime-suspended: said, why is the NVIDIA blocker (the driver, or the audio function awake), not the generic one" nv_rt_awake
# amdgpu's runtime PM (gpu.runtime_pm = auto): followed too; runtime-suspended
# in D3hot with no blocker to say why (idlecfg claims no reason there), and
# on a kernel without power_state (before 5.11) D3cold is not shown
cat >"$tmp/amd-verify.sh" <<'SH'
G=$UMOCKDEV_DIR/sys/devices/pci0000:00/0000:00:08.1/0000:03:00.0
ic() { "$IDLECFG" --root "$ROOT" --kernel "$KVER" --profile rpm-auto verify $2 >"$OUT.$1" 2>/dev/null; }
echo suspended >"$G/power/runtime_status"; echo D3hot >"$G/power_state"; ic hot; ic hot.json --json
rm -f "$G/power_state"; ic old
SH
ROOT=$tmp/amd-runpm-root OUT=$tmp/amd-verify run_machine "$(machine_dir amd-runpm)" sh "$tmp/amd-verify.sh" >"$tmp/amd-verify.log" 2>&1
amd_rt() {
        grep -qxF "  0000:03:00.0 (pci): runtime-suspended in D3hot, not D3cold (runtime_status suspended, power_state D3hot)" "$tmp/amd-verify.hot" &&
                grep -qxF "  0000:03:00.0 (pci): runtime-suspended, D3cold not shown (runtime_status suspended, power_state -; no power_state before Linux 5.11)" "$tmp/amd-verify.old" &&
                python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["settings"]
g = [x["runtime"] for x in s if x["knob"] == "gpu.runtime_pm"]
assert g == [{"state": "suspended", "status": "suspended", "power_state": "D3hot", "real_power_state": None,
              "suspended_time_ms": None, "why": None}], g
assert all(x["runtime"] is None for x in s if x["knob"] != "gpu.runtime_pm"), s' "$tmp/amd-verify.hot.json" ||
                { cat "$tmp/amd-verify.log" "$tmp/amd-verify.hot" "$tmp/amd-verify.old"; return 1; }
}
check "verify follows amdgpu's runtime PM too: D3hot with no reason claimed, D3cold not shown without power_state; runtime null on the other settings" amd_rt
check "every value changes its own knob alone: the rest of each plan is balanced's" only_knobs gpu.i915_fbc gpu.i915_psr gpu.amdgpu_abm $R $NP $NB
done_testing
