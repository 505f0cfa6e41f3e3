#!/bin/sh
# tests/boot-tools.sh: the steps install and rollback name, run for real
# with the tools Debian ships, each taken from the JSON: grub-mkconfig of
# this Debian 12 host (as tests/grub.sh runs it, tests/mkconfig.sh) for a
# root with Debian's GRUB, and update-initramfs (initramfs-tools) in a
# debootstrapped Debian 12 root with linux-image-amd64, in a private mount
# namespace through the step's own chroot. After install and its steps the
# artifact (grub.cfg, the initramfs listed by lsinitramfs) holds idlecfg's
# word or modprobe.d file; after rollback and its steps, none of it. The
# Debian root is debootstrapped once and kept under $IDLECFG_TEST_ROOTS
# (/var/cache/idlecfg-test-roots) as a tarball keyed by the debootstrap
# call. Every point skips with its reason when a tool, root privileges or
# the root (and a way to make it: debootstrap and the mirror) is missing.
# dracut (dracut --force --kver, lsinitrd) runs in a Debian 12 root with
# dracut the same way, /proc, /sys and /dev bound in its namespace.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod python3 "${CC:-cc}"
PATH=$PATH:/sbin:/usr/sbin
plan 16

WORDS=pcie_aspm.policy=default
dir=$TESTS_DATA/machines/desktop-sata
have() { command -v "$1" >/dev/null 2>&1; }
ic() { _r=$1; shift; run_machine "$dir" "$IDLECFG" --root "$_r" --profile "${profile:-balanced}" "$@"; }
# steps_of JSON ID: the argv of the step ID, one word a line (none: nothing)
steps_of() {
        python3 - "$1" "$2" <<'PY'
import json, sys
for s in json.load(open(sys.argv[1]))["next_steps"]:
    if s["id"] == sys.argv[2] and s["argv"]:
        print("\n".join(s["argv"]))
PY
}

# ---- grub-mkconfig: Debian's GRUB, the words through grub.d/idlecfg.cfg ----
. "$top_srcdir/tests/mkconfig.sh"
g=$tmp/grub
mkroot_installed "$dir" "$g" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$g/var/lib" "$g/run" "$g/etc/default" "$g/usr/sbin" "$g/boot/grub"
printf 'GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT="quiet"\nGRUB_CMDLINE_LINUX=""\n' >"$g/etc/default/grub"
: >"$g/usr/sbin/update-grub"
# the step is run as the root's update-grub would: grub-mkconfig of the root's files into its grub.cfg
update_grub() {
        steps_of "$1" update-grub >"$tmp/argv"
        [ "$(tail -n 1 "$tmp/argv")" = update-grub ] && mkconfig "$g" "$g/boot/grub/grub.cfg" >"$tmp/linux"
}
if [ -z "$can_mkconfig" ]; then
        for i in 1 2 3 4; do skip "grub-mkconfig" "needs root, unshare and grub-mkconfig (Debian's grub2-common)"; done
else
        ic "$g" install --json >"$tmp/g.json" 2>"$tmp/g.err"; rc=$?
        check "grub: install exits 4 and names update-grub" sh -c "test $rc -eq 4 && grep -q '\"update-grub\"' '$tmp/g.json'"
        update_grub "$tmp/g.json"
        check "grub: after the step, grub-mkconfig's normal entry has the word" grep -qw -- "$WORDS" "$tmp/linux"
        ic "$g" rollback --json >"$tmp/g.rb.json" 2>&1; rc=$?
        update_grub "$tmp/g.rb.json"
        check "grub: rollback exits 4 naming update-grub, and after it the entry has no word of idlecfg" sh -c "
                test $rc -eq 4 && test -s '$tmp/linux' && ! grep -q 'pcie_aspm' '$tmp/linux'"
        ic "$g" rollback --json >"$tmp/g.rb2.json" 2>&1; rc=$?
        check "grub: nothing left: exit 0, no step" sh -c "test $rc -eq 0 && ! grep -q '\"update-grub\"' '$tmp/g.rb2.json'"
fi

# ---- update-initramfs in a Debian 12 root with its kernel ----
# the roots: cached_root (tests/lib.sh), keyed "(boot 1)"
bookworm_root() { have unshare || { why="no unshare"; return 1; }; cached_root "$1" bookworm bookworm-boot linux-image-amd64,initramfs-tools,zstd,kmod boot; }
# run_step ROOT ARGV: the step's argv (chroot ROOT update-initramfs ...) with
# /proc in ROOT, in a private mount namespace
run_step() {
        unshare -m sh -ec 'mount --make-rprivate / 2>/dev/null || true; mount -t proc proc "$0/proc"; exec "$@"' \
                "$@" >"$tmp/step.log" 2>&1
}
# holds: the modprobe.d file of idlecfg in the kernel's initramfs, as lsinitramfs lists it
holds() { chroot "$B" lsinitramfs "/boot/initrd.img-$K" | grep -qx 'etc/modprobe.d/idlecfg.conf'; }
B=$tmp/bookworm
why=
if bookworm_root "$B"; then
        K=$(ls "$B/lib/modules" | head -n 1)
        root_idlecfg_data "$B"
        ic "$B" --kernel "$K" install --json >"$tmp/b.json" 2>"$tmp/b.err"; rc=$?
        steps_of "$tmp/b.json" update-initramfs >"$tmp/argv"
        check "bookworm: install names update-initramfs -u -k $K through chroot (exit $rc)" sh -c "
                test $rc -eq 4 && test -f '$B/etc/modprobe.d/idlecfg.conf' &&
                test \"\$(tr '\n' ' ' <'$tmp/argv')\" = 'chroot $B update-initramfs -u -k $K '"
        run_step "$B" $(cat "$tmp/argv")
        check "bookworm: after the step, lsinitramfs lists etc/modprobe.d/idlecfg.conf" holds
        ic "$B" rollback --json >"$tmp/b.rb.json" 2>&1; rc=$?
        steps_of "$tmp/b.rb.json" update-initramfs >"$tmp/argv"
        run_step "$B" $(cat "$tmp/argv")
        holds && left=1 || left=0
        check "bookworm: rollback exits 4 naming update-initramfs; after it the initramfs holds no idlecfg.conf" sh -c "
                test $rc -eq 4 && test -s '$tmp/argv' && test ! -e '$B/etc/modprobe.d/idlecfg.conf' && test $left -eq 0"
        ic "$B" rollback --json >"$tmp/b.rb2.json" 2>&1; rc=$?
        check "bookworm: nothing left: exit 0" test $rc -eq 0
else
        for i in 1 2 3 4; do skip "update-initramfs in a Debian 12 root" "$why"; done
fi

# ---- kernel-install, layout uki, ukify and systemd-boot's stub in a Debian 13 root ----
# (python3-cffi-backend by name: debootstrap resolves no virtual package, and
# systemd-ukify's python3-zstandard needs python3-cffi-backend-api-min/max)
trixie_root() {
        cached_root "$1" trixie trixie-boot \
                linux-image-amd64,initramfs-tools,zstd,kmod,systemd,systemd-ukify,systemd-boot-efi,binutils,python3-cffi-backend boot
}
T=$tmp/trixie
why=
# the UKI kernel-install made in the root, and its .cmdline section (objcopy of the root)
uki_of() { find "$T/boot" -path '*/EFI/Linux/*.efi' | head -n 1; }
uki_cmdline() {
        _u=$(uki_of) && [ -n "$_u" ] && chroot "$T" objcopy --dump-section ".cmdline=/tmp/cmdline" "${_u#"$T"}" /tmp/uki.copy &&
                tr -d '\0' <"$T/tmp/cmdline"
}
# run_steps JSON: every boot step of the JSON with an argv, in order, in the root
run_steps() {
        python3 - "$1" <<'PY' >"$tmp/steps.list"
import json, sys
for s in json.load(open(sys.argv[1]))["next_steps"]:
    if s["boot"] and s["argv"]:
        print("\t".join(s["argv"]))
PY
        while IFS='	' read -r a b c d e f g; do
                run_step "$T" $a $b $c $d $e $f $g || { cat "$tmp/step.log"; return 1; }
        done <"$tmp/steps.list"
}
if trixie_root "$T"; then
        K=$(ls "$T/lib/modules" | head -n 1)
        # Debian 13's kernel has "default" as its ASPM policy: powersave's word is one it needs
        profile=powersave WORDS=pcie_aspm.policy=powersupersave
        mkdir -p "$T/boot/efi/EFI/Linux" "$T/boot/efi/loader/entries"
        root_idlecfg_data "$T"
        root_uki_layout "$T" 'root=/dev/vda2 rw'
        ic "$T" --kernel "$K" install --json >"$tmp/t.json" 2>"$tmp/t.err"; rc=$?
        check "trixie: install makes /etc/kernel/cmdline from /usr/lib/kernel/cmdline and names update-initramfs, then kernel-install (exit $rc)" sh -c "
                test $rc -eq 4 && grep -qx 'root=/dev/vda2 rw $WORDS' '$T/etc/kernel/cmdline' &&
                python3 -c 'import json, sys; assert [s[\"id\"] for s in json.load(open(sys.argv[1]))[\"next_steps\"] if s[\"boot\"]] == [\"update-initramfs\", \"kernel-install\"]' '$tmp/t.json'"
        run_steps "$tmp/t.json" >"$tmp/t.run" 2>&1
        uki_cmdline >"$tmp/t.cmdline" 2>"$tmp/t.objcopy"
        check "trixie: after the steps, the UKI's .cmdline (objcopy) is the vendor's line and the word" \
                grep -qx "root=/dev/vda2 rw $WORDS *" "$tmp/t.cmdline" ||
                diag "$(cat "$tmp/t.run" "$tmp/t.objcopy" "$tmp/t.cmdline")"
        ic "$T" rollback --json >"$tmp/t.rb.json" 2>&1; rc=$?
        run_steps "$tmp/t.rb.json" >"$tmp/t.rb.run" 2>&1
        uki_cmdline >"$tmp/t.rb.cmdline" 2>&1
        check "trixie: rollback exits 4 naming kernel-install; after its steps the UKI's .cmdline has no word of idlecfg" sh -c "
                test $rc -eq 4 && grep -q '\"kernel-install\"' '$tmp/t.rb.json' && grep -q 'root=/dev/vda2 rw' '$tmp/t.rb.cmdline' &&
                ! grep -q pcie_aspm '$tmp/t.rb.cmdline'"
        ic "$T" rollback --json >"$tmp/t.rb2.json" 2>&1; rc=$?
        check "trixie: nothing left: exit 0" test $rc -eq 0
        last_failed && diag "exit $rc" "$(cat "$tmp/t.rb2.json")"
else
        for i in 1 2 3 4; do skip "kernel-install, ukify and a UKI in a Debian 13 root" "$why"; done
fi

# ---- dracut in a Debian 12 root: dracut --force --kver, lsinitrd ----
# Debian's dracut makes generic images, which carry no /etc/modprobe.d (its
# 90kernel-modules copies it in hostonly mode only): the root is set hostonly
# as Fedora's dracut is (01-dist.conf), and the image then holds the options.
# debootstrap cannot take linux-image-amd64 beside dracut (it resolves the
# kernel's "initramfs-tools | linux-initramfs-tool" to initramfs-tools, which
# conflicts with dracut): the root is dracut's (cached as bookworm-dracut),
# the kernel (its image and modules) the bookworm-boot root's.
dracut_root() {
        have unshare || { why="no unshare"; return 1; }
        cached_root "$1" bookworm bookworm-dracut dracut,zstd,kmod,binutils,cpio boot || return 1
        cached_root "$tmp/kernel" bookworm bookworm-boot linux-image-amd64,initramfs-tools,zstd,kmod boot || return 1
        _k=$(ls "$tmp/kernel/usr/lib/modules" | head -n 1)
        mkdir -p "$1/usr/lib/modules" "$1/etc/dracut.conf.d" &&
                mv "$tmp/kernel/usr/lib/modules/$_k" "$1/usr/lib/modules/" &&
                cp -p "$tmp/kernel/boot/vmlinuz-$_k" "$tmp/kernel/boot/config-$_k" "$tmp/kernel/boot/System.map-$_k" "$1/boot/" &&
                printf 'hostonly="yes"\n' >"$1/etc/dracut.conf.d/90-idlecfg-test-hostonly.conf" || { why="cannot put the kernel into the root"; return 1; }
        rm -rf "$tmp/kernel"
}
# run_step_dev ROOT ARGV: the step's argv with /proc, /sys and /dev in ROOT
# and a tmpfs on its /run (dracut leaves host-only mode without one), in a
# private mount namespace
run_step_dev() {
        unshare -m sh -ec 'mount --make-rprivate / 2>/dev/null || true; mount -t proc proc "$0/proc"
                mount --rbind /sys "$0/sys"; mount --rbind /dev "$0/dev"; mount -t tmpfs tmpfs "$0/run"
                exec "$@"' "$@" >"$tmp/step.log" 2>&1
}
# dracut_holds: lsinitrd of the root lists etc/modprobe.d/idlecfg.conf in the kernel's image
dracut_holds() { chroot "$D" lsinitrd "/boot/initrd.img-$K" | awk '{ print $NF }' | grep -qx 'etc/modprobe.d/idlecfg.conf'; }
D=$tmp/dracut
why=
if dracut_root "$D"; then
        K=$(ls "$D/usr/lib/modules" | head -n 1)
        profile=powersave
        root_idlecfg_data "$D"
        # the kernel's image as its package makes it, before idlecfg
        run_step_dev "$D" chroot "$D" dracut --force --kver "$K" || diag "dracut before install:" "$(tail -n 5 "$tmp/step.log")"
        ic "$D" --kernel "$K" install --json >"$tmp/d.json" 2>"$tmp/d.err"; rc=$?
        steps_of "$tmp/d.json" update-initramfs >"$tmp/argv"
        check "dracut: install writes the options and names dracut --force --kver $K through chroot (exit $rc)" sh -c "
                test $rc -eq 4 && grep -q '^options ' '$D/etc/modprobe.d/idlecfg.conf' &&
                test \"\$(tr '\n' ' ' <'$tmp/argv')\" = 'chroot $D dracut --force --kver $K '"
        t0=$(date +%s)
        run_step_dev "$D" $(cat "$tmp/argv")
        diag "dracut --force --kver $K in the root: $(($(date +%s) - t0)) s"
        check "dracut: after the step, lsinitrd lists etc/modprobe.d/idlecfg.conf" dracut_holds
        last_failed && diag "$(tail -n 5 "$tmp/step.log")"
        ic "$D" rollback --json >"$tmp/d.rb.json" 2>&1; rc=$?
        steps_of "$tmp/d.rb.json" update-initramfs >"$tmp/argv"
        run_step_dev "$D" $(cat "$tmp/argv")
        dracut_holds && left=1 || left=0
        check "dracut: rollback exits 4 naming dracut; after it lsinitrd lists no idlecfg.conf" sh -c "
                test $rc -eq 4 && grep -qx dracut '$tmp/argv' && test ! -e '$D/etc/modprobe.d/idlecfg.conf' && test $left -eq 0"
        ic "$D" rollback --json >"$tmp/d.rb2.json" 2>&1; rc=$?
        check "dracut: nothing left: exit 0" test $rc -eq 0
else
        for i in 1 2 3 4; do skip "dracut in a Debian 12 root" "$why"; done
fi
done_testing
