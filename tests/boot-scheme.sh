#!/bin/sh
# tests/boot-scheme.sh: the target's boot scheme and initramfs generator,
# found from its files (src/root/bootscheme.c), as plan and install say them
# (text and JSON, with the reason); malformed install.conf lines named with
# file:line. Each case is a root made of empty marker files.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}" python3
# one umockdev session of a recorded machine for the whole script
if [ -z "${IDLECFG_IN_MACHINE:-}" ]; then
        rm -rf "$tmp"
        IDLECFG_IN_MACHINE=1 exec "$top_srcdir/tests/run-machine" "$TESTS_DATA/machines/desktop-sata" sh "$0" "$@"
fi
plan 24

# mk NAME FILE...: a root holding those files (a trailing / makes a directory)
mk() {
        _r=$tmp/$1
        shift
        mkdir -p "$_r"
        for _f in "$@"; do
                case $_f in
                */) mkdir -p "$_r$_f" ;;
                *) mkdir -p "$_r$(dirname "$_f")" && : >>"$_r$_f" ;;
                esac
        done
}
ic() { _r=$tmp/$1; shift; "$IDLECFG" --root "$_r" --kernel "$KVER" --profiles-dir "$top_srcdir/profiles" "$@"; }
# boot NAME: "scheme initramfs booted|reason|initramfs_reason" of plan --json
boot() {
        ic "$1" plan --json 2>"$tmp/$1.err" | python3 -c '
import json, sys
b = json.load(sys.stdin)["boot"]
print("%s %s %s|%s|%s" % (b["scheme"], b["initramfs"], str(b["booted"]).lower(), b["reason"], b["initramfs_reason"]))'
}
# is NAME "SCHEME INITRAMFS BOOTED" REASON-PART: the scheme, and its reason names what it was told by
is() {
        _got=$(boot "$1")
        case $_got in
        "$2|"*"$3"*) ok "$1: $2 ($3)" ;;
        *) not_ok "$1: $2 ($3)"; diag "got: $_got" "$(cat "$tmp/$1.err")" ;;
        esac
}

mk empty /etc/
is empty "none none false" "no GRUB, kernel-install layout, systemd-boot, bootc or OSTree"
mk debian /etc/default/grub /usr/sbin/update-grub /usr/sbin/update-initramfs
is debian "grub initramfs-tools false" "GRUB is there (/etc/default/grub)"
case $(boot debian) in
*"|/usr/sbin/update-initramfs is there") ok "debian: initramfs-tools from update-initramfs" ;;
*) not_ok "debian: initramfs-tools from update-initramfs"; diag "$(boot debian)" ;;
esac
# Fedora: GRUB reading BLS entries (the setting in a grub.d file counts too)
mk fedora /etc/default/grub /usr/sbin/grub2-mkconfig /boot/loader/entries/ /usr/bin/dracut
printf 'GRUB_TIMEOUT=5\nGRUB_ENABLE_BLSCFG=true\n' >"$tmp/fedora/etc/default/grub"
is fedora "grub-bls dracut false" "GRUB_ENABLE_BLSCFG=true"
mk fedora-off /etc/default/grub /etc/default/grub.d/ /usr/sbin/grub2-mkconfig /boot/loader/entries/
printf 'GRUB_ENABLE_BLSCFG=true\n' >"$tmp/fedora-off/etc/default/grub"
printf 'GRUB_ENABLE_BLSCFG=false\n' >"$tmp/fedora-off/etc/default/grub.d/50-local.cfg"
is fedora-off "grub none false" "GRUB is there"
mk fedora-noentries /etc/default/grub
printf 'GRUB_ENABLE_BLSCFG=true\n' >"$tmp/fedora-noentries/etc/default/grub"
is fedora-noentries "grub none false" "GRUB is there"
# kernel-install's layout: /etc/kernel/install.conf, else /usr/lib/kernel/install.conf
mk uki /etc/kernel/ /usr/sbin/update-initramfs /etc/default/grub
printf '# local\nlayout=uki\n' >"$tmp/uki/etc/kernel/install.conf"
is uki "kernel-install-uki initramfs-tools false" "layout=uki in /etc/kernel/install.conf:2"
mk bls-usr /usr/lib/kernel/
printf 'layout="bls"\ninitrd_generator=dracut\n' >"$tmp/bls-usr/usr/lib/kernel/install.conf"
is bls-usr "kernel-install-bls dracut false" "layout=bls in /usr/lib/kernel/install.conf:1"
case $(boot bls-usr) in
*"|initrd_generator=dracut in /usr/lib/kernel/install.conf:2") ok "bls-usr: the generator install.conf names" ;;
*) not_ok "bls-usr: the generator install.conf names"; diag "$(boot bls-usr)" ;;
esac
# the first install.conf there is the only one read: /etc's without a layout hides /usr/lib's
mk etc-hides /etc/kernel/ /usr/lib/kernel/
printf '# nothing\n' >"$tmp/etc-hides/etc/kernel/install.conf"
printf 'layout=uki\n' >"$tmp/etc-hides/usr/lib/kernel/install.conf"
is etc-hides "none none false" "no GRUB"
mk sdboot /boot/efi/EFI/systemd/systemd-bootx64.efi /etc/default/grub /usr/bin/mkinitcpio
is sdboot "systemd-boot mkinitcpio false" "systemd-boot is installed (/boot/efi/EFI/systemd/systemd-bootx64.efi)"
mk sdboot-conf /boot/loader/loader.conf
is sdboot-conf "systemd-boot none false" "(/boot/loader/loader.conf)"
mk kcmdline-grub /etc/kernel/cmdline /etc/default/grub /boot/loader/entries/a.conf
is kcmdline-grub "kernel-install-bls none false" "/etc/kernel/cmdline and the boot entries in /boot/loader/entries are there"
mk kcmdline /etc/kernel/cmdline
is kcmdline "kernel-install-bls none false" "/etc/kernel/cmdline is there and no GRUB"
mk bootc /usr/lib/bootc/kargs.d/ /ostree/ /etc/default/grub /run/ostree-booted /usr/bin/dracut
is bootc "bootc dracut false" "/usr/lib/bootc is there: a bootc image"
mk ostree /ostree/ /boot/loader/entries/
is ostree "ostree none false" "/ostree is there"
# what is no KEY=VALUE line, an unclosed quote, a layout nobody knows: named, and ignored
mk badconf /etc/kernel/ /etc/default/grub
printf 'layout=uki\nnot a setting\nuki_generator="ukify\nlayout=weird\n' >"$tmp/badconf/etc/kernel/install.conf"
is badconf "grub none false" "GRUB is there"
check "badconf: the line without '=' named with file:line" \
        grep -qF "$tmp/badconf/etc/kernel/install.conf:2: not a KEY=VALUE line" "$tmp/badconf.err"
check "badconf: the unclosed quote named with file:line" \
        grep -qF "$tmp/badconf/etc/kernel/install.conf:3: not a KEY=VALUE line" "$tmp/badconf.err"
check "badconf: the unknown layout named with file:line" \
        grep -qF "$tmp/badconf/etc/kernel/install.conf:4: layout=weird is none that kernel-install knows" \
        "$tmp/badconf.err"
mk otherlayout /etc/kernel/ /usr/bin/dracut
printf 'layout=other\ninitrd_generator=booster\n' >"$tmp/otherlayout/etc/kernel/install.conf"
is otherlayout "none dracut false" "layout=other in /etc/kernel/install.conf:1 leaves the command line"

# plan's text and install (text and JSON) say it too
# (text wrapped at 80 columns: compared as one line)
ic debian plan 2>&1 | tr '\n' ' ' >"$tmp/plan.txt"
check "plan text: the boot scheme and the generator, with their reasons" sh -c "
        grep -qF ' Boot scheme grub: GRUB is there (/etc/default/grub): grub-mkconfig makes grub.cfg ' '$tmp/plan.txt' &&
        grep -qF ' Initramfs generator initramfs-tools: /usr/sbin/update-initramfs is there ' '$tmp/plan.txt'"
mkdir -p "$tmp/debian/var/lib" "$tmp/debian/run"
mkmodroot "$tmp/debian" || { echo "Bail out! no module tree"; exit 1; }
ic debian install --json >"$tmp/install.json" 2>"$tmp/install.err"
check "install --json: the boot object" python3 -c '
import json, sys
b = json.load(open(sys.argv[1]))["boot"]
assert b["scheme"] == "grub" and b["initramfs"] == "initramfs-tools" and "/etc/default/grub" in b["reason"], b' \
        "$tmp/install.json"
ic debian rollback >/dev/null 2>&1
ic debian install 2>&1 | tr '\n' ' ' >"$tmp/install.txt"
check "install text: the boot scheme line" grep -qF \
        ' Boot scheme grub: GRUB is there (/etc/default/grub): grub-mkconfig makes grub.cfg ' "$tmp/install.txt"
done_testing
