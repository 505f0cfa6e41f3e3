# tests/vm/power-source.sh: sourced by check-vm.sh. The power-source switch
# (#23, #33) booted with a real kernel, udev and systemd: the flow "power" of
# IDLECFG_VM_FLOWS.
#
# QEMU has no ACPI AC adapter (ACPI0003) or battery (PNP0C0A) whose state the
# host can change: `qemu-system-x86_64 -device help` of QEMU 7.2 (Debian
# bookworm) lists neither, and upstream QEMU has none up to its current
# release (Leonid Bloch's series adding "-device battery" and "-device acad"
# is not merged). So the guest gets its AC adapter and battery from a test
# module, tests/vm/idlecfg_test_power.c: power_supply_register() of a Mains
# and a system Battery supply, and a parameter ac_online whose writes send
# their change uevents (power_supply_changed()), as an ACPI notification of
# the adapter does. It is built on the host against the guest kernel's
# headers: in a chroot of a copy of the cached root with linux-headers-KVER,
# gcc and make added from the suite's archive; the .ko is cached in
# $cache/idlecfg_test_power (vm_test_module), keyed by the kernel version,
# the suite and the source's hash.
#
# Per machine, three boots of the cached root with the module loaded at boot
# (modules-load.d):
#   1. record: the snapshot unit with an umockdev recording, as the baseline
#      boot of check-vm, now with the two supplies;
#   then on the host the package, idlecfg install --root under that recording
#   with the profile checkvm-power (balanced, with runtime PM of PCI, audio
#   power_save and SATA ALPM per source on top of balanced's writeback
#   interval) and the steps install prints, in a chroot; snd_hda_intel is
#   blacklisted at boot (modprobe.d), so that it loads late;
#   2. on AC: the values of AC once udev has settled, unplug, plug, then
#      idlecfg rollback: the values from before the first switch;
#   3. on battery (idlecfg_test_power.ac_online=0 on the command line): the
#      battery values, plug, unplug, modprobe snd_hda_intel (its parameter
#      and devices take the battery values), a suspend and resume, plug
#      after the resume. The suspend is S3 (rtcwake -m mem -s 5, skipped
#      with the reason where the guest offers no S3): s2idle (rtcwake -m
#      freeze) never woke on q35 under TCG, the guest sat frozen until the
#      boot's timeout. These two boots have their own timeout,
#      IDLECFG_VM_POWER_TIMEOUT (default 480 s), and the guest saves its
#      results before it suspends.
# tests/vm/power-guest.sh runs the steps in the guest (unit
# idlecfg-vm-power.service) and writes each step's result and the time from
# the change to every value in effect (one perl process polls every 0.1 s)
# to the output disk; here every step must be right within 2 s
# (IDLECFG_VM_POWER_LIMIT), and the time is printed. Under TCG that bound is
# near: with the 2 cores at load 10 an unplug took 2.21 s (0.9 s of it
# before the switch's transient unit started: udev, systemd-run) and
# idlecfg rollback 2.34 s.

# the points per machine: the module, the record boot, install, the steps,
# two boots, and the steps of each boot
vm_power_ac_steps="boot-ac capture unplug plug rollback"
vm_power_bat_steps="boot-battery plug unplug late-module suspend plug"
vm_power_npoints=$((4 + 2 + 4 + 6))
vm_power_profile=checkvm-power
# seconds from a change to every value right (IDLECFG_VM_POWER_LIMIT)
vm_power_limit=${IDLECFG_VM_POWER_LIMIT:-2}

# vm_power_source_note: a TAP comment naming this QEMU and what it lacks (no
# test point)
vm_power_source_note() {
        _qv=$(qemu-system-x86_64 --version 2>/dev/null | sed -n '1s/^QEMU emulator version //p')
        _qd=$(qemu-system-x86_64 -device help 2>/dev/null | grep -E -o 'name "(battery|acad|ac-adapter)"' | tr '\n' ' ')
        if [ -n "$_qd" ]; then
                diag "power-source: QEMU ${_qv:-?} offers $_qd- the power flow still uses its test module (tests/vm/idlecfg_test_power.c)"
        else
                diag "power-source: QEMU ${_qv:-?} offers no ACPI AC adapter or battery device: the power flow loads a test module (tests/vm/idlecfg_test_power.c) in the guest"
        fi
}

# vm_test_module NAME KVER: $vm_ko, the test module tests/vm/NAME.c built for
# KVER (from the cache, else built in a chroot of a copy of the cached root);
# sets vm_ko_source, or vm_ko_why on failure. The cache is $cache/NAME,
# keyed by the kernel version, the suite and the source's hash.
vm_test_module() {
        vt_n=$1 vt_k=$2
        vt_pc=$cache/$vt_n
        vt_key="$vt_k $suite $(sha256sum <"$vmdir/$vt_n.c" | cut -c1-16)"
        vm_ko=$vt_pc/$vt_n-$vt_k.ko
        mkdir -p "$vt_pc" || { vm_ko_why="cannot create $vt_pc"; return 1; }
        exec 8>"$vt_pc/lock"
        flock 8
        if [ -s "$vm_ko" ] && [ "$(cat "$vm_ko.key" 2>/dev/null)" = "$vt_key" ]; then
                exec 8>&-
                vm_ko_source="from the cache $vm_ko"
                return 0
        fi
        vt_t=$(date +%s)
        rm -rf "$vt_pc"/build.*
        vt_b=$(mktemp -d "$vt_pc/build.XXXXXX")
        vt_log=$vt_pc/build.log
        {
                zstd -dc "$tarball" | tar -C "$vt_b" --numeric-owner -xpf - &&
                cp -L /etc/resolv.conf "$vt_b/etc/resolv.conf" &&
                mkdir -p "$vt_b/tmp/m" &&
                cp "$vmdir/$vt_n.c" "$vt_b/tmp/m/" &&
                echo "obj-m := $vt_n.o" >"$vt_b/tmp/m/Kbuild" &&
                env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
                        "$vmdir/chroot-proc.sh" "$vt_b" sh -c "apt-get -q update &&
                                apt-get -q -y --no-install-recommends install linux-headers-$vt_k gcc make libc6-dev &&
                                make -C /lib/modules/$vt_k/build M=/tmp/m modules"
        } >"$vt_log" 2>&1
        if [ -s "$vt_b/tmp/m/$vt_n.ko" ]; then
                cp "$vt_b/tmp/m/$vt_n.ko" "$vm_ko"
                echo "$vt_key" >"$vm_ko.key"
                vm_ko_source="built in $(($(date +%s) - vt_t)) s against linux-headers-$vt_k in a chroot of the cached root, cached in $vm_ko"
                timing "$machine: the test module $vt_n (apt-get, build)" "$(($(date +%s) - vt_t))"
                vt_rc=0
        else
                vm_ko_why="the build against linux-headers-$vt_k failed: $(tail -n 15 "$vt_log")"
                vt_rc=1
        fi
        rm -rf "$vt_b"
        exec 8>&-
        return $vt_rc
}

# vm_power_module KVER: $vm_power_ko, the power test module built for KVER;
# sets vm_power_ko_source, or vm_power_why on failure
vm_power_module() {
        vm_test_module idlecfg_test_power "$1"
        vp_rc=$?
        vm_power_ko=$vm_ko vm_power_ko_source=${vm_ko_source:-} vm_power_why=${vm_ko_why:-}
        return $vp_rc
}

# vm_power_root ROOT: the module into ROOT, loaded at boot
vm_power_root() {
        mkdir -p "$1/lib/modules/$kver/updates" "$1/etc/modules-load.d" &&
                cp "$vm_power_ko" "$1/lib/modules/$kver/updates/idlecfg_test_power.ko" &&
                echo idlecfg_test_power >"$1/etc/modules-load.d/idlecfg-vm-power.conf" &&
                depmod -b "$1" "$kver"
}

# vm_power_steps OUT ROOT: run the steps install printed (OUT) in a chroot of ROOT
vm_power_steps() {
        set -f
        sed -n "s|^  [ *] chroot $2 ||p" "$1" | sort -u | while IFS= read -r vp_cmd; do
                # shellcheck disable=SC2086
                env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 nice $chroot_cmd "$2" $vp_cmd ||
                        { echo "failed: $vp_cmd"; exit 1; }
        done
        vp_rc=$?
        set +f
        return $vp_rc
}

# the results of a boot's steps: one test point per step
vm_power_results() {
        vp_o=$1
        shift
        for vp_s in "$@"; do
                [ "$vp_s" = capture ] && continue
                vp_l=$(sed -n 1p "$vp_o/results.todo" 2>/dev/null)
                sed -i 1d "$vp_o/results.todo" 2>/dev/null
                vp_st=$(printf '%s\n' "$vp_l" | cut -f2)
                vp_t=$(printf '%s\n' "$vp_l" | cut -f3)
                [ "$vp_st" = ok ] || [ "$vp_st" = bad ] || vp_t=-
                vp_why=$(printf '%s\n' "$vp_l" | cut -f4)
                vp_what="$vp_s: every value of the source right"
                case $vp_s in
                boot-ac) vp_what="booted on AC: every AC value in effect once udev settled" ;;
                boot-battery) vp_what="booted on battery: every battery value in effect once udev settled, the devices bound late included" ;;
                plug) vp_what="plug (ac_online=1): every AC value" ;;
                unplug) vp_what="unplug (ac_online=0): every battery value" ;;
                late-module) vp_what="snd_hda_intel loaded after boot (modprobe $(awk '{ printf "%.2f s", $2 - $1 }' "$vp_o/modprobe.uptime" 2>/dev/null)): its parameter and PCI function take the current source's values" ;;
                suspend) vp_what="rtcwake -m mem -s 5: after the resume every value of the source" ;;
                rollback) vp_what="idlecfg rollback (exit $(cat "$vp_o/rollback.rc" 2>/dev/null)): the values from before the first switch" ;;
                esac
                if [ "$(printf '%s\n' "$vp_l" | cut -f1)" != "$vp_s" ]; then
                        vfail "$vp_what (no result from the guest)"
                elif [ "$vp_st" = skip ]; then
                        skip "$machine: power: $vp_what: $vp_why"
                        left=$((left - 1))
                        vp_left=$((vp_left - 1))
                elif [ "$vp_st" = ok ] && awk -v t="$vp_t" -v l="$vm_power_limit" 'BEGIN { exit !(t <= l) }'; then
                        vpass "$vp_what within $vm_power_limit s: $vp_t s ($vp_why)"
                else
                        vfail "$vp_what within $vm_power_limit s ($vp_st after $vp_t s: $vp_why)"
                        [ -s "$vp_o/$vp_s.bad" ] && diag "$(head -n 20 "$vp_o/$vp_s.bad")"
                fi
                timing "$machine power: $vp_s, change to every value right" "$vp_t"
        done
}

# vm_power_boot NAME ROOT STEPS...: the guest runs STEPS; sets vp_out
vm_power_boot() {
        vp_n=$1 vp_r=$2
        shift 2
        echo "$*" >"$vp_r/etc/idlecfg-vm/power-steps"
        vp_out=$mw/power-$vp_n/out
        # a guest that does not wake from suspend: not the whole boot timeout
        vp_bt=$boot_timeout
        boot_timeout=${IDLECFG_VM_POWER_TIMEOUT:-480}
        boot "power-$vp_n" "$vp_r"
        vp_rc=$?
        boot_timeout=$vp_bt
        # the guest saves its results before suspending: read them even then
        cp "$vp_out/results" "$vp_out/results.todo" 2>/dev/null
        return $vp_rc
}

vm_power_flow() {
        vp=$mw/power
        rm -rf "$vp"
        mkdir -p "$vp"
        vp_left=$vm_power_npoints
        vpass() { vp_left=$((vp_left - 1)); pass "power: $*"; }
        vfail() { vp_left=$((vp_left - 1)); fail "power: $*"; }
        vm_power_run || true
        while [ $vp_left -gt 0 ]; do
                vfail "(not reached: an earlier step failed)"
        done
}

vm_power_run() {
        vp_root=$vp/root
        unpack_root "$vp_root" || { vfail "unpack $tarball"; return 1; }
        kver=$(ls "$vp_root/lib/modules")
        if vm_power_module "$kver" && vm_power_root "$vp_root"; then
                vpass "test module idlecfg_test_power for $kver ($vm_power_ko_source), loaded at boot"
        else
                vfail "test module idlecfg_test_power for $kver: ${vm_power_why:-depmod failed}"
                return 1
        fi
        # 1. the recording, with the supplies
        echo 0 >"$vp_root/etc/idlecfg-vm/idle"
        touch "$vp_root/etc/idlecfg-vm/record"
        if boot power-record "$vp_root" && vp_rec=$mw/power-record/out &&
           grep -q '^P: /devices/virtual/power_supply/idlecfg-test-bat$' "$vp_rec/vm.umockdev" &&
           grep -q '^P: /devices/virtual/power_supply/idlecfg-test-ac$' "$vp_rec/vm.umockdev"; then
                vpass "record boot: the guest has the module's AC adapter and battery (power_supply idlecfg-test-ac, idlecfg-test-bat) in its umockdev recording ($boot_secs s)"
        else
                vfail "record boot: the module's supplies in the guest's recording"
                return 1
        fi
        machine_dir "$vp_rec" "$vp/machine"
        rm -f "$vp_root/etc/idlecfg-vm/record" "$vp_root/etc/systemd/system/multi-user.target.wants/idlecfg-vm-snapshot.service"

        # the package, the profile, install under the recording, its steps
        mkdir -p "$vp_root/etc/idlecfg/profiles"
        cat >"$vp_root/etc/idlecfg/profiles/$vm_power_profile.profile" <<'EOF'
# check-vm's power flow: balanced, with more values per power source
[profile]
description = check-vm power flow: balanced with per-source PCI runtime PM, audio and SATA ALPM
inherit = balanced
[pci]
runtime_pm = ac:on battery:auto
[audio]
power_save = ac:0 battery:1
[sata]
alpm = ac:max_performance battery:med_power_with_dipm
EOF
        if [ "$pkg_rc" -eq 0 ] && make -s -C "$pkg" install DESTDIR="$vp_root" >"$vp/make-install.log" 2>&1 &&
           root_inih "$vp_root" &&
           env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin $chroot_cmd "$vp_root" systemd-hwdb --usr update >>"$vp/make-install.log" 2>&1 &&
           "$top_srcdir/tests/run-machine" "$vp/machine" "$IDLECFG" plan --json --root "$vp_root" --kernel "$kver" \
                --profile "$vm_power_profile" >"$vp/plan.json" 2>"$vp/plan.err" &&
           python3 - "$vp/plan.json" >"$vp_root/etc/idlecfg-vm/power-expect" 2>"$vp/expect.err" <<'PY'
import json, re, sys
# PATH<TAB>ac<TAB>battery<TAB>late|-: each per-source setting where the guest
# shows it; "late" where it needs snd_hda_intel, blacklisted at boot
n = 0
for s in json.load(open(sys.argv[1]))["settings"]:
    if s["skipped"] or not s.get("per_source"):
        continue
    m = s["mechanism"]
    if m == "udev":
        path = "/sys%s/%s" % (s["devpath"], s["attr"])
    elif m in ("modprobe", "tmpfiles") and s["module"]:
        path = "/sys/module/%s/parameters/%s" % (s["module"].replace("-", "_"), s["param"])
    elif m == "sysctl":
        path = "/proc/sys/" + s["param"].replace(".", "/")
    else:
        sys.exit("%s: no place in the guest for mechanism %s" % (s["knob"], m))
    # SCSI host numbers follow probe order (the USB disk's may come first):
    # a glob, which the guest expands
    path = re.sub(r"/host[0-9]+(?=/)", "/host[0-9]*", path)
    late = (s["module"] or "").startswith("snd_hda") or "/hdaudio" in (s["devpath"] or "")
    print("%s\t%s\t%s\t%s" % (path, s["per_source"]["ac"], s["per_source"]["battery"], "late" if late else "-"))
    n += 1
if n < 3:
    sys.exit("only %d per-source settings planned" % n)
PY
        then
                :
        else
                vfail "idlecfg plan --profile $vm_power_profile under the recording with the supplies"
                diag "$(tail -n 20 "$pkg/build.log" "$vp/make-install.log" "$vp/plan.err" "$vp/expect.err" 2>/dev/null)"
                return 1
        fi
        "$top_srcdir/tests/run-machine" "$vp/machine" "$IDLECFG" install --root "$vp_root" --kernel "$kver" \
                --profile "$vm_power_profile" >"$vp/install.out" 2>&1
        vp_irc=$?
        if { [ $vp_irc -eq 0 ] || [ $vp_irc -eq 4 ]; } && [ -s "$vp_root/etc/idlecfg/power-source.conf" ] &&
           [ -s "$vp_root/etc/udev/rules.d/70-idlecfg-power-source.rules" ] &&
           [ -s "$vp_root/etc/systemd/system/idlecfg-power-source.service" ]; then
                vpass "idlecfg install --root ROOT --profile $vm_power_profile under the recording: the switch's table, rule and boot unit; $(wc -l <"$vp_root/etc/idlecfg-vm/power-expect") settings per source ($(cut -f1 "$vp_root/etc/idlecfg-vm/power-expect" | sed 's|.*/||' | sort | uniq -c | awk '{ printf "%s%s %s", s, $1, $2; s = ", " }'))"
        else
                vfail "idlecfg install --root ROOT --profile $vm_power_profile: the switch's files (exit $vp_irc)"
                diag "$(cat "$vp/install.out")"
                return 1
        fi
        if vm_power_steps "$vp/install.out" "$vp_root" >"$vp/steps.log" 2>&1; then
                vpass "the steps install printed ran in a chroot: $(sed -n "s|^  [ *] chroot $vp_root ||p" "$vp/install.out" | sort -u | paste -sd';' | sed 's/;/; /g')"
        else
                vfail "the steps install printed ran in a chroot"
                diag "$(tail -n 20 "$vp/steps.log")"
                return 1
        fi
        # the guest's side: the steps, snd_hda_intel loaded late
        install -m 755 "$vmdir/power-guest.sh" "$vp_root/usr/local/sbin/idlecfg-vm-power"
        install -m 644 "$vmdir/idlecfg-vm-power.service" "$vp_root/etc/systemd/system/"
        ln -sf /etc/systemd/system/idlecfg-vm-power.service "$vp_root/etc/systemd/system/multi-user.target.wants/"
        echo "blacklist snd_hda_intel" >"$vp_root/etc/modprobe.d/idlecfg-vm-late.conf"
        vp_cmdline=$(cat "$vp_root/etc/kernel/cmdline")

        # 2. on AC
        # shellcheck disable=SC2086
        if vm_power_boot ac "$vp_root" $vm_power_ac_steps; then
                vpass "boot on AC: the steps ran, powered off by itself ($boot_secs s)"
        else
                vfail "boot on AC: the steps ran and the guest powered off by itself"
        fi
        # shellcheck disable=SC2086
        [ -s "$vp_out/results" ] && vm_power_results "$vp_out" $vm_power_ac_steps
        # 3. on battery
        echo "$vp_cmdline idlecfg_test_power.ac_online=0 panic=5" >"$vp_root/etc/kernel/cmdline"
        # shellcheck disable=SC2086
        if vm_power_boot battery "$vp_root" $vm_power_bat_steps; then
                vpass "boot on battery (idlecfg_test_power.ac_online=0): the steps ran, powered off by itself ($boot_secs s)"
        else
                vfail "boot on battery: the steps ran and the guest powered off by itself"
        fi
        # after the S3 resume the guest's ACPI power-off returned and
        # systemd-shutdown exited: "Attempted to kill init" (QEMU 7.2,
        # SeaBIOS, 6.1); panic=5 on the command line makes that a reset,
        # which ends QEMU (-no-reboot); said here when it happens
        grep -q 'Attempted to kill init' "$mw/power-battery/console.log" 2>/dev/null &&
                diag "$machine power-battery: the guest panicked at power-off after the resume (Attempted to kill init); panic=5 reset it"
        # shellcheck disable=SC2086
        [ -s "$vp_out/results" ] && vm_power_results "$vp_out" $vm_power_bat_steps
        rm -rf "$vp_root"
}
