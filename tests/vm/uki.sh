# tests/vm/uki.sh: the UKI flow of make check-vm (sourced by check-vm.sh;
# issue #31 point 6). A Debian 13 (trixie) root with systemd-boot,
# systemd-ukify and linux-image-amd64 (debootstrap, cached by tests/lib.sh's
# cached_root as trixie-uki in /var/cache/idlecfg-test-roots) boots a unified
# kernel image through systemd-boot under OVMF (Debian's ovmf package,
# OVMF_CODE_4M.fd as read-only pflash and a copy of OVMF_VARS_4M.fd), QEMU
# q35 under TCG. kernel-install makes the UKI (install.conf layout=uki,
# uki_generator=ukify, the vendor's line in /usr/lib/kernel/cmdline). The
# disk is made without loop devices: a GPT (sfdisk on a file) with an ESP
# (mkfs.vfat -C, then mmd/mcopy: systemd-boot as EFI/BOOT/BOOTX64.EFI, the
# UKI in EFI/Linux) and the root (mkfs.ext4 -d), the two images written at
# their partitions' offsets with dd.
#
# Three boots: the baseline (the UKI kernel-install made before idlecfg);
# after `idlecfg install --json` (the recorded desktop-sata machine, profile
# powersave with the codec's power_save at 3 s, in the root's
# /etc/idlecfg/profiles: the word pcie_aspm.policy=powersupersave and
# snd_hda_intel's options for the VM's HDA audio) and its boot steps from the JSON run in the
# root (/proc, /sys, /dev bound in, unshare -m): /proc/cmdline has the words,
# the modules have the options; after `idlecfg rollback --json` and its steps:
# /proc/cmdline has no word of idlecfg, the UKI's initramfs (.initrd, listed
# with lsinitramfs) no etc/modprobe.d/idlecfg.conf, and the module parameters
# and every power/control under /sys/devices are the baseline's. The UKI's
# .cmdline and .initrd are read back with the root's objcopy at each stage.
#
# Environment: the flow "uki" of IDLECFG_VM_FLOWS (check-vm.sh: in the
# default, after the suites' flows; IDLECFG_VM_FLOWS=uki runs it alone, the
# suites' roots not built); IDLECFG_VM_OVMF (default /usr/share/OVMF),
# IDLECFG_VM_TIMEOUT as for the other boots.

# yes: after the suites' flows; only: alone; no: left out
uki_mode=no
if flow_on uki; then
        uki_mode=yes
        flow_on main || flow_on power || flow_on nic || uki_mode=only
fi
uki_points=10
uki_uuid=5f1d6a52-0c1e-4b7a-9d3e-1d1e5c0f6a02
uki_base_cmdline="root=UUID=$uki_uuid rw console=ttyS0"
# powersave with the codec's power_save at 3 s: Debian 13's kernel already
# defaults to 10 s, the value of powersave's on AC, and an option equal to
# the default would prove nothing in /sys
uki_profile=uki-test

uki_npoints() {
        [ "$uki_mode" = no ] && { echo 0; return; }
        echo "$uki_points"
}

# uki_chroot ROOT CMD...: CMD in ROOT with /proc, /sys and /dev bound in a
# private mount namespace (kernel-install, ukify, update-initramfs)
uki_chroot() {
        unshare -m sh -ec 'mount --make-rprivate / 2>/dev/null || true
                mount -t proc proc "$0/proc"; mount --rbind /sys "$0/sys"; mount --rbind /dev "$0/dev"
                exec "$@"' "$@"
}

# uki_steps JSON LOG: every boot step of the JSON with an argv, in order, as
# it says (chroot ROOT ...), in the namespace above; timed
uki_steps() {
        python3 - "$1" >"$1.steps" <<'PY'
import json, sys
for s in json.load(open(sys.argv[1]))["next_steps"]:
    if s["boot"] and s["argv"]:
        print("\t".join(s["argv"]))
PY
        while IFS='	' read -r _a _b _c _d _e _f _g _h; do
                [ "$_a" = chroot ] || { echo "not a chroot step: $_a $_b $_c"; return 1; }
                _t=$(date +%s)
                # shellcheck disable=SC2086
                uki_chroot "$_b" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 chroot "$_b" $_c $_d $_e $_f $_g $_h \
                        >>"$2" 2>&1 || { echo "failed: $_c $_d $_e $_f $_g $_h"; return 1; }
                timing "uki: step $_c (chroot ROOT $_c $_d $_e $_f $_g)" "$(($(date +%s) - _t))"
        done <"$1.steps"
}

# the UKI kernel-install made in the root (one)
uki_file() { find "$uki_root/boot" "$uki_root/efi" -path '*/EFI/Linux/*.efi' 2>/dev/null | head -n 1; }

# uki_sections NAME: the UKI's .cmdline (NAME.cmdline) and the listing of its
# .initrd (NAME.initrd), with the root's objcopy and lsinitramfs
uki_sections() {
        _u=$(uki_file)
        [ -n "$_u" ] || { echo "no UKI under $uki_root/boot"; return 1; }
        rm -f "$uki_root/tmp/uki.cmdline" "$uki_root/tmp/uki.initrd"
        chroot "$uki_root" objcopy --dump-section .cmdline=/tmp/uki.cmdline --dump-section .initrd=/tmp/uki.initrd \
                "${_u#"$uki_root"}" /tmp/uki.copy || return 1
        tr -d '\0' <"$uki_root/tmp/uki.cmdline" >"$uki_work/$1.cmdline"
        uki_chroot "$uki_root" chroot "$uki_root" lsinitramfs /tmp/uki.initrd >"$uki_work/$1.initrd" || return 1
        rm -f "$uki_root/tmp/uki.cmdline" "$uki_root/tmp/uki.initrd" "$uki_root/tmp/uki.copy"
}

# the guest's probe: once udev has settled, /proc/cmdline, the parameters of
# the modules named in /etc/idlecfg-uki/params and every power/control under
# /sys/devices, as a tar on the output disk; then power off
uki_probe_setup() {
        _r=$1
        mkdir -p "$_r/usr/local/sbin" "$_r/etc/idlecfg-uki"
        cat >"$_r/usr/local/sbin/idlecfg-uki-probe" <<'EOF'
#!/bin/sh
set -u
out=/dev/disk/by-id/ata-QEMU_HARDDISK_IDLECFG-OUT
w=/run/idlecfg-uki
mkdir -p "$w" && cd "$w" || exit 1
# under a loaded TCG host udev's coldplug takes minutes: wait for the output disk
n=0
while [ ! -b "$out" ] && [ $n -lt 900 ]; do sleep 1; n=$((n + 1)); done
udevadm settle --timeout=300
cut -d' ' -f1 /proc/uptime >settled
cat /proc/cmdline >cmdline
while read -r m; do
        for p in /sys/module/$m/parameters/*; do
                [ -f "$p" ] && printf '%s\t%s\n' "$m/${p##*/}" "$(cat "$p" 2>/dev/null)"
        done
done </etc/idlecfg-uki/params >params
find /sys/devices -path '*/power/control' -type f 2>/dev/null | sort | while read -r f; do
        printf '%s\t%s\n' "$f" "$(cat "$f" 2>/dev/null)"
done >control
systemctl list-units --failed --plain --no-legend >failed-units 2>&1
cut -d' ' -f1 /proc/uptime >uptime
tar -cf "$out" . && sync
systemctl poweroff
EOF
        chmod 755 "$_r/usr/local/sbin/idlecfg-uki-probe"
        cat >"$_r/etc/systemd/system/idlecfg-uki-probe.service" <<'EOF'
[Unit]
Description=idlecfg UKI test: what the boot got, then power off
Wants=systemd-udev-settle.service
After=systemd-udev-settle.service systemd-modules-load.service multi-user.target

[Service]
Type=oneshot
TimeoutStartSec=infinity
ExecStart=/usr/local/sbin/idlecfg-uki-probe
StandardOutput=journal+console

[Install]
WantedBy=multi-user.target
EOF
        ln -sf /etc/systemd/system/idlecfg-uki-probe.service "$_r/etc/systemd/system/multi-user.target.wants/"
        # a loaded TCG host: jobs (journald, udev's coldplug) take minutes
        mkdir -p "$_r/etc/systemd/system.conf.d"
        printf '[Manager]\nDefaultTimeoutStartSec=900s\nDefaultDeviceTimeoutSec=900s\n' \
                >"$_r/etc/systemd/system.conf.d/idlecfg-uki.conf"
        ln -sf /lib/systemd/system/multi-user.target "$_r/etc/systemd/system/default.target"
        for u in getty@.service serial-getty@.service getty-static.service; do
                ln -sf /dev/null "$_r/etc/systemd/system/$u"
        done
        echo "UUID=$uki_uuid / ext4 rw 0 1" >"$_r/etc/fstab"
        echo idlecfg-uki >"$_r/etc/hostname"
        printf 'pcie_aspm\nsnd_hda_intel\n' >"$_r/etc/idlecfg-uki/params"
}

# uki_disk NAME: $uki_work/NAME/disk.img, a GPT disk with the ESP (systemd-boot
# and the root's UKI) and the root, made without loop devices
uki_disk() {
        _d=$uki_work/$1
        _u=$(uki_file)
        _esp_mib=128
        _root_mib=2560
        mkdir -p "$_d"
        rm -f "$_d/esp.img" "$_d/root.img" "$_d/disk.img"
        mkfs.vfat -C -n ESP "$_d/esp.img" $((_esp_mib * 1024)) >"$_d/mkfs.log" 2>&1 &&
                printf 'timeout 0\n' >"$_d/loader.conf" &&
                MTOOLS_SKIP_CHECK=1 mmd -i "$_d/esp.img" ::EFI ::EFI/BOOT ::EFI/Linux ::loader &&
                MTOOLS_SKIP_CHECK=1 mcopy -i "$_d/esp.img" "$uki_root/usr/lib/systemd/boot/efi/systemd-bootx64.efi" ::EFI/BOOT/BOOTX64.EFI &&
                MTOOLS_SKIP_CHECK=1 mcopy -i "$_d/esp.img" "$_u" "::EFI/Linux/${_u##*/}" &&
                MTOOLS_SKIP_CHECK=1 mcopy -i "$_d/esp.img" "$_d/loader.conf" ::loader/loader.conf &&
                mkfs.ext4 -q -F -L idlecfg-uki -U "$uki_uuid" -d "$uki_root" "$_d/root.img" "${_root_mib}M" >>"$_d/mkfs.log" 2>&1 &&
                truncate -s $((1 + _esp_mib + _root_mib + 1))M "$_d/disk.img" &&
                printf 'label: gpt\nstart=2048, size=%s, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name=esp\nstart=%s, size=%s, type=4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709, name=root\n' \
                        $((_esp_mib * 2048)) $((2048 + _esp_mib * 2048)) $((_root_mib * 2048)) |
                        sfdisk -q "$_d/disk.img" >>"$_d/mkfs.log" 2>&1 &&
                dd if="$_d/esp.img" of="$_d/disk.img" bs=1M seek=1 conv=notrunc,sparse status=none &&
                dd if="$_d/root.img" of="$_d/disk.img" bs=1M seek=$((1 + _esp_mib)) conv=notrunc,sparse status=none || {
                        diag "uki: the disk $1:" "$(tail -n 20 "$_d/mkfs.log")"
                        return 1
                }
        rm -f "$_d/esp.img" "$_d/root.img"
}

# uki_boot NAME: the disk booted under OVMF (pflash: the firmware read-only,
# a copy of its variables); the output disk's tar in $uki_work/NAME/out
uki_boot() {
        _d=$uki_work/$1
        uki_disk "$1" || return 1
        cp "$uki_ovmf/OVMF_VARS_4M.fd" "$_d/vars.fd"
        rm -f "$_d/out.img"
        truncate -s 16M "$_d/out.img"
        _t0=$(date +%s)
        timeout -k 10 "$boot_timeout" nice qemu-system-x86_64 -machine q35,accel=tcg -cpu max -smp 2 -m 1024 \
                -drive "if=pflash,format=raw,unit=0,readonly=on,file=$uki_ovmf/OVMF_CODE_4M.fd" \
                -drive "if=pflash,format=raw,unit=1,file=$_d/vars.fd" \
                -drive "if=none,id=disk,file=$_d/disk.img,format=raw" -device ide-hd,drive=disk,bus=ide.0,bootindex=1 \
                -drive "if=none,id=out,file=$_d/out.img,format=raw" -device ide-hd,drive=out,bus=ide.1,serial=IDLECFG-OUT \
                -audiodev none,id=snd0 -device intel-hda -device hda-duplex,audiodev=snd0 \
                -display none -vga none -monitor none -nic none -no-reboot \
                -serial "file:$_d/console.log" </dev/null >"$_d/qemu.log" 2>&1
        _rc=$?
        uki_secs=$(($(date +%s) - _t0))
        timing "uki: boot $1 (OVMF, systemd-boot, the UKI) under TCG, power on to power off" "$uki_secs"
        rm -rf "$_d/out"
        mkdir -p "$_d/out"
        tar -C "$_d/out" -xf "$_d/out.img" 2>/dev/null
        rm -f "$_d/disk.img" "$_d/out.img"
        if [ "$_rc" -ne 0 ] || [ ! -s "$_d/out/cmdline" ]; then
                [ "$_rc" -eq 124 ] && diag "uki $1: no power-off within $boot_timeout s (IDLECFG_VM_TIMEOUT)"
                diag "uki $1: qemu exit $_rc; qemu:" "$(tail -n 5 "$_d/qemu.log")" "console:" \
                        "$(tr -d '\r' <"$_d/console.log" 2>/dev/null | tail -n 40)"
                return 1
        fi
        diag "uki $1: systemd-boot booted $(grep -ao 'EFI stub: [^\r]*' "$_d/console.log" | head -n 1 || echo 'the UKI');" \
                "udev settled at $(cat "$_d/out/settled") s of uptime, powered off at $(cat "$_d/out/uptime") s; $uki_secs s in all"
}

# uki_ic ARGS...: the host-built idlecfg against the recorded desktop-sata
# machine and the root
uki_ic() {
        "$top_srcdir/tests/run-machine" "$TESTS_DATA/machines/desktop-sata" "$IDLECFG" --root "$uki_root" \
                --kernel "$uki_kver" --profile "$uki_profile" "$@"
}

# the planned words and module options: "word W" and "param MODULE/PARAM VALUE" lines
uki_planned() {
        python3 - "$1" <<'PY'
import json, sys
for s in json.load(open(sys.argv[1]))["settings"]:
    if s["skipped"]:
        continue
    if s["mechanism"] == "cmdline":
        print("word %s.%s=%s" % (s["module"], s["param"], s["value"]) if s["module"] else "word %s=%s" % (s["param"], s["value"]))
    elif s["mechanism"] == "modprobe":
        print("param %s/%s %s" % (s["module"], s["param"], s["value"]))
PY
}

# uki_holds NAME: the boot NAME's /proc/cmdline has every planned word and
# its modules every planned option (Y/N for booleans as sysfs shows them)
uki_holds() {
        python3 - "$uki_work/planned" "$uki_work/$1/out" <<'PY'
import sys
planned, out = sys.argv[1], sys.argv[2]
words = open(out + "/cmdline").read().split()
params = dict(l.rstrip("\n").split("\t", 1) for l in open(out + "/params") if "\t" in l)
bad = []
for l in open(planned):
    kind, rest = l.split(" ", 1)
    if kind == "word":
        w = rest.strip()
        if w not in words:
            bad.append("/proc/cmdline lacks %s" % w)
        key, value = w.split("=", 1)
        key = key.replace(".", "/", 1)
        # a module's parameter on the command line: sysfs shows it ([value] for a choice)
        if "/" in key and params.get(key) is not None and params[key] != value and "[%s]" % value not in params[key].split():
            bad.append("%s is %s, not %s" % (key, params[key], value))
    else:
        key, value = rest.split()
        if params.get(key) is None:
            bad.append("%s: no such parameter (module not loaded?)" % key)
        elif params[key] != value:
            bad.append("%s is %s, not %s" % (key, params[key], value))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
}

# uki_clean NAME: nothing of idlecfg in the boot NAME: no planned word in
# /proc/cmdline, the module parameters and power/control as the baseline's
uki_clean() {
        python3 - "$uki_work/planned" "$uki_work/baseline/out" "$uki_work/$1/out" <<'PY'
import difflib, re, sys
planned, base, now = sys.argv[1:4]
words = open(now + "/cmdline").read().split()
bad = []
for l in open(planned):
    kind, rest = l.split(" ", 1)
    if kind == "word" and any(w == rest.strip() or w.split("=")[0] == rest.strip().split("=")[0] for w in words):
        bad.append("/proc/cmdline still has %s" % rest.strip())
# input devices and SCSI disks are named in the order their drivers probe,
# which races from boot to boot (input3 or input4 for the power button, sda
# or sdb for the root disk): compared without their numbers and letters
def lines(path):
    return sorted(re.sub(r"/sd[a-z]+", "/sdX", re.sub(r"/(input|event|mouse|js)[0-9]+", r"/\1N", l)) for l in open(path))
for f in ("params", "control"):
    a, b = lines(base + "/" + f), lines(now + "/" + f)
    if a != b:
        bad.append("%s differs from the baseline's:\n%s" % (f, "".join(difflib.unified_diff(a, b, n=0))))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
}

uki_flow() {
        [ "$uki_mode" = no ] && return 0
        uki_left=$uki_points
        upass() { uki_left=$((uki_left - 1)); ok "uki: $*"; }
        ufail() { uki_left=$((uki_left - 1)); not_ok "uki: $*"; }
        uki_run || true
        while [ "$uki_left" -gt 0 ]; do
                ufail "(not reached: an earlier step failed)"
        done
        rm -rf "$uki_root"
}

uki_run() {
        uki_work=$work/uki
        uki_root=$uki_work/root
        uki_ovmf=${IDLECFG_VM_OVMF:-/usr/share/OVMF}
        rm -rf "$uki_work"
        mkdir -p "$uki_work"
        _why=
        for _c in mkfs.vfat mmd mcopy sfdisk; do
                command -v "$_c" >/dev/null || _why="$_why $_c"
        done
        [ -f "$uki_ovmf/OVMF_CODE_4M.fd" ] && [ -f "$uki_ovmf/OVMF_VARS_4M.fd" ] || _why="$_why OVMF_CODE_4M.fd/OVMF_VARS_4M.fd in $uki_ovmf (Debian's ovmf)"
        if [ -n "$_why" ]; then
                while [ "$uki_left" -gt 0 ]; do
                        skip "uki: Debian 13 booting a UKI through systemd-boot under OVMF" "missing:$_why (build-aux/bootstrap installs them)"
                        uki_left=$((uki_left - 1))
                done
                return 0
        fi
        # (1) the root
        _t=$(date +%s)
        why=
        if cached_root "$uki_root" trixie trixie-uki \
                systemd,systemd-sysv,udev,kmod,linux-image-amd64,initramfs-tools,zstd,systemd-ukify,systemd-boot,systemd-boot-efi,binutils,python3-cffi-backend \
                uki-vm; then
                upass "Debian 13 root with systemd-boot, systemd-ukify and linux-image-amd64 (cached_root trixie-uki, $(($(date +%s) - _t)) s)"
        else
                ufail "Debian 13 root with systemd-boot, systemd-ukify and linux-image-amd64: $why"
                return 1
        fi
        uki_kver=$(ls "$uki_root/lib/modules")
        root_idlecfg_data "$uki_root"
        root_uki_layout "$uki_root" "$uki_base_cmdline"
        mkdir -p "$uki_root/etc/idlecfg/profiles"
        printf '[profile]\ndescription = check-vm UKI flow: powersave, the codec off after 3 s\ninherit = powersave\n\n[audio]\npower_save = 3\n' \
                >"$uki_root/etc/idlecfg/profiles/uki-test.profile"
        uki_probe_setup "$uki_root"
        # the baseline UKI: kernel-install as the kernel's package would run it
        if uki_chroot "$uki_root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 chroot "$uki_root" \
                kernel-install add "$uki_kver" "/boot/vmlinuz-$uki_kver" >"$uki_work/baseline-kernel-install.log" 2>&1 &&
           uki_sections baseline && grep -qx "$uki_base_cmdline *" "$uki_work/baseline.cmdline" && uki_boot baseline; then
                upass "baseline: kernel-install made $(basename "$(uki_file)"); OVMF booted it through systemd-boot and the guest powered off ($uki_secs s)"
        else
                ufail "baseline: kernel-install made the UKI, and OVMF booted it through systemd-boot"
                diag "$(tail -n 10 "$uki_work/baseline-kernel-install.log")"
                return 1
        fi

        # (2) install and its steps
        uki_ic plan --json >"$uki_work/plan.json" 2>"$uki_work/plan.err"
        uki_planned "$uki_work/plan.json" >"$uki_work/planned"
        uki_ic install --json >"$uki_work/install.json" 2>"$uki_work/install.err"
        _rc=$?
        if [ $_rc -eq 4 ] && grep -q '^word ' "$uki_work/planned" && grep -q '^param ' "$uki_work/planned" &&
           python3 -c 'import json, sys; assert [s["id"] for s in json.load(open(sys.argv[1]))["next_steps"] if s["boot"]] == ["update-initramfs", "kernel-install"]' "$uki_work/install.json"; then
                upass "install --profile $uki_profile exits 4 naming update-initramfs, kernel-install; planned: $(tr '\n' ';' <"$uki_work/planned")"
        else
                ufail "install --profile $uki_profile exits 4 naming update-initramfs, kernel-install (exit $_rc)"
                diag "$(cat "$uki_work/install.err" "$uki_work/planned")"
                return 1
        fi
        if uki_steps "$uki_work/install.json" "$uki_work/install-steps.log" >"$uki_work/install-steps.err" 2>&1 &&
           uki_sections installed &&
           python3 - "$uki_work/planned" "$uki_work/installed.cmdline" <<'PY' && grep -qx 'etc/modprobe.d/idlecfg.conf' "$uki_work/installed.initrd"
import sys
words = open(sys.argv[2]).read().split()
assert all(l.split()[1] in words for l in open(sys.argv[1]) if l.startswith("word ")), words
PY
        then
                upass "the JSON's steps ran in the root; the UKI's .cmdline is '$(cat "$uki_work/installed.cmdline")', its .initrd holds etc/modprobe.d/idlecfg.conf"
        else
                ufail "the JSON's steps ran in the root; the UKI holds the words and the options"
                diag "$(cat "$uki_work/install-steps.err")" "$(tail -n 10 "$uki_work/install-steps.log")"
                return 1
        fi
        if uki_boot installed; then
                upass "installed: OVMF booted the new UKI through systemd-boot and the guest powered off ($uki_secs s)"
        else
                ufail "installed: OVMF booted the new UKI"
                return 1
        fi
        check "uki: installed: /proc/cmdline has the words and the modules have the options ($(cat "$uki_work/installed/out/cmdline"))" \
                uki_holds installed
        uki_left=$((uki_left - 1))

        # (3) rollback and its steps
        uki_ic rollback --json >"$uki_work/rollback.json" 2>"$uki_work/rollback.err"
        _rc=$?
        if [ $_rc -eq 4 ] && uki_steps "$uki_work/rollback.json" "$uki_work/rollback-steps.log" >"$uki_work/rollback-steps.err" 2>&1 &&
           uki_sections rolledback && ! grep -q 'etc/modprobe.d/idlecfg.conf' "$uki_work/rolledback.initrd" &&
           grep -qx "$uki_base_cmdline *" "$uki_work/rolledback.cmdline"; then
                upass "rollback exits 4 naming $(python3 -c 'import json, sys; print(", ".join(s["id"] for s in json.load(open(sys.argv[1]))["next_steps"] if s["boot"]))' "$uki_work/rollback.json"); after its steps the UKI's .cmdline is the vendor's line and its .initrd has no idlecfg.conf"
        else
                ufail "rollback exits 4 and its steps take the words and the options out of the UKI (exit $_rc)"
                diag "$(cat "$uki_work/rollback.err" "$uki_work/rollback-steps.err" "$uki_work/rolledback.cmdline" 2>/dev/null)"
                return 1
        fi
        if uki_boot rolledback; then
                upass "rolled back: OVMF booted the UKI made again and the guest powered off ($uki_secs s)"
        else
                ufail "rolled back: OVMF booted the UKI made again"
                return 1
        fi
        check "uki: rolled back: no word of idlecfg in /proc/cmdline ($(cat "$uki_work/rolledback/out/cmdline")), module parameters and every power/control under /sys/devices as the baseline's ($(wc -l <"$uki_work/rolledback/out/control") attributes)" \
                uki_clean rolledback
        uki_left=$((uki_left - 1))
        uki_ic rollback >"$uki_work/rollback2.out" 2>&1
        _rc=$?
        check "uki: a second rollback: nothing left (exit 0), the state directory gone" sh -c "
                test $_rc -eq 0 && test ! -e '$uki_root/var/lib/idlecfg'"
        uki_left=$((uki_left - 1))
}
