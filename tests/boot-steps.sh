#!/bin/sh
# tests/boot-steps.sh: where install puts the kernel parameters on each boot
# scheme, and the steps (argv in JSON) it names for them: /etc/kernel/cmdline
# made from /usr/lib/kernel/cmdline and never from nothing (root=), a UKI
# made again after its initramfs, a bootc image's kargs.d file (checked with
# a TOML parser against bootc's keys), grubby on GRUB with BLS entries, the
# generator's own initramfs step, rpm-ostree on an OSTree root that is not
# running. Rollback takes each file back and names the steps that take the
# words and options out of the boot artifacts that still hold them (grub.cfg,
# BLS entries, a UKI's bytes, an initramfs made since): exit 4. No real boot
# tool runs here: argv only.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}" python3
if [ -z "${IDLECFG_IN_MACHINE:-}" ]; then
        rm -rf "$tmp"
        IDLECFG_IN_MACHINE=1 exec "$top_srcdir/tests/run-machine" "$TESTS_DATA/machines/desktop-sata" sh "$0" "$@"
fi
plan 41

WORDS=pcie_aspm.policy=default
# mk NAME: a root of the recorded machine with its kernel and an initramfs
mk() {
        _r=$tmp/$1
        mkroot_installed "$TESTS_DATA/machines/desktop-sata" "$_r" || { echo "Bail out! no root"; exit 1; }
        mkdir -p "$_r/var/lib" "$_r/run" "$_r/boot"
        echo initramfs >"$_r/boot/initrd.img-$KVER"
}
ic() { _r=$tmp/$1; shift; "$IDLECFG" --root "$_r" --kernel "$KVER" --profile balanced "$@"; }
# steps NAME: "id argv..." a line each (the root as @ROOT@), from install --json's output in $tmp/NAME.json
steps() {
        python3 - "$tmp/$1.json" "$tmp/$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["next_steps"]:
    argv = " ".join(a.replace(sys.argv[2], "@ROOT@") for a in s["argv"]) if s["argv"] is not None else "BY-HAND " + " ".join(s.get("words", []))
    print(s["id"], argv)
PY
}
mechanism() { python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["cmdline"]; print(c["mechanism"], c["path"])' "$tmp/$1.json"; }
# same NAME EXPECTED-FILE: the steps as expected
same_steps() {
        steps "$1" >"$tmp/$1.steps"
        if diff -u "$2" "$tmp/$1.steps" >"$tmp/$1.diff"; then ok "$1: steps $(tr '\n' ';' <"$2")"
        else not_ok "$1: steps"; diag "$(cat "$tmp/$1.diff")"; fi
}

# ---- kernel-install, layout uki, no /etc/kernel/cmdline: made from /usr/lib/kernel/cmdline ----
mk uki
mkdir -p "$tmp/uki/etc/kernel" "$tmp/uki/usr/lib/kernel" "$tmp/uki/usr/sbin"
printf 'layout=uki\n' >"$tmp/uki/etc/kernel/install.conf"
printf 'root=UUID=0b5b5f4e ro quiet\n' >"$tmp/uki/usr/lib/kernel/cmdline"
: >"$tmp/uki/usr/sbin/update-initramfs"
ic uki install --json >"$tmp/uki.json" 2>"$tmp/uki.err"; rc=$?
check "uki: install exits 4 (the image lacks the words)" test $rc -eq 4
check "uki: /etc/kernel/cmdline is the vendor's line and the words" \
        grep -qx "root=UUID=0b5b5f4e ro quiet $WORDS" "$tmp/uki/etc/kernel/cmdline"
check "uki: mechanism kernel-cmdline" test "$(mechanism uki)" = "kernel-cmdline /etc/kernel/cmdline"
printf '%s\n' "update-initramfs chroot @ROOT@ update-initramfs -u -k $KVER" \
        "kernel-install chroot @ROOT@ kernel-install add $KVER /boot/vmlinuz-$KVER" >"$tmp/uki.want"
same_steps uki "$tmp/uki.want"
# refresh --boot-steps (the rpm file triggers, the pacman hook, the kernel
# hook): the refresh, then the steps the root still lacks, run (here through
# the tests' logger: "chroot ROOT CMD..." to $TAKE_LOG; its lsinitramfs lists
# an initramfs without idlecfg's files)
take_logger "$tmp/log-cmd"
printf '%s\n' . usr/lib/modules/$KVER/kernel/drivers/ata/ahci.ko.xz >"$tmp/uki.list"
TAKE_LOG=$tmp/uki.take TAKE_LIST=$tmp/uki.list TAKE_ROOT=$tmp/uki IDLECFG_TEST_TAKE_EFFECT=$tmp/log-cmd \
        ic uki refresh --boot-steps >"$tmp/uki.rbs" 2>&1; rc=$?
check "uki: refresh --boot-steps runs the step the root still lacks (kernel-install: the UKI holds the initramfs), exit 0" sh -c "
        test $rc -eq 0 && grep -v '/lsinitramfs ' '$tmp/uki.take' >'$tmp/uki.ran' &&
        test \"\$(cat '$tmp/uki.ran')\" = 'chroot $tmp/uki kernel-install add $KVER /boot/vmlinuz-$KVER'"
last_failed && diag "exit $rc" "$(cat "$tmp/uki.rbs" "$tmp/uki.take" 2>&1)"
ic uki refresh --boot-steps --dry-run >"$tmp/uki.rbs2" 2>&1; rc=$?
check "uki: refresh --boot-steps --dry-run is a usage error that says why" sh -c "
        test $rc -eq 2 && grep -q 'refresh --boot-steps runs the boot steps: not with --dry-run' '$tmp/uki.rbs2'"
# what kernel-install makes: a UKI whose .cmdline holds the line (as text among its bytes)
mkdir -p "$tmp/uki/boot/efi/EFI/Linux"
uki=$tmp/uki/boot/efi/EFI/Linux/abc-$KVER.efi
{ printf 'MZ\0\0PE\0\0.cmdline\0'; printf '%s\0' "$(cat "$tmp/uki/etc/kernel/cmdline")"; } >"$uki"
ic uki rollback >"$tmp/uki.rb" 2>&1; rc=$?
check "uki: rollback removes the /etc/kernel/cmdline it made" test ! -e "$tmp/uki/etc/kernel/cmdline"
check "uki: rollback exits 4: the UKI still holds the words, kernel-install makes it again" sh -c "
        test $rc -eq 4 && grep -qF 'chroot $tmp/uki kernel-install add $KVER /boot/vmlinuz-$KVER' '$tmp/uki.rb'"

# ---- a root whose path JSON cannot hold (a byte that is not UTF-8), or with a newline ----
odd=$(printf 'odd\377')
mk "$odd"
mkdir -p "$tmp/$odd/etc/kernel"
printf 'root=/dev/vda2 rw\n' >"$tmp/$odd/etc/kernel/cmdline"
ic "$odd" install --json >"$tmp/odd.json" 2>"$tmp/odd.err"
check "a root path with a byte that is not UTF-8: the step's argv is null, argv_hex gives its bytes exactly" python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8", errors="strict"))
s = [s for s in d["next_steps"] if s["id"] == "kernel-install"][0]
assert s["argv"] is None, s
argv = [bytes.fromhex(a) for a in s["argv_hex"]]
assert argv[0] == b"chroot" and argv[1] == sys.argv[2].encode("utf-8", "surrogateescape") and argv[2] == b"kernel-install", argv
' "$tmp/odd.json" "$tmp/$odd"
nl=$(printf 'nl\nx')
mk "$nl"
ic "$nl" install >/dev/null 2>&1
ic "$nl" rollback --json >"$tmp/nl.json" 2>"$tmp/nl.err"
check "rollback --json with a newline in the root's path: each message whole, the path in it" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
root = sys.argv[2]
assert any(m == "removed " + root + "/etc/udev/rules.d/70-idlecfg.rules" for m in d["messages"]), d["messages"]
assert not any(m.startswith("x/") for m in d["messages"]), d["messages"]
' "$tmp/nl.json" "$tmp/$nl"

# ---- the same without /usr/lib/kernel/cmdline: no file that drops root= ----
mk bare
mkdir -p "$tmp/bare/etc/kernel"
printf 'layout=bls\n' >"$tmp/bare/etc/kernel/install.conf"
ic bare install --json >"$tmp/bare.json" 2>"$tmp/bare.err"
check "bare: no /etc/kernel/cmdline made" test ! -e "$tmp/bare/etc/kernel/cmdline"
check "bare: the words in /etc/idlecfg/cmdline" grep -qx "$WORDS" "$tmp/bare/etc/idlecfg/cmdline"
check "bare: said why, naming both files" grep -qF \
        "$tmp/bare/etc/kernel/cmdline: there is none, nor /usr/lib/kernel/cmdline: kernel-install would take" "$tmp/bare.err"

# ---- a malformed /usr/lib/kernel/cmdline: refused with file:line, nothing written ----
mk badline
mkdir -p "$tmp/badline/etc/kernel" "$tmp/badline/usr/lib/kernel"
printf 'layout=bls\n' >"$tmp/badline/etc/kernel/install.conf"
printf 'root=/dev/sda1 ro\nquiet\n' >"$tmp/badline/usr/lib/kernel/cmdline"
ic badline install >"$tmp/badline.out" 2>&1; rc=$?
check "badline: install refuses (exit 2, bad input) naming the file and line" sh -c "test $rc -eq 2 &&
        grep -qF '$tmp/badline/usr/lib/kernel/cmdline:2: expected one line of kernel parameters' '$tmp/badline.out'"
check "badline: nothing written" test ! -e "$tmp/badline/etc/kernel/cmdline" -a ! -e "$tmp/badline/etc/modprobe.d/idlecfg.conf"

# ---- a bootc image: kargs.d, checked against bootc's keys ----
mk bootc
mkdir -p "$tmp/bootc/usr/lib/bootc" "$tmp/bootc/usr/bin"
: >"$tmp/bootc/usr/bin/dracut"
ic bootc install --json >"$tmp/bootc.json" 2>"$tmp/bootc.err"
check "bootc: mechanism bootc-kargs" test "$(mechanism bootc)" = "bootc-kargs /usr/lib/bootc/kargs.d/50-idlecfg.toml"
if python3 -c 'import tomllib' 2>/dev/null; then
        check "bootc: kargs.d file is TOML with bootc's keys only, kargs the words" python3 - \
                "$tmp/bootc/usr/lib/bootc/kargs.d/50-idlecfg.toml" "$WORDS" <<'PY'
import sys, tomllib
d = tomllib.load(open(sys.argv[1], "rb"))
assert set(d) <= {"kargs", "match-architectures"}, d
assert d["kargs"] == sys.argv[2].split(), d
PY
else
        skip "bootc: kargs.d file is TOML with bootc's keys only" "python3 has no tomllib (3.11)"
fi
printf '%s\n' "update-initramfs chroot @ROOT@ dracut --force --kver $KVER" >"$tmp/bootc.want"
same_steps bootc "$tmp/bootc.want"
ic bootc rollback >/dev/null 2>&1
check "bootc: rollback removes the kargs.d file and the directory it made" test ! -e "$tmp/bootc/usr/lib/bootc/kargs.d"

# ---- GRUB with BLS entries: grubby, the entries' options ----
mk bls
mkdir -p "$tmp/bls/etc/default" "$tmp/bls/boot/loader/entries" "$tmp/bls/usr/sbin" "$tmp/bls/usr/bin"
printf 'GRUB_TIMEOUT=5\nGRUB_ENABLE_BLSCFG=true\n' >"$tmp/bls/etc/default/grub"
: >"$tmp/bls/usr/sbin/grub2-mkconfig"
: >"$tmp/bls/usr/bin/mkinitcpio"
entry=$tmp/bls/boot/loader/entries/abc-$KVER.conf
printf 'title Fedora\nversion %s\nlinux /vmlinuz-%s\noptions root=UUID=1 ro\n' "$KVER" "$KVER" >"$entry"
touch -d 2020-01-01 "$tmp/bls/boot/initrd.img-$KVER"
ic bls install --json >"$tmp/bls.json" 2>"$tmp/bls.err"; rc=$?
check "bls: install exits 4" test $rc -eq 4
check "bls: mechanism grubby, the words recorded in /etc/idlecfg/cmdline" sh -c "
        test \"\$(python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))[\"cmdline\"]; print(c[\"mechanism\"], c[\"path\"])' '$tmp/bls.json')\" = 'grubby /etc/idlecfg/cmdline' &&
        grep -qx '$WORDS' '$tmp/bls/etc/idlecfg/cmdline'"
printf '%s\n' "update-initramfs chroot @ROOT@ mkinitcpio -P" \
        "grubby chroot @ROOT@ grubby --update-kernel=ALL --args=$WORDS" >"$tmp/bls.want"
same_steps bls "$tmp/bls.want"
# what grubby and mkinitcpio do: the entry's options, a new image
sed -i "s|^options .*|& $WORDS|" "$entry"
touch "$tmp/bls/boot/initrd.img-$KVER"
ic bls install >"$tmp/bls2.out" 2>&1; rc=$?
check "bls: once the entries have the words, install exits 0" test $rc -eq 0
check "bls: the grub.d snippet is not written (GRUB with BLS does not read it)" \
        test ! -e "$tmp/bls/etc/default/grub.d/idlecfg.cfg"
ic bls rollback >"$tmp/bls.rb" 2>&1; rc=$?
check "bls: rollback exits 4 and names grubby --remove-args for the entries that hold the words" sh -c "
        test $rc -eq 4 && grep -qF 'chroot $tmp/bls grubby --update-kernel=ALL --remove-args=$WORDS' '$tmp/bls.rb' &&
        grep -qF 'chroot $tmp/bls mkinitcpio -P' '$tmp/bls.rb'" 

# ---- an OSTree deployment that is not running: rpm-ostree kargs is for a booted host ----
mk ostree
mkdir -p "$tmp/ostree/ostree"
rm -f "$tmp/ostree/boot/initrd.img-$KVER"
ic ostree install --json >"$tmp/ostree.json" 2>"$tmp/ostree.err"
check "ostree: mechanism rpm-ostree" test "$(mechanism ostree)" = "rpm-ostree /etc/idlecfg/cmdline"
printf '%s\n' "rpm-ostree-kargs BY-HAND $WORDS" >"$tmp/ostree.want"
same_steps ostree "$tmp/ostree.want"

# ---- Debian's GRUB: the grub.d snippet and update-grub, even with an /etc/kernel/cmdline ----
mk debian
mkdir -p "$tmp/debian/etc/default" "$tmp/debian/usr/sbin" "$tmp/debian/etc/kernel"
printf 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"\n' >"$tmp/debian/etc/default/grub"
: >"$tmp/debian/usr/sbin/update-grub"
: >"$tmp/debian/usr/sbin/update-initramfs"
printf 'root=/dev/sda1 ro\n' >"$tmp/debian/etc/kernel/cmdline"
ic debian install --json >"$tmp/debian.json" 2>"$tmp/debian.err"
check "debian: mechanism grub, /etc/kernel/cmdline (which GRUB does not read) untouched" sh -c "
        test \"\$(python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))[\"cmdline\"]; print(c[\"mechanism\"], c[\"path\"])' '$tmp/debian.json')\" = 'grub /etc/default/grub.d/idlecfg.cfg' &&
        grep -qx 'root=/dev/sda1 ro' '$tmp/debian/etc/kernel/cmdline'"
printf '%s\n' "update-initramfs chroot @ROOT@ update-initramfs -u -k $KVER" \
        "update-grub chroot @ROOT@ update-grub" >"$tmp/debian.want"
same_steps debian "$tmp/debian.want"
# update-grub and update-initramfs ran: grub.cfg has the words, the initramfs is newer than the options
mkdir -p "$tmp/debian/boot/grub"
printf 'menuentry x {\n\tlinux /vmlinuz-%s root=/dev/sda1 ro quiet %s\n}\n' "$KVER" "$WORDS" >"$tmp/debian/boot/grub/grub.cfg"
touch "$tmp/debian/boot/initrd.img-$KVER"
# a later grub.d file that assigns the variable without idlecfg's words: a warning naming it, and no
# update-grub step (none could give the kernel the words): not exit 4 on every run
mkdir -p "$tmp/debian/etc/default/grub.d"
printf 'GRUB_CMDLINE_LINUX_DEFAULT="quiet splash"\n' >"$tmp/debian/etc/default/grub.d/zz-admin.cfg"
ic debian install --json >"$tmp/debian.zz.json" 2>"$tmp/debian.zz.err"; rc=$?
check "debian: a later zz-admin.cfg without the words is a warning naming it, no update-grub step, exit 0" sh -c "
        test $rc -eq 0 && grep -qF '$tmp/debian/etc/default/grub.d/zz-admin.cfg sets the kernel command line of GRUB without idlecfg'\''s words ($WORDS), after /etc/default/grub.d/idlecfg.cfg' '$tmp/debian.zz.err' &&
        ! grep -q '\"update-grub\"' '$tmp/debian.zz.json'"
rm "$tmp/debian/etc/default/grub.d/zz-admin.cfg"
ic debian rollback --json >"$tmp/debian.rb.json" 2>"$tmp/debian.rb.err"; rc=$?
printf '%s\n' "update-initramfs chroot @ROOT@ update-initramfs -u -k $KVER" \
        "update-grub chroot @ROOT@ update-grub" >"$tmp/debian.rb.want"
steps debian.rb >"$tmp/debian.rb.got" 2>&1 || true
check "debian: rollback --json exits 4 (exit 4 in the JSON too), naming update-initramfs then update-grub" sh -c "
        test $rc -eq 4 && python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))[\"exit\"] == 4' '$tmp/debian.rb.json' &&
        sed 's|$tmp/debian|@ROOT@|' '$tmp/debian.rb.got' | diff -u '$tmp/debian.rb.want' -"
check "debian: the grub.d snippet is gone, /etc/kernel/cmdline as it was" sh -c "
        test ! -e '$tmp/debian/etc/default/grub.d/idlecfg.cfg' && grep -qx 'root=/dev/sda1 ro' '$tmp/debian/etc/kernel/cmdline'"
# a second rollback (a second state=absent) while grub.cfg still holds the word: update-grub said again, exit 4
ic debian rollback --json >"$tmp/debian.rb2.json" 2>"$tmp/debian.rb2.err"; rc=$?
check "debian: a second rollback while grub.cfg holds the word: exit 4, update-grub in next_steps, said why" sh -c "
        test $rc -eq 4 && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d[\"exit\"] == 4 and d[\"boot_incomplete\"], d
assert [s[\"id\"] for s in d[\"next_steps\"]] == [\"update-grub\"], d[\"next_steps\"]
assert any(\"rolled back before\" in m and \"($WORDS)\" in m for m in d[\"messages\"]), d[\"messages\"]
' '$tmp/debian.rb2.json'"
ic debian verify >"$tmp/debian.v2" 2>&1; rc=$?
check "debian: verify after it says the boot configuration still holds the word (exit 4 or drift)" sh -c "
        { test $rc -eq 4 || test $rc -eq 1; } && grep -qF 'left from before rollback: the boot configuration' '$tmp/debian.v2' &&
        grep -qF 'update-grub' '$tmp/debian.v2'"
# update-grub ran: the next rollback has nothing left, and the note goes with the state directory
printf 'menuentry x {\n\tlinux /vmlinuz-%s root=/dev/sda1 ro quiet\n}\n' "$KVER" >"$tmp/debian/boot/grub/grub.cfg"
ic debian rollback >"$tmp/debian.rb3" 2>&1; rc=$?
check "debian: once grub.cfg lacks the word: rollback exits 0, nothing to roll back, no state left" sh -c "
        test $rc -eq 0 && grep -q '^Nothing to roll back' '$tmp/debian.rb3' && test ! -e '$tmp/debian/var/lib/idlecfg'"
# once grub.cfg is made again without the words and the initramfs predates the options: nothing left, exit 0
mk debian2
mkdir -p "$tmp/debian2/etc/default" "$tmp/debian2/usr/sbin" "$tmp/debian2/boot/grub"
printf 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"\n' >"$tmp/debian2/etc/default/grub"
: >"$tmp/debian2/usr/sbin/update-grub"
touch -d 2020-01-01 "$tmp/debian2/boot/initrd.img-$KVER"
ic debian2 install >/dev/null 2>&1
printf 'menuentry x {\n\tlinux /vmlinuz-%s root=/dev/sda1 ro quiet\n}\n' "$KVER" >"$tmp/debian2/boot/grub/grub.cfg"
ic debian2 rollback >"$tmp/debian2.rb" 2>&1; rc=$?
check "debian: a rollback whose boot artifacts hold nothing of idlecfg exits 0 and names no step" sh -c "
        test $rc -eq 0 && ! grep -q 'update-grub\|update-initramfs' '$tmp/debian2.rb'"

# ---- systemd-boot with its /etc/kernel/cmdline: appended, kernel-install ----
mk sdboot
mkdir -p "$tmp/sdboot/boot/efi/EFI/systemd" "$tmp/sdboot/etc/kernel" "$tmp/sdboot/etc/default"
: >"$tmp/sdboot/boot/efi/EFI/systemd/systemd-bootx64.efi"
: >"$tmp/sdboot/etc/default/grub"
printf 'root=/dev/vda2 rw\n' >"$tmp/sdboot/etc/kernel/cmdline"
ic sdboot install --json >"$tmp/sdboot.json" 2>"$tmp/sdboot.err"
check "sdboot: appended to /etc/kernel/cmdline" grep -qx "root=/dev/vda2 rw $WORDS" "$tmp/sdboot/etc/kernel/cmdline"
printf '%s\n' "update-initramfs chroot @ROOT@ update-initramfs -u -k $KVER" \
        "kernel-install chroot @ROOT@ kernel-install add $KVER /boot/vmlinuz-$KVER" >"$tmp/sdboot.want"
same_steps sdboot "$tmp/sdboot.want"
# the administrator adds a word of their own: rollback takes idlecfg's out, word by word, and keeps theirs
sed -i 's/$/ mitigations=off/' "$tmp/sdboot/etc/kernel/cmdline"
ic sdboot rollback >"$tmp/sdboot.rb" 2>&1; rc=$?
check "sdboot: rollback of an edited /etc/kernel/cmdline takes idlecfg's word out and keeps the administrator's" sh -c "
        test $rc -eq 0 && grep -qx 'root=/dev/vda2 rw mitigations=off' '$tmp/sdboot/etc/kernel/cmdline' &&
        grep -qF \"took idlecfg's words ($WORDS) out of $tmp/sdboot/etc/kernel/cmdline\" '$tmp/sdboot.rb' &&
        test ! -e '$tmp/sdboot/var/lib/idlecfg/manifest'"
# a line rewritten around idlecfg's word: the word is still told apart (the line install wrote has
# the manifest's checksum), and only it goes
printf 'root=/dev/vda2 rw\n' >"$tmp/sdboot/etc/kernel/cmdline"
ic sdboot install >/dev/null 2>&1
printf 'root=/dev/vda3 %s quiet\n' "$WORDS" >"$tmp/sdboot/etc/kernel/cmdline"
ic sdboot rollback >"$tmp/sdboot.rb2" 2>&1; rc=$?
check "sdboot: a line rewritten around idlecfg's word loses that word only" sh -c "
        test $rc -eq 0 && grep -qx 'root=/dev/vda3 quiet' '$tmp/sdboot/etc/kernel/cmdline'"
# a line without idlecfg's word: nothing to tell apart; left alone (exit 1), the state kept
printf 'root=/dev/vda2 rw\n' >"$tmp/sdboot/etc/kernel/cmdline"
ic sdboot install >/dev/null 2>&1
printf 'root=/dev/vda3 quiet\n' >"$tmp/sdboot/etc/kernel/cmdline"
ic sdboot rollback >"$tmp/sdboot.rb3" 2>&1; rc=$?
check "sdboot: a line rewritten without idlecfg's word is left alone (exit 1) with the manifest kept" sh -c "
        test $rc -eq 1 && grep -qx 'root=/dev/vda3 quiet' '$tmp/sdboot/etc/kernel/cmdline' &&
        test -f '$tmp/sdboot/var/lib/idlecfg/manifest'"
done_testing
