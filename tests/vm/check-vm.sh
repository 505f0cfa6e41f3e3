#!/bin/sh
# tests/vm/check-vm.sh: idlecfg end to end, as an installer uses it, with a real
# kernel and real udev (make check-vm). A Debian bookworm root (debootstrap,
# cached) boots under QEMU (TCG) on two emulated machines: q35 with AHCI, NVMe,
# HDA audio and xHCI with a keyboard, a mouse and a USB disk; pc (i440FX) with
# PIIX IDE, an AHCI controller with empty ports, ICH9 EHCI/UHCI with a USB hub
# holding a disk, USB audio and a tablet, and AC97 audio. On each machine the
# baseline boot writes the live power settings and an umockdev recording of its
# /sys to an output disk; on the host, idlecfg's package goes into the root
# (make install DESTDIR), `idlecfg install` runs under the recording, then the
# steps it prints; the next boot must show every planned setting in effect and
# nothing else changed.
#
# The idle comparison: every boot idles IDLECFG_VM_IDLE seconds once udev has
# settled, then the guest lists power/runtime_status of every device under
# /sys/devices. Besides the baseline (nothing installed) and each profile
# installed, a copy of the root with Debian's powertop and a oneshot unit
# running `powertop --auto-tune` after boot is booted as the peer.
# tests/vm/idle.py prints the counts of runtime-suspended devices, the devices
# that differ and the writes powertop makes that idlecfg skips (with the plan's
# reason), and asserts, per profile: idlecfg holds at least as many devices
# runtime-suspended as powertop's safe writes (a device powertop suspends only
# by an unsafe write is not counted, nor one whose runtime PM the plan skips
# as saving nothing on a VM: the host bridge on pc with 7.3), and makes no unsafe write (HID or USB audio
# runtime PM). Where idlecfg has the measure verb, the baseline and profile
# boots run `idlecfg measure --json` over the last 10 s of the idle time and
# its per-device runtime_status must be the kernel's, sampled right after.
#
# Environment: IDLECFG_VM_CACHE (the cached root and powertop's packages,
# default ~/.cache/idlecfg-vm), IDLECFG_VM_WORK (images, snapshots and logs,
# default tests/vm/work in the build dir), IDLECFG_VM_MACHINES (default
# "q35 pc"), IDLECFG_VM_PROFILES (default "powersave balanced"),
# IDLECFG_VM_IDLE (seconds of idle before the sample, default 30),
# IDLECFG_VM_TIMEOUT (seconds per boot, default 900), IDLECFG_VM_MIRROR
# (default: the Debian mirror of this machine's apt sources),
# IDLECFG_VM_FLOWS (default "main power nic uki"): main is everything above
# (the baseline, powertop, the profiles, the image and the installers), power
# the power-source switch on an emulated AC adapter and battery
# (tests/vm/power-source.sh), nic an e1000e whose link the host turns off and
# on through QMP, on q35 (tests/vm/nic.sh), uki a Debian 13 UKI under OVMF
# (tests/vm/uki.sh); IDLECFG_VM_FLOWS=power runs that one alone.
. "$top_srcdir/tests/lib.sh"
# the image flow: install --image on the host, three boots of one image
. "$top_srcdir/tests/vm/image-flow.sh"
# the image flow's root made by mkosi (the real client, issue #32)
. "$top_srcdir/tests/vm/mkosi.sh"
PATH=$PATH:/usr/sbin:/sbin
export PATH

vmdir=$top_srcdir/tests/vm
# the installer flows: chroot ROOT idlecfg install, and install --root (issue #26)
. "$vmdir/installers.sh"
suite=bookworm
# zstd: initramfs-tools compresses with it by default (else it warns and uses gzip)
include=systemd,systemd-sysv,udev,kmod,linux-image-amd64,umockdev,zstd
cache=${IDLECFG_VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/idlecfg-vm}
work=${IDLECFG_VM_WORK:-$top_builddir/tests/vm/work}
profiles=${IDLECFG_VM_PROFILES:-powersave balanced}
machines=${IDLECFG_VM_MACHINES:-q35 pc}
flows=${IDLECFG_VM_FLOWS:-main power nic uki}
flow_on() { case " $flows " in *" $1 "*) return 0 ;; esac; return 1; }
idle=${IDLECFG_VM_IDLE:-30}
boot_timeout=${IDLECFG_VM_TIMEOUT:-900}
uuid=5f1d6a52-0c1e-4b7a-9d3e-1d1e5c0f6a01       # the root filesystem's, fixed
base_cmdline="root=UUID=$uuid rw console=ttyS0"
tarball=$cache/$suite-minbase.tar.zst
# the cache is valid for exactly this debootstrap call
cache_key="debootstrap --variant=minbase --include=$include $suite (check-vm 1)"
# the suites (IDLECFG_VM_SUITES): suite_setup sets the variables above per suite
. "$vmdir/suite.sh"
# the power-source switch: what this QEMU offers for a plug event (#23)
. "$vmdir/power-source.sh"
# a NIC's link off and on through QMP, on q35 (#47): the flow "nic"
. "$vmdir/nic.sh"
# Debian 13 booting a UKI through systemd-boot under OVMF (#31): the flow "uki"
. "$vmdir/uki.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root (debootstrap, chroot, device nodes in the image)"
need qemu-system-x86_64 mkfs.ext4 debugfs zstd tar umockdev-run python3 chroot timeout flock truncate
mkfs.ext4 2>&1 | grep -q -- '-d ' || skip_all "mkfs.ext4 cannot populate an image from a directory (-d)"

# the Debian mirror of this machine's apt sources: a bookworm entry first, else
# any entry that serves Debian's layout
mirror() {
        if [ -n "${IDLECFG_VM_MIRROR:-}" ]; then
                echo "$IDLECFG_VM_MIRROR"
                return
        fi
        {
                for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
                        [ -f "$f" ] || continue
                        sed -e 's/\[[^]]*\]//' "$f" | awk '$1 == "deb" { print $2, $3 }'
                done
                for f in /etc/apt/sources.list.d/*.sources; do
                        [ -f "$f" ] || continue
                        awk 'BEGIN { RS = ""; FS = "\n" }
                             { t = u = s = ""; enabled = 1
                               for (i = 1; i <= NF; i++) {
                                       if ($i ~ /^Types:/) t = $i
                                       if ($i ~ /^URIs:/) { u = $i; sub(/^URIs:[ \t]*/, "", u); sub(/[ \t].*/, "", u) }
                                       if ($i ~ /^Suites:/) { s = $i; sub(/^Suites:[ \t]*/, "", s) }
                                       if ($i ~ /^Enabled:[ \t]*no/) enabled = 0
                               }
                               if (enabled && t ~ /[ \t]deb([ \t]|$)/ && u != "") { n = split(s, w, /[ \t]+/); for (j = 1; j <= n; j++) print u, w[j] } }' "$f"
                done
        } >"$tmp/sources"
        awk -v s="$suite" '$2 == s { print $1; exit }' "$tmp/sources" | grep . ||
                awk '$1 ~ /\/debian\/?$/ && $2 !~ /security/ { print $1; exit }' "$tmp/sources"
}

# ---- the root: debootstrap once, then a tarball in the cache ----
cache_valid() {
        [ -f "$tarball" ] && [ "$(cat "$cache/$suite-minbase.key" 2>/dev/null)" = "$cache_key" ]
}

# without a cached root: a mirror, debootstrap and the network, or a clean skip
check_can_build() {
        m=$(mirror)
        [ -n "$m" ] || skip_all "no Debian mirror in /etc/apt and no cached root in $cache: set IDLECFG_VM_MIRROR"
        command -v debootstrap >/dev/null || skip_all "debootstrap not installed (and no cached root in $cache)"
        command -v wget >/dev/null || skip_all "wget not installed (debootstrap needs it; no cached root in $cache)"
        wget -q -T 30 -t 1 -O /dev/null "$m/dists/$suite/Release" ||
                skip_all "the mirror $m cannot be reached (no network?) and no cached root in $cache"
}

build_cache() {
        mkdir -p "$cache" || return 1
        exec 9>"$cache/lock"
        flock 9
        if cache_valid; then
                exec 9>&-
                root_source="from the cache $tarball"
                return 0
        fi
        rm -rf "$cache"/build.*          # left by an interrupted run; we hold the lock
        [ -n "${m:-}" ] || m=$(mirror)
        b=$(mktemp -d "$cache/build.XXXXXX")
        t0=$(date +%s)
        if ! debootstrap --variant=minbase --include="$include" "$suite" "$b/root" "$m" >"$b/debootstrap.log" 2>&1; then
                diag "debootstrap from $m failed:" "$(tail -n 20 "$b/debootstrap.log")"
                cp "$b/debootstrap.log" "$work/" 2>/dev/null
                rm -rf "$b"
                exec 9>&-
                return 1
        fi
        if ! suite_after_debootstrap "$b/root" >>"$b/debootstrap.log" 2>&1; then
                diag "$suite: the kernel into the root failed:" "$(tail -n 20 "$b/debootstrap.log")"
                cp "$b/debootstrap.log" "$work/" 2>/dev/null
                rm -rf "$b"
                exec 9>&-
                return 1
        fi
        rm -f "$b"/root/var/cache/apt/archives/*.deb "$b"/root/var/lib/apt/lists/*_Packages
        tar -C "$b/root" --numeric-owner -cf - . | zstd -q -T0 -3 -o "$b/root.tar.zst" || { rm -rf "$b"; exec 9>&-; return 1; }
        mv "$b/root.tar.zst" "$tarball"
        echo "$cache_key" >"$cache/$suite-minbase.key"
        rm -rf "$b"
        exec 9>&-
        root_source="built with debootstrap from $m in $(($(date +%s) - t0)) s, cached in $tarball"
        timing "debootstrap (cold, with the cache tarball)" "$(($(date +%s) - t0))"
}

timing() {
        printf '%s\t%s s\n' "$1" "$2" >>"$work/timings"
        diag "timing: $1: $2 s"
}

# a fresh root from the cache plus what the harness needs in the guest: the
# snapshot unit, multi-user as default, an fstab and the kernel command line of
# a systemd-boot setup (/etc/kernel/cmdline), which install then extends; the
# guest idles $idle seconds before it samples runtime_status
unpack_root() {
        _r=$1
        rm -rf "$_r"
        mkdir -p "$_r"
        zstd -dc "$tarball" | tar -C "$_r" --numeric-owner -xpf - || return 1
        harness_root "$_r"
}

# harness_root ROOT: what the harness adds to a root (unpacked, or mkosi's)
harness_root() {
        _r=$1
        mkdir -p "$_r/usr/local/sbin" "$_r/etc/systemd/system/multi-user.target.wants"
        install -m 755 "$vmdir/snapshot.sh" "$_r/usr/local/sbin/idlecfg-vm-snapshot"
        install -m 644 "$vmdir/idlecfg-vm-snapshot.service" "$_r/etc/systemd/system/"
        ln -sf /etc/systemd/system/idlecfg-vm-snapshot.service "$_r/etc/systemd/system/multi-user.target.wants/"
        ln -sf /lib/systemd/system/multi-user.target "$_r/etc/systemd/system/default.target"
        echo "UUID=$uuid / ext4 rw 0 1" >"$_r/etc/fstab"
        echo idlecfg-vm >"$_r/etc/hostname"
        # no logins: a getty opening tty2..6 adds vcs devices whenever it gets
        # there, a race with the snapshot, and nobody logs in anyway
        for u in getty@.service serial-getty@.service getty-static.service; do
                ln -sf /dev/null "$_r/etc/systemd/system/$u"
        done
        mkdir -p "$_r/etc/kernel" "$_r/etc/idlecfg-vm"
        echo "$base_cmdline" >"$_r/etc/kernel/cmdline"
        echo "$idle" >"$_r/etc/idlecfg-vm/idle"
        machine_root "$_r"
}

# pc: drivers loading in parallel number USB buses, ATA ports and sound cards
# in a different order from boot to boot (ehci-pci or uhci_hcd first), and the
# comparisons go by path; a modprobe.d file fixes the order, in the initramfs
# too (made once per run, then copied into each root). It holds for ATA ports
# and sound cards; USB bus numbers still raced once in three boots, so on pc
# compare.py compares them by controller (IDLECFG_VM_USB_BY_CONTROLLER).
machine_root() {
        [ "$machine" = pc ] || return 0
        cat >"$1/etc/modprobe.d/idlecfg-vm.conf" <<'EOF'
# idlecfg VM test (pc): a fixed load order, so that USB bus, ATA port and
# sound card numbers are the same in every boot
softdep uhci_hcd pre: ehci_pci
softdep ahci pre: ata_piix
options snd_intel8x0 index=0
options snd_usb_audio index=1
EOF
        _k=$(ls "$1/lib/modules")
        if [ -s "$mw/initrd.img" ]; then
                cp "$mw/initrd.img" "$1/boot/initrd.img-$_k"
                return
        fi
        _t=$(date +%s)
        env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 nice $chroot_cmd "$1" update-initramfs -u -k "$_k" \
                >"$mw/initramfs.log" 2>&1 || { diag "update-initramfs for the pc root:" "$(tail -n 20 "$mw/initramfs.log")"; return 1; }
        cp "$1/boot/initrd.img-$_k" "$mw/initrd.img"
        timing "$machine: update-initramfs with the load order (once)" "$(($(date +%s) - _t))"
}

# ---- the emulated machines ----
machine_desc() {
        case $1 in
        q35) echo "q35: AHCI (root and output disk), NVMe, HDA audio, xHCI with a USB keyboard, mouse and disk" ;;
        pc) echo "pc (i440FX): PIIX IDE (root and output disk), an ICH9 AHCI controller with six empty ports, ICH9 EHCI with three UHCI companions, a USB hub with a disk, USB audio and a tablet, AC97 audio" ;;
        esac
}
# the drivers that must be bound for the machine to be what it says it is
machine_drivers() {
        case $1 in
        q35) echo "ahci nvme snd_hda_intel xhci_hcd usbhid usb-storage" ;;
        pc) echo "ata_piix ahci ehci-pci uhci_hcd hub usb-storage snd-usb-audio usbhid snd_intel8x0" ;;
        esac
}

# boot NAME ROOT: the root as an ext4 image, booted on $machine with its
# kernel, initrd and /etc/kernel/cmdline; the output disk's tar goes to
# $work/$machine/NAME/out
boot() {
        _name=$1 _r=$2
        _d=$work/$machine/$_name
        mkdir -p "$_d"
        _kver=$(ls "$_r/lib/modules")
        rm -f "$_d/root.img" "$_d/out.img" "$_d/nvme.img" "$_d/usb.img"
        # $boot_image: an ext4 image booted as it is, kept across boots (the
        # image flow, tests/vm/image-flow.sh); ROOT then holds only the kernel,
        # initrd and /etc/kernel/cmdline read out of it
        if [ -n "${boot_image:-}" ]; then
                ln "$boot_image" "$_d/root.img"
        else mkfs.ext4 -q -F -L idlecfg-vm -U "$uuid" -d "$_r" "$_d/root.img" 3G >"$_d/mkfs.log" 2>&1; fi || {
                diag "mkfs.ext4 -d failed:" "$(cat "$_d/mkfs.log")"
                return 1
        }
        truncate -s 64M "$_d/out.img"
        truncate -s 256M "$_d/nvme.img" "$_d/usb.img"
        case $machine in
        q35)
                set -- -machine q35,accel=tcg \
                        -drive "if=none,id=root,file=$_d/root.img,format=raw" -device ide-hd,drive=root,bus=ide.0 \
                        -drive "if=none,id=out,file=$_d/out.img,format=raw" -device ide-hd,drive=out,bus=ide.1,serial=IDLECFG-OUT \
                        -device pcie-root-port,id=rp1,chassis=1,slot=1 \
                        -drive "if=none,id=nvme,file=$_d/nvme.img,format=raw" -device nvme,drive=nvme,serial=idlecfg0,bus=rp1 \
                        -audiodev none,id=snd0 -device intel-hda -device hda-duplex,audiodev=snd0 \
                        -device pcie-root-port,id=rp2,chassis=2,slot=2 -device qemu-xhci,id=xhci,bus=rp2 \
                        -device usb-kbd,bus=xhci.0 -device usb-mouse,bus=xhci.0 \
                        -drive "if=none,id=usbdisk,file=$_d/usb.img,format=raw" -device usb-storage,drive=usbdisk,bus=xhci.0
                ;;
        pc)
                # the disks on the PIIX IDE channels (one each: a master and a
                # slave would share a SCSI host), the AHCI ports all empty; the
                # full-speed hub and its devices go to a UHCI companion of the EHCI
                set -- -machine pc,accel=tcg \
                        -drive "if=none,id=root,file=$_d/root.img,format=raw" -device ide-hd,drive=root,bus=ide.0,unit=0 \
                        -drive "if=none,id=out,file=$_d/out.img,format=raw" -device ide-hd,drive=out,bus=ide.1,unit=0,serial=IDLECFG-OUT \
                        -device ich9-ahci,id=ahci \
                        -device ich9-usb-ehci1,id=ehci,addr=1d.7,multifunction=on \
                        -device ich9-usb-uhci1,masterbus=ehci.0,firstport=0,addr=1d.0,multifunction=on \
                        -device ich9-usb-uhci2,masterbus=ehci.0,firstport=2,addr=1d.1 \
                        -device ich9-usb-uhci3,masterbus=ehci.0,firstport=4,addr=1d.2 \
                        -device usb-hub,bus=ehci.0,port=1,id=hub \
                        -drive "if=none,id=usbdisk,file=$_d/usb.img,format=raw" -device usb-storage,drive=usbdisk,bus=ehci.0,port=1.1 \
                        -audiodev none,id=snd0 -device usb-audio,audiodev=snd0,bus=ehci.0,port=1.2 \
                        -device usb-tablet,bus=ehci.0,port=1.3 \
                        -device AC97,audiodev=snd0
                ;;
        esac
        # the nic flow (tests/vm/nic.sh): QEMU's e1000e on a user-mode network
        # of its own, and a QMP socket for set_link
        if [ -n "${boot_nic:-}" ] && [ "$machine" = q35 ]; then
                rm -f "$_d/qmp.sock"
                set -- "$@" -device pcie-root-port,id=rp3,chassis=3,slot=3 \
                        -netdev user,id=n0,restrict=on -device e1000e,netdev=n0,bus=rp3,mac=52:54:00:49:44:4c \
                        -qmp "unix:$_d/qmp.sock,server=on,wait=off"
        fi
        _t0=$(date +%s)
        timeout -k 10 "$boot_timeout" nice qemu-system-x86_64 "$@" -cpu max -smp 2 -m 1024 \
                -display none -vga none -monitor none -nic none -no-reboot \
                -serial "file:$_d/console.log" \
                -kernel "$_r/boot/vmlinuz-$_kver" -initrd "$_r/boot/initrd.img-$_kver" \
                -append "$(cat "$_r/etc/kernel/cmdline")" \
                </dev/null >"$_d/qemu.log" 2>&1
        _rc=$?
        boot_secs=$(($(date +%s) - _t0))
        timing "$machine: boot $_name under TCG (power on to power off)" "$boot_secs"
        rm -rf "$_d/out"
        mkdir -p "$_d/out"
        tar -C "$_d/out" -xf "$_d/out.img" 2>/dev/null
        rm -f "$_d/root.img" "$_d/out.img" "$_d/nvme.img" "$_d/usb.img"
        if [ "$_rc" -ne 0 ] || [ ! -s "$_d/out/snapshot.txt" ]; then
                [ "$_rc" -eq 124 ] && diag "$machine $_name: no power-off within $boot_timeout s (IDLECFG_VM_TIMEOUT)"
                diag "$machine $_name: qemu exit $_rc; qemu:" "$(tail -n 5 "$_d/qemu.log")" "console:" \
                        "$(tail -n 40 "$_d/console.log" 2>/dev/null)"
                return 1
        fi
        diag "$machine $_name: the guest settled at $(cat "$_d/out/settled") s of uptime, sampled runtime_status at $(cat "$_d/out/sampled" 2>/dev/null) s, powered off at $(cat "$_d/out/uptime") s"
        if [ "$(cat "$_d/out/cmdline")" != "$(cat "$_r/etc/kernel/cmdline")" ]; then
                diag "$machine $_name: booted with '$(cat "$_d/out/cmdline")', not /etc/kernel/cmdline"
                return 1
        fi
}

# machine_dir OUT DIR: the machine for tests/run-machine from a boot's output
# OUT (snapshot.sh with /etc/idlecfg-vm/record): the recording, the module
# parameters and the power/control of the ATA port directories
machine_dir() {
        mkdir -p "$2"
        cp "$1/vm.umockdev" "$2/machine.umockdev"
        awk -F'\t' '$1 ~ /^\/sys\/module\/[^\/]*\/parameters\// && $2 != "<unreadable>" {
                split($1, p, "/"); print p[4] "/" p[6] "=" $2 }' "$1/snapshot.txt" >"$2/modparams"
        awk -F'\t' '$1 ~ /^\/sys\/devices\/.*\/ata[0-9]+\/power\/control$/ && $1 !~ /\/ata_port\// && $2 != "<unreadable>" {
                print substr($1, 5) "=" $2 }' "$1/snapshot.txt" >"$2/sysattrs"
}

# ---- the peer: powertop, from Debian, into a copy of the root ----
# The packages the cached root lacks for powertop, fetched once with apt-get
# download on this machine (its apt sources must serve $suite) into
# $cache/powertop, then installed into a root with dpkg -i in a chroot.
powertop_debs() {
        _pd=$cache/powertop
        [ "$suite" = bookworm ] || _pd=$cache/powertop-$suite
        suite_apt || { powertop_why="apt-get update for $suite failed: $(tail -n 3 "$cache/apt-$suite/update.log")"; return 1; }
        _want="powertop for $suite: $($apt_cache policy powertop 2>/dev/null | awk '/Candidate:/ { print $2 }')"
        if [ -f "$_pd/key" ] && [ "$(cat "$_pd/key")" = "$_want" ] && ls "$_pd"/powertop_*.deb >/dev/null 2>&1; then
                powertop_source="from the cache $_pd"
                return 0
        fi
        command -v apt-get >/dev/null || { powertop_why="apt-get not found"; return 1; }
        $apt_cache policy powertop 2>/dev/null | grep -q "Candidate: [0-9]" ||
                { powertop_why="apt-cache knows no powertop (apt-get update?)"; return 1; }
        $apt_cache policy powertop | grep -q " $suite[/ ]" ||
                { powertop_why="this machine's apt sources do not serve powertop for $suite"; return 1; }
        # every package powertop needs, less those the cached root has
        _tr=$tmp/powertop-probe
        rm -rf "$_tr"
        mkdir -p "$_tr"
        zstd -dc "$tarball" | tar -C "$_tr" --numeric-owner -xpf - ./var/lib/dpkg/status || return 1
        dpkg-query --admindir="$_tr/var/lib/dpkg" -W -f '${Package}\n' 2>/dev/null | sort -u >"$tmp/root-pkgs"
        $apt_cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances \
                powertop 2>/dev/null | grep -v '^ ' | grep -v '^<' | sed 's/:amd64$//' | sort -u >"$tmp/powertop-pkgs"
        _need=$(comm -23 "$tmp/powertop-pkgs" "$tmp/root-pkgs")
        rm -rf "$_tr" "$_pd"
        mkdir -p "$_pd"
        # shellcheck disable=SC2086
        if ! (cd "$_pd" && $apt_get download -q $_need) >"$tmp/powertop-download.log" 2>&1; then
                powertop_why="apt-get download $_need failed: $(tail -n 3 "$tmp/powertop-download.log")"
                rm -rf "$_pd"
                return 1
        fi
        echo "$_want" >"$_pd/key"
        powertop_source="downloaded with apt-get ($(echo $_need))"
}

# the root for the powertop boot: powertop's packages and a oneshot unit that
# runs powertop --auto-tune once udev has settled, before the snapshot
powertop_root() {
        _r=$1
        unpack_root "$_r" || return 1
        mkdir -p "$_r/tmp/powertop-debs"
        cp "$_pd"/*.deb "$_r/tmp/powertop-debs/"
        env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 $chroot_cmd "$_r" sh -c 'dpkg -i /tmp/powertop-debs/*.deb' \
                >"$work/$machine/powertop-dpkg.log" 2>&1 || return 1
        rm -rf "$_r/tmp/powertop-debs"
        install -m 644 "$vmdir/idlecfg-vm-powertop.service" "$_r/etc/systemd/system/"
        ln -sf /etc/systemd/system/idlecfg-vm-powertop.service "$_r/etc/systemd/system/multi-user.target.wants/"
        [ -x "$_r/usr/sbin/powertop" ]
}

# measure_setup ROOT baseline|installed: /etc/idlecfg-vm/measure, which
# snapshot.sh runs over the last $measure_secs s of the idle time: before
# install the staged binary with the staged profiles, after install the
# installed one. The minbase root lacks inih's library (the package would
# depend on libinih1): the host's goes beside it.
measure_setup() {
        $has_measure || return 0
        _r=$1
        _lib=$_r/usr/local/lib/idlecfg-vm
        mkdir -p "$_lib"
        _inih=$(ldd "$pkg/src/idlecfg" 2>/dev/null | awk '$1 ~ /^libinih\.so/ { print $3 }')
        [ -n "$_inih" ] && cp -L "$_inih" "$_lib/"
        _bin=$(cd "$stage" && find . -path '*bin/idlecfg' -type f | head -n 1 | sed 's/^\.//')
        if [ "$2" = baseline ]; then
                cp "$stage$_bin" "$_lib/idlecfg"
                cp -R "$stage/usr/share/idlecfg/profiles" "$_lib/profiles"
                _cmd="/usr/local/lib/idlecfg-vm/idlecfg --profiles-dir /usr/local/lib/idlecfg-vm/profiles"
        else
                _cmd=$_bin
        fi
        printf '#!/bin/sh\nLD_LIBRARY_PATH=/usr/local/lib/idlecfg-vm exec %s measure --seconds %s "$@"\n' \
                "$_cmd" "$measure_secs" >"$_r/etc/idlecfg-vm/measure"
        chmod 755 "$_r/etc/idlecfg-vm/measure"
        echo "$measure_secs" >"$_r/etc/idlecfg-vm/measure-seconds"
}

# root_inih ROOT: the library the package depends on (libinih1), which the
# minbase root lacks: the host's, in the root's library directory, so that
# the units install writes (the power-source switch) can run idlecfg at boot
root_inih() {
        _inih=$(ldd "$pkg/src/idlecfg" 2>/dev/null | awk '$1 ~ /^libinih\.so/ { print $3 }')
        [ -n "$_inih" ] || return 0
        mkdir -p "$1/usr/lib/x86_64-linux-gnu" && cp -L "$_inih" "$1/usr/lib/x86_64-linux-gnu/"
}

# "N settings (mechanisms)" of a plan
summary() {
        python3 -c 'import json, sys
s = [x for x in json.load(open(sys.argv[1]))["settings"] if not x["skipped"]]
print("%d settings (%s)" % (len(s), ", ".join(sorted(set(x["mechanism"] for x in s)))))' "$1"
}

# the host-built idlecfg against the VM's recorded /sys and the given root
ic() {
        "$top_srcdir/tests/run-machine" "$work/$machine/machine" "$IDLECFG" "$@"
}

# IDLECFG_VM_FLOWS=uki: the UKI flow alone (tests/vm/uki.sh)
if [ "$uki_mode" = only ]; then
        mkdir -p "$work" || skip_all "cannot create $work"
        : >"$work/timings"
        plan "$(uki_npoints)"
        uki_flow
        done_testing
fi

# ---- the flow ----
for p in $profiles; do
        case $p in *[!a-z0-9_-]*|"") echo "Bail out! bad profile name '$p' in IDLECFG_VM_PROFILES"; exit 1 ;; esac
done
for machine in $machines; do
        [ -n "$(machine_desc "$machine")" ] || { echo "Bail out! unknown machine '$machine' in IDLECFG_VM_MACHINES (q35, pc)"; exit 1; }
done
case $idle in ''|*[!0-9]*) echo "Bail out! IDLECFG_VM_IDLE must be a number of seconds"; exit 1 ;; esac
for f in $flows; do
        case $f in main|power|nic|uki) ;; *) echo "Bail out! unknown flow '$f' in IDLECFG_VM_FLOWS (main, power, nic, uki)"; exit 1 ;; esac
done
for suite in $suites; do
        suite_known "$suite" || { echo "Bail out! unknown suite '$suite' in IDLECFG_VM_SUITES (bookworm, trixie)"; exit 1; }
done
mkdir -p "$work" || skip_all "cannot create $work"
# shellcheck disable=SC2086
(cd "$work" && rm -rf baseline machine pkg-build timings idle-summary idle-summary.suites debootstrap.log q35 pc $profiles)
: >"$work/timings"
: >"$work/idle-summary"
tsuite=$(date +%s)
nprof=$(echo $profiles | wc -w)
nmach=$(echo $machines | wc -w)
nsuites=$(echo $suites | wc -w)
for suite in $suites; do
        suite_setup "$suite"
        cache_valid || check_can_build
done
# idlecfg measure, where this idlecfg has it: run in the guest before and
# after install, checked against the kernel's runtime_status (idle.py)
has_measure=false
"$IDLECFG" --help 2>&1 | grep -q '^  measure ' && has_measure=true
measure_secs=10
nidle=2
$has_measure && nidle=3
# per machine: baseline boot, its devices, the powertop root and boot, then per
# profile 10 install/boot checks and 2 idle checks (3 with measure); the
# power flow's points
main_points=$((4 + (10 + nidle) * nprof + image_points + $(installer_npoints)))
flow_on main || main_points=0
power_points=0
flow_on power && power_points=$vm_power_npoints
# the nic flow: on q35 only
nic_points=0
flow_on nic && case " $machines " in *" q35 "*) nic_points=$vm_nic_npoints ;; esac
plan $((nsuites * (1 + nmach * (main_points + power_points) + nic_points) + $(uki_npoints)))
vm_power_source_note

# the package, built once for every suite
pkg=$work/pkg-build
mkdir -p "$pkg"
t0=$(date +%s)
( cd "$pkg" && "$top_srcdir/configure" -q --prefix=/usr --sysconfdir=/etc --localstatedir=/var \
        --with-udevdir=/usr/lib/udev --with-bashcompletiondir=/usr/share/bash-completion/completions &&
  make -s -j"$(nproc 2>/dev/null || echo 2)" ) >"$pkg/build.log" 2>&1
pkg_rc=$?
timing "configure and build the package (--prefix=/usr)" "$(($(date +%s) - t0))"
# for measure before install: the package staged, its binary and profiles
# copied into the baseline root outside the paths idlecfg installs to
stage=$work/stage
rm -rf "$stage"
if $has_measure && [ "$pkg_rc" -eq 0 ]; then
        make -s -C "$pkg" install DESTDIR="$stage" >"$work/stage.log" 2>&1 || has_measure=false
fi

for suite in $suites; do
suite_setup "$suite"
flow_on main && { installer_prepare || true; }
if [ "$work" != "$work_base" ]; then
        # shellcheck disable=SC2086
        mkdir -p "$work" && (cd "$work" && rm -rf baseline machine timings idle-summary debootstrap.log q35 pc $profiles)
        : >"$work/timings"
        : >"$work/idle-summary"
fi
diag "== suite $(suite_desc "$suite") =="
if ! build_cache; then
        not_ok "Debian $suite root (debootstrap --variant=minbase --include=$include$([ "$suite" = trixie ] && echo ", linux-image-amd64 from $suite-backports"))"
        echo "Bail out! no root to boot"
        exit 1
fi
ok "Debian $suite root $root_source"
powertop_ok=true
if [ "${IDLECFG_VM_POWERTOP:-yes}" = no ] || ! flow_on main; then
        powertop_ok=false
        powertop_why="IDLECFG_VM_POWERTOP=no"
else
        powertop_debs || powertop_ok=false
fi

for machine in $machines; do
        mw=$work/$machine
        mkdir -p "$mw"
        # compare.py: USB bus numbers race on pc (one bus per controller there)
        IDLECFG_VM_USB_BY_CONTROLLER=0
        [ "$machine" = pc ] && IDLECFG_VM_USB_BY_CONTROLLER=1
        export IDLECFG_VM_USB_BY_CONTROLLER
        left=$((main_points + power_points))
        [ "$machine" = q35 ] && left=$((left + nic_points))
        pass() { left=$((left - 1)); ok "$suite_tag$machine: $*"; }
        fail() { left=$((left - 1)); not_ok "$suite_tag$machine: $*"; }
        diag "== machine $(machine_desc "$machine") =="

        run_machine_boots() {
                # (a) the untouched image, booted: its power settings, its idle
                # state and its /sys for the host
                t0=$(date +%s)
                baseroot=$mw/baseline/root
                unpack_root "$baseroot" || { fail "unpack $tarball"; return 1; }
                timing "unpack the cached root" "$(($(date +%s) - t0))"
                touch "$baseroot/etc/idlecfg-vm/record"         # snapshot.sh: umockdev-record --all too
                measure_setup "$baseroot" baseline
                kver=$(ls "$baseroot/lib/modules")
                if boot baseline "$baseroot" && [ -s "$mw/baseline/out/vm.umockdev" ]; then
                        pass "baseline boot: powered off by itself after writing the snapshot and an umockdev recording ($boot_secs s)"
                else
                        fail "baseline boot: powered off by itself after writing the snapshot and an umockdev recording"
                        [ -s "$mw/baseline/out/record.err" ] && diag "umockdev-record:" "$(cat "$mw/baseline/out/record.err")"
                        return 1
                fi
                rm -rf "$baseroot"
                base=$mw/baseline/out
                # the machine for run-machine: the recording, the module
                # parameters and the power/control of the ATA port directories
                # (ataN: a device without a subsystem, which umockdev-record
                # leaves out; detect reads the port's runtime PM there), none of
                # which umockdev can record
                machine_dir "$base" "$mw/machine"
                missing=
                for drv in $(machine_drivers "$machine"); do
                        grep -qx "E: DRIVER=$drv" "$base/vm.umockdev" || missing="$missing $drv"
                done
                if [ "$machine" = q35 ]; then
                        [ "$(grep -cx 'E: DRIVER=usbhid' "$base/vm.umockdev")" -eq 2 ] || missing="$missing usbhid(keyboard+mouse)"
                fi
                if [ -z "$missing" ]; then
                        pass "the VM has its test devices bound ($(machine_drivers "$machine"))"
                else
                        fail "the VM has its test devices bound; missing:$missing"
                fi

                # (b) the peer: powertop --auto-tune after boot
                if $powertop_ok && powertop_root "$mw/powertop/root"; then
                        pass "powertop $(chroot "$mw/powertop/root" dpkg-query -W -f '${Version}' powertop) installed into a copy of the root ($powertop_source) with a oneshot unit running powertop --auto-tune after boot"
                        if boot powertop "$mw/powertop/root" && grep -qx 'Result=success' "$mw/powertop/out/tune-result" 2>/dev/null; then
                                pass "powertop boot: powertop --auto-tune ran (unit result success), powered off by itself ($boot_secs s)"
                        else
                                fail "powertop boot: powertop --auto-tune ran and the guest powered off by itself"
                                diag "$(cat "$mw/powertop/out/tune-result" 2>/dev/null)"
                        fi
                elif $powertop_ok; then
                        fail "powertop installed into a copy of the root"
                        diag "$(tail -n 20 "$mw/powertop-dpkg.log" 2>/dev/null)"
                        skip "$machine: powertop boot (no powertop root)"; left=$((left - 1))
                else
                        skip "$machine: powertop installed into a copy of the root: $powertop_why"; left=$((left - 1))
                        skip "$machine: powertop boot: $powertop_why"; left=$((left - 1))
                fi
                rm -rf "$mw/powertop/root"

                for p in $profiles; do
                        run_profile "$p" || true
                        rm -rf "$mw/$p/root"
                done
                # an image for the first profile, against its install
                image_flow "${profiles%% *}"
        }

        run_profile() {
                p=$1
                d=$mw/$p
                root=$d/root
                pleft=10
                tp=$(date +%s)
                mkdir -p "$d"
                ppass() { pleft=$((pleft - 1)); pass "$p: $*"; }
                pfail() { pleft=$((pleft - 1)); fail "$p: $*"; }
                install_and_boot || true
                while [ $pleft -gt 0 ]; do
                        pfail "(not reached: an earlier step failed)"
                done
                # (e) idle after $idle s: this profile against powertop and the baseline
                idle_compare "$p"
        }

        install_and_boot() {
                # (c) the package, then install under the recording, then what install says
                if [ "$pkg_rc" -eq 0 ] && unpack_root "$root" &&
                   make -s -C "$pkg" install DESTDIR="$root" >"$d/make-install.log" 2>&1 &&
                   root_inih "$root" &&
                   env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin $chroot_cmd "$root" systemd-hwdb --usr update >>"$d/make-install.log" 2>&1 &&
                   [ -f "$root/usr/share/idlecfg/profiles/$p.profile" ] && [ -f "$root/usr/lib/udev/rules.d/60-idlecfg.rules" ]; then
                        ppass "package installed into the root (make install DESTDIR, systemd-hwdb --usr update as udev's trigger does)"
                else
                        pfail "package installed into the root (make install DESTDIR, systemd-hwdb --usr update)"
                        diag "$(tail -n 20 "$pkg/build.log" "$d/make-install.log" 2>/dev/null)"
                        return 1
                fi

                if ic plan --json --root "$root" --kernel "$kver" --profile "$p" >"$d/plan.json" 2>"$d/plan.err" &&
                   python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$d/plan.json" 2>>"$d/plan.err"; then
                        ppass "idlecfg plan --json under the VM's recording: $(summary "$d/plan.json")"
                else
                        pfail "idlecfg plan --json under the VM's recording"
                        diag "$(cat "$d/plan.err")"
                        return 1
                fi

                ic install --root "$root" --kernel "$kver" --profile "$p" >"$d/install.out" 2>&1
                rc=$?
                # 4: done, the boot entry is made from /etc/kernel/cmdline later
                if { [ $rc -eq 0 ] || [ $rc -eq 4 ]; } &&
                   python3 - "$d/plan.json" "$root" "$base_cmdline" >"$d/files.err" 2>&1 <<'PY'
import json, os, sys
plan, root, before = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
s = [x for x in plan["settings"] if not x["skipped"]]
files = {"udev": "etc/udev/rules.d/70-idlecfg.rules", "modprobe": "etc/modprobe.d/idlecfg.conf",
         "tmpfiles": "etc/tmpfiles.d/idlecfg.conf"}
bad = []
for mech, f in files.items():
    if any(x["mechanism"] == mech for x in s) != os.path.isfile(os.path.join(root, f)):
        bad.append("%s: %s settings planned but %s %s" % (f, mech, "the file is" if os.path.isfile(os.path.join(root, f)) else "no file", "there"))
words = open(os.path.join(root, "etc/kernel/cmdline")).read().split()
if words[:len(before.split())] != before.split():
    bad.append("/etc/kernel/cmdline lost its words: %s" % " ".join(words))
for x in s:
    if x["mechanism"] == "cmdline":
        w = ("%s.%s=%s" % (x["module"], x["param"], x["value"])) if x["module"] else "%s=%s" % (x["param"], x["value"])
        if w not in words:
            bad.append("/etc/kernel/cmdline lacks %s" % w)
if not os.listdir(os.path.join(root, "var/lib/idlecfg")):
    bad.append("no manifest in /var/lib/idlecfg")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
                then
                        ppass "idlecfg install --root ROOT --kernel $kver --profile $p: rules, modprobe.d, tmpfiles.d, /etc/kernel/cmdline and manifest as planned"
                else
                        pfail "idlecfg install --root ROOT --kernel $kver --profile $p (exit $rc)"
                        diag "$(cat "$d/install.out" "$d/files.err")"
                        return 1
                fi

                # the next steps install printed (idlecfg(8), "Next steps"): "  * " (a
                # step the boot configuration needs) or four blanks, then "chroot
                # ROOT CMD", then its reason on a line "      (why)"; each runs once,
                # as printed; a step the harness does not know is a failure
                : >"$d/steps"
                : >"$d/steps.unknown"
                in=0
                while IFS= read -r line; do
                        case $line in
                        "Next steps"*) in=1; continue ;;
                        esac
                        [ $in = 1 ] || continue
                        case $line in
                        "  * chroot $root "*) line=${line#"  * chroot $root "}
                                grep -qxF -- "$line" "$d/steps" || printf '%s\n' "$line" >>"$d/steps" ;;
                        "    chroot $root "*) line=${line#"    chroot $root "}
                                grep -qxF -- "$line" "$d/steps" || printf '%s\n' "$line" >>"$d/steps" ;;
                        "      ("*|"  *: "*) ;;
                        "warning: "*) ;;
                        *) printf '%s\n' "$line" >>"$d/steps.unknown" ;;
                        esac
                done <"$d/install.out"
                steps_ok=true
                [ -s "$d/steps.unknown" ] && steps_ok=false
                set -f
                while IFS= read -r cmd; do
                        t0=$(date +%s)
                        # shellcheck disable=SC2086
                        env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 nice $chroot_cmd "$root" $cmd >>"$d/steps.log" 2>&1 ||
                                { steps_ok=false; echo "failed: $cmd" >>"$d/steps.log"; }
                        timing "$machine $p: chroot ROOT $cmd" "$(($(date +%s) - t0))"
                done <"$d/steps"
                set +f
                if $steps_ok; then
                        ppass "the installer steps install printed ran in a chroot of the root: $(paste -sd';' "$d/steps" | sed 's/;/; /g')"
                else
                        pfail "the installer steps install printed ran in a chroot of the root"
                        diag "$(cat "$d/steps.unknown" "$d/steps.log")"
                        return 1
                fi

                # (d) first boot with the installed configuration
                measure_setup "$root" installed
                if boot "$p" "$root"; then
                        ppass "boot with the installed configuration and '$(cat "$root/etc/kernel/cmdline")': powered off by itself ($boot_secs s)"
                else
                        pfail "boot with the installed configuration"
                        return 1
                fi
                timing "$machine $p: host side (unpack, package, plan, install, steps)" "$(($(date +%s) - tp - boot_secs))"

                # every planned setting live, nothing else moved
                python3 "$vmdir/compare.py" "$d/plan.json" "$base/snapshot.txt" "$d/out/snapshot.txt" \
                        "$base/vm.umockdev" >"$d/compare.out" 2>&1
                n=0
                while IFS= read -r line; do
                        case $line in
                        "ok	"*) ppass "${line#ok	}"; n=$((n + 1)) ;;
                        "not ok	"*) pfail "${line#not ok	}"; n=$((n + 1)) ;;
                        "# "*) echo "$line" ;;
                        *) diag "$line" ;;
                        esac
                done <"$d/compare.out"
                [ $n -eq 4 ] || { pfail "compare.py gave $n results, not 4"; return 1; }

                # the boot went as well as the baseline's: no new failed unit, no
                # warning about idlecfg's files or the command-line words it added
                new_failed=$(grep -v -x -F -f "$base/failed-units" "$d/out/failed-units")
                added=$(sed "s|^$base_cmdline||" "$root/etc/kernel/cmdline")
                pat=idlecfg
                for w in $added; do pat="$pat|$(printf '%s' "${w%%=*}" | sed 's/[.]/[.]/g')"; done
                # (idlecfg-vm is the harness: host name and snapshot unit)
                warn=$(grep -E "$pat" "$d/out/warnings.txt" | grep -v idlecfg-vm)
                if [ -z "$new_failed" ] && [ -z "$warn" ]; then
                        ppass "no failed unit beyond the baseline's, no warning about idlecfg's files or command-line words"
                else
                        pfail "no failed unit beyond the baseline's, no warning about idlecfg's files or command-line words"
                        diag "failed units: $new_failed" "warnings: $warn"
                fi
        }

        # the idle comparison of profile $1 (tests/vm/idle.py): $nidle results
        idle_compare() {
                _p=$1
                set -- --machine "$machine" --idle "$idle" --baseline "$base" --profile "$_p" "$mw/$_p/out" "$mw/$_p/plan.json"
                [ -s "$mw/powertop/out/idle.txt" ] && set -- "$@" --powertop "$mw/powertop/out"
                $has_measure && set -- "$@" --measure
                python3 "$vmdir/idle.py" "$@" >"$mw/$_p/idle.out" 2>&1
                n=0
                while IFS= read -r line; do
                        case $line in
                        "ok	"*) pass "$_p: ${line#ok	}"; n=$((n + 1)) ;;
                        "not ok	"*) fail "$_p: ${line#not ok	}"; n=$((n + 1)) ;;
                        "skip	"*) skip "$machine: $_p: ${line#skip	}"; left=$((left - 1)); n=$((n + 1)) ;;
                        "summary	"*) printf '%s\n' "${line#summary	}" >>"$work/idle-summary" ;;
                        "# "*) echo "$line" ;;
                        *) diag "$line" ;;
                        esac
                done <"$mw/$_p/idle.out"
                while [ $n -lt "$nidle" ]; do
                        fail "$_p: idle comparison (idle.py gave no result; see $mw/$_p/idle.out)"
                        n=$((n + 1))
                done
        }

        base=
        if flow_on main; then
                run_machine_boots || true
                installer_flows || true
        fi
        flow_on power && { vm_power_flow || true; }
        [ "$machine" = q35 ] && flow_on nic && { vm_nic_flow || true; }
        while [ $left -gt 0 ]; do
                fail "(not reached: an earlier step failed)"
        done
done
suite_done
done
work=$work_base
uki_flow
rm -rf "$pkg" "$stage"
timing "make check-vm, all of it" "$(($(date +%s) - tsuite))"
if [ -s "$work/idle-summary" ]; then
        diag "" "Runtime-suspended devices after $idle s of idle (power/runtime_status under /sys/devices):"
        diag "$(cat "$work/idle-summary")"
fi
[ -s "$work/idle-summary.suites" ] && diag "" "$(cat "$work/idle-summary.suites")"
done_testing
