#!/bin/sh
# tests/emit-tools.sh: the real tools read what the emitters write (modprobe, systemd-tmpfiles, systemd-sysctl,
# procps sysctl -p, udevadm test)
. "$top_srcdir/tests/lib.sh"
RENDER=${EMIT_RENDER:-$top_builddir/tests/emit-render}
[ -x "$RENDER" ] || skip_all "$RENDER not built"
PATH=$PATH:/sbin:/usr/sbin
plan 29

have() { command -v "$1" >/dev/null 2>&1; }
# skip COUNT test points with one reason
skip_n() { _k=$1; shift; while [ "$_k" -gt 0 ]; do skip "$*"; _k=$((_k - 1)); done; }

# ---- modprobe.d: libkmod's own parser ----
cat >"$tmp/modprobe.plan" <<'EOF'
modprobe|audio.power_save|||snd_hda_intel|power_save|1||profile balanced [audio] power_save = 1
# a reason with a newline and a trailing backslash: a continuation would swallow the options line
modprobe|audio.power_save_controller|||snd-hda-intel|power_save_controller|Y||hwdb a.hwdb:1 (x\
modprobe|nvme.apst|nvme0||nvme_core|default_ps_max_latency_us|0||hwdb 70-idlecfg-nvme.hwdb:5
modprobe|gpu.i915_psr|||i915|enable_psr|0||profile balanced [gpu] i915_psr = off
EOF
mkdir -p "$tmp/modprobe.d"
check "modprobe: rendered" sh -c '"$1" modprobe <"$2" >"$3"' sh "$RENDER" "$tmp/modprobe.plan" "$tmp/modprobe.d/idlecfg.conf"
cat >"$tmp/modprobe.want" <<'EOF'
options i915 enable_psr=0
options nvme_core default_ps_max_latency_us=0
options snd_hda_intel power_save=1 power_save_controller=Y
EOF
if have modprobe; then
        # the kernel command line's module options are in the dump too: keep our modules only
        for conf in "$tmp/modprobe.d" "$tmp/modprobe.d/idlecfg.conf"; do
                modprobe -C "$conf" --showconfig 2>"$tmp/modprobe.err" |
                        grep -E '^options (i915|nvme_core|snd_hda_intel) ' | sort >"$tmp/modprobe.got"
                if diff -u "$tmp/modprobe.want" "$tmp/modprobe.got" >"$tmp/modprobe.diff"; then
                        ok "modprobe -C ${conf#"$tmp"/} --showconfig: one options line per module, every parameter"
                else
                        not_ok "modprobe -C ${conf#"$tmp"/} --showconfig: one options line per module, every parameter"
                        diag "$(cat "$tmp/modprobe.diff" "$tmp/modprobe.err")"
                fi
        done
else
        skip_n 2 "modprobe not installed"
fi

# ---- tmpfiles.d: systemd-tmpfiles writes under --root, with /sys hidden behind a tmpfs ----
cat >"$tmp/tmpfiles.plan" <<'EOF'
tmpfiles|pcie_aspm.policy|||pcie_aspm|policy|powersupersave||profile balanced [pcie_aspm] policy
tmpfiles|audio.power_save|||snd-hda-intel|power_save|10||profile balanced [audio] power_save = 10
EOF
check "tmpfiles: rendered" sh -c '"$1" tmpfiles <"$2" >"$3"' sh "$RENDER" "$tmp/tmpfiles.plan" "$tmp/idlecfg-tmpfiles.conf"
troot=$tmp/troot
mkdir -p "$troot/sys/module/pcie_aspm/parameters" "$troot/sys/module/snd_hda_intel/parameters"
printf 'default\n' >"$troot/sys/module/pcie_aspm/parameters/policy"
printf '1\n' >"$troot/sys/module/snd_hda_intel/parameters/power_save"
if ! have systemd-tmpfiles; then
        skip_n 3 "systemd-tmpfiles not installed"
elif ! mount_ns; then
        skip_n 3 "$why"
else
        # a tmpfs over /sys in a private namespace: a write that escaped --root would land there
        $us sh -c 'set -e
                mount -t tmpfs tmpfs /sys
                awk '"'"'$5 == "/sys" && / - tmpfs / { f = 1 } END { exit !f }'"'"' /proc/self/mountinfo
                systemd-tmpfiles --root="$1" --create "$2"
                find /sys -mindepth 1 >"$3"' sh "$troot" "$tmp/idlecfg-tmpfiles.conf" "$tmp/escaped" \
                >"$tmp/tmpfiles.out" 2>&1
        rc=$?
        check "systemd-tmpfiles --root --create: exit 0, no warnings" \
                sh -c 'test "$1" -eq 0 && ! test -s "$2"' sh "$rc" "$tmp/tmpfiles.out"
        [ $rc -eq 0 ] || diag "$(cat "$tmp/tmpfiles.out")"
        check "systemd-tmpfiles wrote both parameters under the root" sh -c \
                'test "$(cat "$1/sys/module/pcie_aspm/parameters/policy")" = powersupersave &&
                 test "$(cat "$1/sys/module/snd_hda_intel/parameters/power_save")" = 10' sh "$troot"
        check "systemd-tmpfiles wrote nothing outside the root" sh -c 'test -f "$1" && ! test -s "$1"' sh "$tmp/escaped"
fi

# ---- sysctl.d: systemd-sysctl and procps' sysctl -p apply the file to a tmpfs over /proc/sys ----
# in a private mount namespace: what they write lands in the tmpfs, never in
# the kernel's /proc/sys (the mount is checked before either tool runs)
cat >"$tmp/sysctl.plan" <<'EOF'
sysctl|kernel.nmi_watchdog||||kernel.nmi_watchdog|0||profile balanced [kernel] nmi_watchdog = off
sysctl|kernel.dirty_writeback_centisecs||||vm.dirty_writeback_centisecs|1500||profile powersave [kernel] dirty_writeback_centisecs = 1500
EOF
check "sysctl: rendered, sorted by key, one 'key = value' line each" sh -c '"$1" sysctl <"$2" >"$3" &&
        test "$(grep -v "^#" "$3" | grep .)" = "kernel.nmi_watchdog = 0
vm.dirty_writeback_centisecs = 1500"' sh "$RENDER" "$tmp/sysctl.plan" "$tmp/90-idlecfg.conf"
# sysctl-inner.sh TOOL...: inside the namespace, each tool applies $CONF to
# fresh values (nmi_watchdog 1, writeback 500); $OUT.N.out is what it said,
# $OUT.N.got its exit status and the two values after it
cat >"$tmp/sysctl-inner.sh" <<'SH'
set -e
mount -t tmpfs tmpfs /proc/sys
awk '$5 == "/proc/sys" && / - tmpfs / { f = 1 } END { exit !f }' /proc/self/mountinfo
touch /proc/sys/.idlecfg-test-tmpfs
n=0
for tool in "$@"; do
        n=$((n + 1))
        test -e /proc/sys/.idlecfg-test-tmpfs
        mkdir -p /proc/sys/kernel /proc/sys/vm
        printf '1\n' >/proc/sys/kernel/nmi_watchdog
        printf '500\n' >/proc/sys/vm/dirty_writeback_centisecs
        rc=0
        $tool "$CONF" >"$OUT.$n.out" 2>&1 || rc=$?
        echo "rc=$rc $(cat /proc/sys/kernel/nmi_watchdog) $(cat /proc/sys/vm/dirty_writeback_centisecs)" >"$OUT.$n.got"
done
SH
SYSTEMD_SYSCTL=
for d in /usr/lib/systemd /lib/systemd; do
        if [ -x "$d/systemd-sysctl" ]; then
                SYSTEMD_SYSCTL=$d/systemd-sysctl
                break
        fi
done
printf '#!/bin/sh\nexec sysctl -p "$@"\n' >"$tmp/sysctl-p"
chmod +x "$tmp/sysctl-p"
why=
if ! root_ns || ! unshare -m sh -c 'mount -t tmpfs tmpfs /proc/sys' 2>/dev/null; then
        skip_n 2 "cannot mount a tmpfs over /proc/sys in a private mount namespace (${why:-needs root and unshare -m})"
else
        if [ -n "$SYSTEMD_SYSCTL" ]; then
                CONF=$tmp/90-idlecfg.conf OUT=$tmp/ss unshare -m sh "$tmp/sysctl-inner.sh" "$SYSTEMD_SYSCTL" \
                        >"$tmp/ss.log" 2>&1
                check "systemd-sysctl FILE: exit 0, nothing said, both values written" sh -c '
                        test "$(cat "$1.1.got")" = "rc=0 0 1500" && ! test -s "$1.1.out"' sh "$tmp/ss"
                [ -f "$tmp/ss.1.got" ] || diag "$(cat "$tmp/ss.log")"
        else
                skip "systemd-sysctl FILE writes both values" "systemd-sysctl not installed"
        fi
        if have sysctl; then
                CONF=$tmp/90-idlecfg.conf OUT=$tmp/sp unshare -m sh "$tmp/sysctl-inner.sh" "$tmp/sysctl-p" \
                        >"$tmp/sp.log" 2>&1
                check "procps sysctl -p FILE: exit 0, both values written and echoed" sh -c '
                        test "$(cat "$1.1.got")" = "rc=0 0 1500" && grep -qx "kernel.nmi_watchdog = 0" "$1.1.out" &&
                        grep -qx "vm.dirty_writeback_centisecs = 1500" "$1.1.out"' sh "$tmp/sp"
                [ -f "$tmp/sp.1.got" ] || diag "$(cat "$tmp/sp.log")"
        else
                skip "procps sysctl -p FILE writes both values" "sysctl not installed"
        fi
fi

# ---- udev rules: udevadm test, only under umockdev and a private mount namespace ----
cat >"$tmp/udev.plan" <<'EOF'
udev|pci.runtime_pm|0000:00:1f.6|power/control|||auto|SUBSYSTEM=pci;ATTR{vendor}=0x8086;ATTR{device}=0x15be|profile balanced [pci] runtime_pm
udev|pcie_aspm.link|0000:00:1c.0|link/l1_aspm|||1|SUBSYSTEM=pci;KERNEL=0000:00:1c.0|hwdb a.hwdb:3 (L1 first)
udev|pcie_aspm.link|0000:00:1c.0|link/l1_1_aspm|||1|SUBSYSTEM=pci;KERNEL=0000:00:1c.0|hwdb a.hwdb:3 (then L1.1)
udev|sata.alpm|host0|link_power_management_policy|||med_power_with_dipm|SUBSYSTEM=scsi_host;KERNEL=host0;ATTR{proc_name}=ahci|profile balanced [sata] alpm
udev|gpu.nvidia_runtime_pm|0000:7e:00.0|power/control|||auto|SUBSYSTEM=pci;ATTR{vendor}=0x10de;ATTR{device}=0x1f9d;DRIVER=nvidia|hwdb a.hwdb:9 (nvidia runtime D3)
EOF
check "udev: rendered" sh -c '"$1" udev <"$2" >"$3"' sh "$RENDER" "$tmp/udev.plan" "$tmp/70-idlecfg.rules"
# every device of the recording: none may exist on this host
fake="/sys/devices/pci0000:00/0000:00:1f.6 /sys/devices/pci0000:00/0000:00:1f.7 /sys/devices/pci0000:00/0000:00:1c.0
/sys/devices/pci0000:00/0000:00:1f.2 /sys/devices/pci0000:00/0000:00:01.0/0000:7e:00.0"
cat >"$tmp/udev.umockdev" <<'EOF'
P: /devices/pci0000:00/0000:00:1f.6
E: SUBSYSTEM=pci
E: DRIVER=e1000e
A: vendor=0x8086
A: device=0x15be
A: power/control=on

P: /devices/pci0000:00/0000:00:1f.7
E: SUBSYSTEM=pci
A: vendor=0x8086
A: device=0x15bf
A: power/control=on

P: /devices/pci0000:00/0000:00:1c.0
E: SUBSYSTEM=pci
A: vendor=0x8086
A: device=0xa0bc
A: link/l1_aspm=0
A: link/l1_1_aspm=0

P: /devices/pci0000:00/0000:00:1f.2/ata1/host0/scsi_host/host0
E: SUBSYSTEM=scsi_host
A: link_power_management_policy=max_performance
A: proc_name=ahci

P: /devices/pci0000:00/0000:00:01.0/0000:7e:00.0
E: SUBSYSTEM=pci
E: DRIVER=nvidia
L: driver=../../../../bus/pci/drivers/nvidia
A: vendor=0x10de
A: device=0x1f9d
A: power/control=on
EOF
# Runs inside umockdev-run (LD_PRELOAD: /sys is the recording) and a new mount
# namespace: tmpfs over the real /sys, /run and every rules directory, so only
# our file is read and a write the preload missed cannot reach a live device.
udev_sandbox "$tmp/udev-inner.sh"
cat >>"$tmp/udev-inner.sh" <<'EOF'
for dev in 0000:00:1f.6 0000:00:1f.7 0000:00:1c.0 0000:00:1f.2/ata1/host0/scsi_host/host0; do
        name=$(echo "$dev" | tr '/:' '__')
        udevadm test --action=add "/sys/devices/pci0000:00/$dev" >"$out/test.$name" 2>&1
        # the mock tree goes away with umockdev-run: copy what the rules wrote
        for a in power/control link/l1_aspm link/l1_1_aspm link_power_management_policy; do
                f=$UMOCKDEV_DIR/sys/devices/pci0000:00/$dev/$a
                if [ -f "$f" ]; then
                        printf '%s %s\n' "$a" "$(cat "$f")" >>"$out/mock.$name"
                fi
        done
done
# the NVIDIA GPU's rules run at the driver's bind and unbind, not at add
g=/sys/devices/pci0000:00/0000:00:01.0/0000:7e:00.0
for act in add bind unbind; do
        # udev writes sysfs without O_TRUNC: in the mock, "on" over "auto" would read "onto"
        [ $act != unbind ] || : >"$UMOCKDEV_DIR$g/power/control"
        udevadm test --action=$act "$g" >"$out/test.nv.$act" 2>&1
        echo "$act $(cat "$UMOCKDEV_DIR$g/power/control")" >>"$out/mock.nv"
done
EOF
absent=true
for d in $fake; do
        if [ -e "$d" ]; then
                absent=false
                diag "$d exists on this host: no udevadm test"
        fi
done
if ! have umockdev-run || ! have udevadm; then
        skip_n 9 "umockdev-run or udevadm not installed"
elif ! $absent; then
        skip_n 9 "a device of the recording exists on this host"
elif ! mount_ns; then
        skip_n 9 "$why"
else
        mkdir -p "$tmp/udev.out"
        umockdev-run -d "$tmp/udev.umockdev" -- $us sh "$tmp/udev-inner.sh" "$tmp/udev.out" \
                "$(readlink /proc/self/ns/mnt)" "$tmp/70-idlecfg.rules" >"$tmp/udev.log" 2>&1
        rc=$?
        check "udevadm test ran under umockdev in a private mount namespace" test $rc -eq 0
        [ $rc -eq 0 ] || diag "$(cat "$tmp/udev.log" "$tmp"/udev.out/test.* 2>/dev/null | tail -n 40)"
        t=$tmp/udev.out/test.0000_00_1f.6
        check "udevadm read our rules file only, without complaint" sh -c \
                'test "$(grep -c "Reading rules file" "$1")" -eq 1 &&
                 grep -q "Reading rules file: /etc/udev/rules.d/70-idlecfg.rules" "$1" &&
                 ! grep -iE "70-idlecfg.rules:[0-9]+:? .*(invalid|unknown|ignor|error|failed)" "$1"' sh "$t"
        check "the matching PCI device's power/control became auto (in the mock)" \
                grep -qx "power/control auto" "$tmp/udev.out/mock.0000_00_1f.6"
        check "a PCI device with another ID kept power/control on" \
                grep -qx "power/control on" "$tmp/udev.out/mock.0000_00_1f.7"
        order=$(sed -n 's|.*/0000:00:1c\.0/\(link/[a-z0-9_]*\).* writing .*|\1|p' "$tmp/udev.out/test.0000_00_1c.0" |
                tr '\n' ' ')
        check "per-link ASPM: L1 written before L1.1, both 1 (order: $order)" sh -c \
                'test "$1" = "link/l1_aspm link/l1_1_aspm " && grep -qx "link/l1_aspm 1" "$2" &&
                 grep -qx "link/l1_1_aspm 1" "$2"' sh "$order" "$tmp/udev.out/mock.0000_00_1c.0"
        check "SATA host: link_power_management_policy became med_power_with_dipm" \
                grep -qx "link_power_management_policy med_power_with_dipm" \
                "$tmp/udev.out/mock.0000_00_1f.2_ata1_host0_scsi_host_host0"
        check "NVIDIA GPU: power/control stays on at add, becomes auto at the nvidia driver's bind" \
                sh -c 'grep -qx "add on" "$1" && grep -qx "bind auto" "$1"' sh "$tmp/udev.out/mock.nv"
        last_failed && diag "$(cat "$tmp/udev.out/mock.nv"; tail -n 20 "$tmp/udev.out/test.nv.bind")"
        check "NVIDIA GPU: power/control on again at the driver's unbind" grep -qx "unbind on" "$tmp/udev.out/mock.nv"
        last_failed && diag "$(cat "$tmp/udev.out/mock.nv"; tail -n 20 "$tmp/udev.out/test.nv.bind")"
        still_absent=true
        for d in $fake; do [ -e "$d" ] && still_absent=false; done
        check "the host's /sys has none of the recorded devices afterwards" $still_absent
fi

# ---- command line: one line of module.param=value words ----
cat >"$tmp/cmdline.plan" <<'EOF'
cmdline|usbcore.autosuspend|||usbcore|autosuspend|-1||r
cmdline|suspend.resume||||resume|UUID=0a1b2c3d-0000-4000-8000-00000000abcd||r
cmdline|suspend.mem_sleep||||mem_sleep_default|deep||r
cmdline|pcie_aspm.policy|||pcie_aspm|policy|powersave||r
EOF
"$RENDER" cmdline <"$tmp/cmdline.plan" >"$tmp/cmdline" 2>&1
check "cmdline: sorted words on one line" test "$(cat "$tmp/cmdline")" = \
        "mem_sleep_default=deep pcie_aspm.policy=powersave resume=UUID=0a1b2c3d-0000-4000-8000-00000000abcd usbcore.autosuspend=-1"
check "cmdline: nothing to set gives no output" sh -c \
        'printf "none|gpu.i915_rc6|||||||skipped\n" | "$1" cmdline >"$2" && ! test -s "$2"' sh "$RENDER" "$tmp/empty"

# ---- hostile values: refused in every format, nothing on stdout ----
hostile_check() {
        _fmt=$1 _line=$2
        printf '%s\n' "$_line" | "$RENDER" "$_fmt" >"$tmp/h.out" 2>"$tmp/h.err"
        _rc=$?
        if [ $_rc -eq 1 ] && ! [ -s "$tmp/h.out" ] && grep -q 'is not allowed' "$tmp/h.err"; then
                ok "$_fmt: hostile value refused, nothing written"
        else
                not_ok "$_fmt: hostile value refused, nothing written"
                diag "rc=$_rc" "$(cat "$tmp/h.out" "$tmp/h.err")"
        fi
}
hostile_check udev 'udev|pci.runtime_pm|0000:00:1f.6|power/control|||auto", RUN+="/bin/touch /tmp/pwned|SUBSYSTEM=pci;KERNEL=0000:00:1f.6|r'
hostile_check modprobe 'modprobe|audio.power_save|||snd_hda_intel|power_save|1 install snd_hda_intel /bin/sh||r'
hostile_check tmpfiles 'tmpfiles|pcie_aspm.policy|||pcie_aspm|policy|%h/x||r'
hostile_check cmdline 'cmdline|suspend.resume||||resume|/dev/sda init=/bin/sh||r'
hostile_check sysctl 'sysctl|kernel.dirty_writeback_centisecs||||vm.dirty_writeback_centisecs|1500 kernel.panic = 1||r'
hostile_check networkmanager 'networkmanager|wifi.power_save|wlan0] [main|||wifi.powersave|on||r'
hostile_check link 'link|network.wake_on_lan|eno1|||WakeOnLan|off NamePolicy=kernel||r'

done_testing
