#!/bin/sh
# tests/family-audio.sh: the [audio] family (src/knobs/audio.c): every value
# of power_save and power_save_controller planned on every recorded machine:
# the snd_hda_intel parameters in modprobe.d, the hwdb's deny winning (a test
# entry in desktop-sata's root for its HDA controller), per-source values and
# the refusals
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/family-lib.sh"
plan 14

family_root() {
        mkdir -p "$1/etc/udev/hwdb.d"
        cat >"$1/etc/udev/hwdb.d/99-family-audio.hwdb" <<'HWDB'
# tests/family-audio.sh: desktop-sata's HDA controller 8086:3b56 denied
pci:v00008086d00003B56sv*sd*bc*sc*i*
 IDLECFG_AUDIO_POWER_SAVE=deny
 IDLECFG_AUDIO_POWER_SAVE_REASON=family test deny
HWDB
}
value ps0 audio power_save 0 modprobe
value ps3600 audio power_save 3600 modprobe
value ps-keep audio power_save keep modprobe
value ps-over audio power_save 3601
value ps-word audio power_save auto
value ps-src audio power_save "ac:0 battery:3600" modprobe
value psc-yes audio power_save_controller yes modprobe
value psc-no audio power_save_controller no modprobe
value psc-keep audio power_save_controller keep modprobe
value psc-src audio power_save_controller "ac:yes battery:no" modprobe
value psc-bad audio power_save_controller Y
plan_all
S=audio.power_save C=audio.power_save_controller
LAPTOPS="amd-laptop intel-laptop"

# desktop-sata: the hwdb's deny wins over every value: one skip, no parameter
denied() {
        [ "$(rows "$1" $S desktop-sata | cut -d'|' -f3,8,12)" = "0000:00:1b.0||skipped: hwdb /etc/udev/hwdb.d/99-family-audio.hwdb:3 (family test deny)" ] &&
                [ -z "$(rows "$1" $C desktop-sata)" ] && ! grep -q snd_hda_intel "$(out desktop-sata "$1" modprobe)" &&
                [ -z "$(rows "$1" $S buildhost)$(rows "$1" $C buildhost)" ]
}
ps() { param "$1" $S snd_hda_intel power_save "$2" modprobe "$(reason_of "$1" audio power_save "$2")" $LAPTOPS && denied "$1"; }
hwdb_point keep IDLECFG_AUDIO_POWER_SAVE "power_save = 0: snd_hda_intel power_save=0 in modprobe.d on both laptops (no entry); desktop-sata's controller denied by the hwdb; nothing on the VM" ps ps0 0
deny_all() { denied ps0 && denied ps3600 && denied psc-yes && denied psc-no; }
hwdb_point deny IDLECFG_AUDIO_POWER_SAVE "desktop-sata's denied controller: one skip with the entry's reason and no snd_hda_intel parameter, for power_save 0 and 3600, power_save_controller yes and no" deny_all
check "power_save = 3600 (the maximum): power_save=3600" ps ps3600 3600
ps_keep() {
        ok_plans ps-keep && [ -z "$(planned ps-keep $S)" ] && denied ps-keep &&
                # on the laptops one global skip names the keep line
                default_stays ps-keep $S audio power_save keep $LAPTOPS &&
                ! grep -q 'power_save=' "$(out intel-laptop ps-keep modprobe)" &&
                # the controller's value stays (balanced's yes)
                param ps-keep $C snd_hda_intel power_save_controller Y modprobe \
                        "profile ps-keep [audio] power_save_controller = yes ($(balanced_at audio power_save_controller))" $LAPTOPS
}
check "power_save = keep: no power_save anywhere, a skip saying the kernel default stays on the laptops; power_save_controller still planned" ps_keep
check "power_save = ac:0 battery:3600: switches on both laptops, modprobe.d holds 0" per_source ps-src $S ps0 ps3600
ps_src_file() { grep -q '^options snd_hda_intel power_save=0 ' "$(out amd-laptop ps-src modprobe)"; }
check "power_save = ac:0 battery:3600: modprobe.d holds the AC value" ps_src_file
check "power_save = 3601: out of range, refused with the file and line" refused_range ps-over audio power_save 3601 "keep or an integer 0..3600"
check "power_save = auto: not a number, refused with the file and line" refused ps-word audio power_save \
        "invalid value 'auto' for [audio] power_save; valid: keep or an integer 0..3600"
psc() { param "$1" $C snd_hda_intel power_save_controller "$2" modprobe "$(reason_of "$1" audio power_save_controller "$3")" $LAPTOPS && denied "$1"; }
check "power_save_controller = yes: power_save_controller=Y on both laptops; desktop-sata denied" psc psc-yes Y yes
check "power_save_controller = no: power_save_controller=N" psc psc-no N no
psc_keep() {
        ok_plans psc-keep && [ -z "$(planned psc-keep $C)" ] && denied psc-keep &&
                default_stays psc-keep $C audio power_save_controller keep $LAPTOPS &&
                ! grep -q 'power_save_controller' "$(out intel-laptop psc-keep modprobe)" &&
                param psc-keep $S snd_hda_intel power_save 10 modprobe \
                        "profile psc-keep [audio] power_save = 10 ($(balanced_at audio power_save))" $LAPTOPS
}
check "power_save_controller = keep: no power_save_controller anywhere, a skip saying the kernel default stays on the laptops; power_save still planned" psc_keep
check "power_save_controller = ac:yes battery:no: Y switching to N on both laptops" per_source psc-src $C psc-yes psc-no
check "power_save_controller: a word it does not take is refused with the file and line" refused_word psc-bad audio power_save_controller \
        "unknown value 'Y' for [audio] power_save_controller; valid: yes, no, keep"
check "every value changes its own knob alone: the rest of each plan is balanced's" only_knobs $S $C
done_testing
