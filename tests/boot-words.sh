#!/bin/sh
# tests/boot-words.sh: the kernel command line words on GRUB roots where a
# grub.d file cannot carry them, and idlecfg's own words never read as the
# administrator's. A grub-mkconfig that sources /etc/default/grub only
# (upstream's, openSUSE's, Fedora's: the grub.d loop is a Debian patch; here
# Debian's script with that loop taken out) and a readonly
# GRUB_CMDLINE_LINUX_DEFAULT: no snippet, the words in /etc/idlecfg/cmdline
# and a step by hand for /etc/default/grub, asked until grub.cfg has them;
# rollback names taking them out. The steps are done as an administrator
# would and grub-mkconfig runs for real (tests/mkconfig.sh: a private mount
# namespace; those points skip without root, unshare or grub-mkconfig).
# Then the plan of a profile change after an install: idlecfg's own grub.d
# snippet is not the administrator's command line; and on GRUB with BLS
# entries, a profile change names taking out the words the earlier profile
# gave the entries (grubby --remove-args; the steps done here as grubby
# does them, on the entries' options), never the administrator's.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod python3 "${CC:-cc}"
PATH=$PATH:/sbin:/usr/sbin
plan 56

WORDS=pcie_aspm.policy=default
dir=$TESTS_DATA/machines/desktop-sata
ic() { _r=$1; shift; run_machine "$dir" "$IDLECFG" --root "$_r" --kernel "$KVER" --profile "${profile:-balanced}" "$@"; }
mk() {
        mkroot_installed "$dir" "$1" || { echo "Bail out! no root"; exit 1; }
        mkdir -p "$1/var/lib" "$1/run" "$1/etc/default" "$1/usr/sbin"
}
# steps JSON ROOT: "id argv..." a line each (the root as @ROOT@), BY-HAND and the words for a step by hand
steps() {
        python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["next_steps"]:
    argv = " ".join(a.replace(sys.argv[2], "@ROOT@") for a in s["argv"]) if s["argv"] is not None else "BY-HAND " + " ".join(s.get("words", []))
    print(s["id"], argv)
PY
}
same_steps() {
        if steps "$1" "$2" | diff -u "$3" - >"$tmp/steps.diff"; then ok "$4"
        else not_ok "$4"; diag "$(cat "$tmp/steps.diff")"; fi
}

. "$top_srcdir/tests/mkconfig.sh"
# upstream's grub-mkconfig: Debian's without its loop over /etc/default/grub.d/*.cfg
sed '/default\/grub\.d\/\*\.cfg/,/^done$/d' /usr/sbin/grub-mkconfig >"$tmp/grub-mkconfig.upstream" 2>/dev/null
chmod +x "$tmp/grub-mkconfig.upstream" 2>/dev/null
# mkconfig_by SCRIPT DIR OUT: as mkconfig (tests/mkconfig.sh), with SCRIPT as grub-mkconfig
mkconfig_by() {
        unshare -m sh -ec '
                mount --make-rprivate / 2>/dev/null || true
                mount -t tmpfs idlecfg-test /etc/default
                cp -R "$1/etc/default/." /etc/default/
                mount --bind "$2/boot" /boot
                mount --bind "$2/grub.d" /etc/grub.d
                mount --bind "$2/grub-probe" "$(command -v grub-probe)"
                mount --bind "$4" "$(command -v grub-mkconfig)"
                grub-mkconfig -o "$3"' sh "$2" "$tmp" "$3" "$1" >"$tmp/mkconfig.log" 2>&1 || return 1
        awk '$1 == "linux" { for (i = 5; i <= NF; i++) printf "%s%s", $i, (i < NF ? " " : ""); print ""; exit }' "$3"
}
# add_words FILE WORDS: what the step by hand asks, done with sed: the words at the end of
# GRUB_CMDLINE_LINUX_DEFAULT's value (its last quote)
add_words() { sed -i "/GRUB_CMDLINE_LINUX_DEFAULT=/s/\"\$/ $2\"/" "$1"; }
del_words() { sed -i "/GRUB_CMDLINE_LINUX_DEFAULT=/s/ $2//" "$1"; }

# ---- N21: a grub2-mkconfig that reads /etc/default/grub only ----
s=$tmp/suse
mk "$s"
mkdir -p "$s/boot/grub2"
printf 'GRUB_DEFAULT=saved\nGRUB_CMDLINE_LINUX_DEFAULT="splash=silent quiet"\nGRUB_CMDLINE_LINUX=""\n' >"$s/etc/default/grub"
cp "$tmp/grub-mkconfig.upstream" "$s/usr/sbin/grub2-mkconfig"
ic "$s" install --json >"$tmp/s.json" 2>"$tmp/s.err"; rc=$?
check "no-grub.d: install exits 4, writes no grub.d snippet (never read), the words in /etc/idlecfg/cmdline" sh -c "
        test $rc -eq 4 && test ! -e '$s/etc/default/grub.d/idlecfg.cfg' && grep -qx '$WORDS' '$s/etc/idlecfg/cmdline'"
check "no-grub.d: a warning names the grub2-mkconfig that reads /etc/default/grub only, and what to do" grep -qF \
        "/usr/sbin/grub2-mkconfig sources /etc/default/grub only, never /etc/default/grub.d/idlecfg.cfg: idlecfg writes no snippet there and keeps the kernel parameters in /etc/idlecfg/cmdline; add them to GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub by hand" \
        "$tmp/s.err"
printf '%s\n' "grub-default-words BY-HAND $WORDS" "update-grub chroot @ROOT@ grub2-mkconfig -o /boot/grub2/grub.cfg" \
        >"$tmp/s.want"
same_steps "$tmp/s.json" "$s" "$tmp/s.want" "no-grub.d: steps: the words into /etc/default/grub by hand, then grub2-mkconfig"
add_words "$s/etc/default/grub" "$WORDS"
if [ -n "$can_mkconfig" ]; then
        mkconfig_by "$tmp/grub-mkconfig.upstream" "$s" "$s/boot/grub2/grub.cfg" >"$tmp/s.linux"
        check "no-grub.d: after the steps, this grub-mkconfig's normal entry has the word" \
                grep -qw -- "$WORDS" "$tmp/s.linux"
else
        printf 'menuentry x {\n\tlinux /vmlinuz root=/dev/sda1 ro splash=silent quiet %s\n}\n' "$WORDS" \
                >"$s/boot/grub2/grub.cfg"
        skip "no-grub.d: after the steps, this grub-mkconfig's normal entry has the word" \
                "needs root, unshare and grub-mkconfig (Debian's grub2-common)"
fi
ic "$s" install --json >"$tmp/s2.json" 2>/dev/null; rc=$?
steps "$tmp/s2.json" "$s" >"$tmp/s2.json.steps" 2>&1
check "no-grub.d: once grub.cfg has the words, install exits 0 and asks nothing (not forever)" sh -c "
        test $rc -eq 0 && test ! -s '$tmp/s2.json.steps'"
ic "$s" rollback --json >"$tmp/s.rb.json" 2>&1; rc=$?
printf '%s\n' "grub-default-words-remove BY-HAND $WORDS" \
        "update-grub chroot @ROOT@ grub2-mkconfig -o /boot/grub2/grub.cfg" >"$tmp/s.rb.want"
check "no-grub.d: rollback exits 4 and removes /etc/idlecfg/cmdline" sh -c "test $rc -eq 4 && test ! -e '$s/etc/idlecfg/cmdline'"
same_steps "$tmp/s.rb.json" "$s" "$tmp/s.rb.want" \
        "no-grub.d: rollback's steps: the words out of /etc/default/grub by hand, then grub2-mkconfig"
del_words "$s/etc/default/grub" "$WORDS"
if [ -n "$can_mkconfig" ]; then
        mkconfig_by "$tmp/grub-mkconfig.upstream" "$s" "$s/boot/grub2/grub.cfg" >"$tmp/s.linux"
else
        printf 'menuentry x {\n\tlinux /vmlinuz root=/dev/sda1 ro splash=silent quiet\n}\n' >"$s/boot/grub2/grub.cfg"
fi
ic "$s" rollback --json >"$tmp/s.rb2.json" 2>&1; rc=$?
steps "$tmp/s.rb2.json" "$s" >"$tmp/s.rb2.json.steps" 2>&1
check "no-grub.d: once they are out of grub.cfg, rollback exits 0 naming nothing" sh -c "
        test $rc -eq 0 && test ! -s '$tmp/s.rb2.json.steps'"

# ---- N22: a readonly GRUB_CMDLINE_LINUX_DEFAULT: a snippet assigning it would stop grub-mkconfig ----
d=$tmp/ro
mk "$d"
mkdir -p "$d/boot/grub"
printf 'GRUB_DEFAULT=0\nreadonly GRUB_CMDLINE_LINUX_DEFAULT="quiet"\nGRUB_CMDLINE_LINUX=""\n' >"$d/etc/default/grub"
: >"$d/usr/sbin/update-grub"
cp /usr/sbin/grub-mkconfig "$d/usr/sbin/grub-mkconfig" 2>/dev/null || printf '. /etc/default/grub.d/x\n' >"$d/usr/sbin/grub-mkconfig"
ic "$d" install --json >"$tmp/d.json" 2>"$tmp/d.err"; rc=$?
check "readonly: install exits 4, writes no grub.d snippet, a warning names the readonly's line" sh -c "
        test $rc -eq 4 && test ! -e '$d/etc/default/grub.d/idlecfg.cfg' &&
        grep -qF '$d/etc/default/grub:2: GRUB_CMDLINE_LINUX_DEFAULT is readonly: a snippet assigning it (/etc/default/grub.d/idlecfg.cfg) would stop grub-mkconfig' '$tmp/d.err'"
printf '%s\n' "grub-default-words BY-HAND $WORDS" "update-grub chroot @ROOT@ update-grub" >"$tmp/d.want"
same_steps "$tmp/d.json" "$d" "$tmp/d.want" "readonly: steps: the words onto the readonly line by hand, then update-grub"
if [ -n "$can_mkconfig" ]; then
        check "readonly: grub-mkconfig still makes grub.cfg after install (no \"is read only\")" \
                mkconfig "$d" "$tmp/d.cfg"
        add_words "$d/etc/default/grub" "$WORDS"
        mkconfig "$d" "$d/boot/grub/grub.cfg" >"$tmp/d.linux"
        check "readonly: after the steps, grub-mkconfig's normal entry has the word" grep -qw -- "$WORDS" "$tmp/d.linux"
else
        skip "readonly: grub-mkconfig still makes grub.cfg after install" "needs root, unshare and grub-mkconfig"
        skip "readonly: after the steps, grub-mkconfig's normal entry has the word" "needs root, unshare and grub-mkconfig"
        add_words "$d/etc/default/grub" "$WORDS"
        printf 'menuentry x {\n\tlinux /vmlinuz root=/dev/sda1 ro quiet %s\n}\n' "$WORDS" >"$d/boot/grub/grub.cfg"
fi
ic "$d" verify --json >/dev/null 2>&1
ic "$d" install --json >"$tmp/d2.json" 2>/dev/null; rc=$?
steps "$tmp/d2.json" "$d" >"$tmp/d2.json.steps" 2>&1
check "readonly: once grub.cfg has the words, install exits 0 and asks nothing" sh -c "
        test $rc -eq 0 && test ! -s '$tmp/d2.json.steps'"

# ---- I8: idlecfg's own snippet is not the administrator's command line ----
g=$tmp/deb
mk "$g"
mkdir -p "$g/boot/grub"
# Debian's stock file: GRUB_DISTRIBUTOR from a command substitution, which no kernel parameter takes
printf 'GRUB_DEFAULT=0\nGRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`\nGRUB_CMDLINE_LINUX_DEFAULT="quiet"\n' \
        >"$g/etc/default/grub"
: >"$g/usr/sbin/update-grub"
printf 'CONFIG_PCIEASPM=y\nCONFIG_PCIEASPM_DEFAULT=y\n' >"$g/boot/config-$KVER"
profile=powersave ic "$g" install >/dev/null 2>"$tmp/g.install.err"
check "own words: the powersave install wrote its policy into the snippet" \
        grep -q 'pcie_aspm.policy=powersupersave' "$g/etc/default/grub.d/idlecfg.cfg"
ic "$g" plan --format=cmdline >"$tmp/g.cmdline" 2>"$tmp/g.err"
ic "$g" plan >"$tmp/g.plan" 2>&1
check "own words: plan --profile balanced after it plans no pcie_aspm.policy (the kernel's default already)" sh -c "
        ! grep -q 'pcie_aspm.policy' '$tmp/g.cmdline' &&
        grep -qF 'default is the target kernel'\''s default policy already' '$tmp/g.plan'"
check "Debian's GRUB_DISTRIBUTOR=\`lsb_release ...\`: no warning from install or plan (no kernel parameter takes it)" \
        sh -c "! grep -q 'command substitution' '$tmp/g.install.err' '$tmp/g.err' '$tmp/g.plan'"
sed -i 's/^GRUB_CMDLINE_LINUX_DEFAULT="quiet/GRUB_CMDLINE_LINUX_DEFAULT="$X quiet/; s/^GRUB_CMDLINE_LINUX_DEFAULT=.*/X=`cat \/x`\n&/' \
        "$g/etc/default/grub"
ic "$g" plan >/dev/null 2>"$tmp/g.err3"
check "a command substitution in a variable GRUB_CMDLINE_LINUX_DEFAULT takes: warned, naming its line" \
        grep -qF "$g/etc/default/grub:3: a command substitution \`...\` is not run" "$tmp/g.err3"
sed -i '/^X=/d; s/\$X //' "$g/etc/default/grub"
# the administrator's own word in /etc/default/grub still counts
sed -i 's/quiet/quiet pcie_aspm.policy=performance/' "$g/etc/default/grub"
ic "$g" plan >"$tmp/g.plan2" 2>&1
check "own words: an administrator's policy word in /etc/default/grub still counts" \
        sh -c "! grep -qF 'default policy already' '$tmp/g.plan2'"

# ---- idlecfg's own words in /etc/kernel/cmdline (kernel-install) are not the administrator's ----
u=$tmp/kiown
mk "$u"
mkdir -p "$u/boot/efi/EFI/systemd" "$u/etc/kernel"
: >"$u/boot/efi/EFI/systemd/systemd-bootx64.efi"
printf 'root=/dev/vda2 rw\n' >"$u/etc/kernel/cmdline"
printf 'CONFIG_PCIEASPM=y\nCONFIG_PCIEASPM_DEFAULT=y\n' >"$u/boot/config-$KVER"
profile=powersave ic "$u" install >/dev/null 2>&1
check "own words: the powersave install wrote its policy into /etc/kernel/cmdline" \
        grep -qx 'root=/dev/vda2 rw pcie_aspm.policy=powersupersave' "$u/etc/kernel/cmdline"
ic "$u" plan --format=cmdline >"$tmp/u.cmdline" 2>&1
ic "$u" plan >"$tmp/u.plan" 2>&1
check "own words: plan --profile balanced after it reads idlecfg's word in /etc/kernel/cmdline as its own (the kernel's default)" sh -c "
        ! grep -q 'pcie_aspm.policy' '$tmp/u.cmdline' &&
        grep -qF 'default is the target kernel'\''s default policy already' '$tmp/u.plan'"
ic "$u" install >/dev/null 2>&1
check "own words: install --profile balanced then gives /etc/kernel/cmdline back as it was" \
        grep -qx 'root=/dev/vda2 rw' "$u/etc/kernel/cmdline"
# the administrator's own policy word there still counts
profile=powersave ic "$u" install >/dev/null 2>&1
sed -i 's/$/ pcie_aspm.policy=performance/' "$u/etc/kernel/cmdline"
ic "$u" plan >"$tmp/u.plan2" 2>&1
check "own words: an administrator's policy word added to /etc/kernel/cmdline after install still counts" \
        sh -c "! grep -qF 'default policy already' '$tmp/u.plan2'"

# ---- N20: GRUB with BLS entries that carry the word already (the administrator's) ----
b=$tmp/bls
mk "$b"
mkdir -p "$b/boot/loader/entries" "$b/usr/bin"
printf 'GRUB_TIMEOUT=5\nGRUB_ENABLE_BLSCFG=true\n' >"$b/etc/default/grub"
: >"$b/usr/sbin/grub2-mkconfig"
printf 'title Fedora\nversion %s\nlinux /vmlinuz-%s\noptions root=UUID=1 ro %s\n' "$KVER" "$KVER" "$WORDS" \
        >"$b/boot/loader/entries/abc-$KVER.conf"
ic "$b" install --json >"$tmp/b.json" 2>"$tmp/b.err"; rc=$?
steps "$tmp/b.json" "$b" >"$tmp/b.json.steps" 2>&1
check "bls, the entries have the word already: install exits 0, names no grubby, records no word of its own" sh -c "
        test $rc -eq 0 && test ! -s '$tmp/b.json.steps' && test ! -e '$b/etc/idlecfg/cmdline'"
ic "$b" rollback --json >"$tmp/b.rb.json" 2>&1; rc=$?
check "... rollback exits 0 and names no grubby --remove-args (the word is the administrator's)" sh -c "
        test $rc -eq 0 && ! grep -q 'remove-args' '$tmp/b.rb.json' && grep -q '$WORDS' '$b/boot/loader/entries/abc-$KVER.conf'"

# ---- N23: /etc/kernel/cmdline that holds the words already; its line end kept ----
k=$tmp/sdboot
mk "$k"
mkdir -p "$k/boot/efi/EFI/systemd" "$k/etc/kernel"
: >"$k/boot/efi/EFI/systemd/systemd-bootx64.efi"
printf 'root=/dev/vda2\trw %s\n' "$WORDS" >"$k/etc/kernel/cmdline"
cp "$k/etc/kernel/cmdline" "$tmp/k.before"
ic "$k" install --json >"$tmp/k.json" 2>"$tmp/k.err"; rc=$?
steps "$tmp/k.json" "$k" >"$tmp/k.json.steps" 2>&1
check "cmdline has the words: install writes nothing there, records no replaced file, names no kernel-install (exit 0)" sh -c "
        test $rc -eq 0 && cmp -s '$tmp/k.before' '$k/etc/kernel/cmdline' &&
        ! grep -q '^file /etc/kernel/cmdline' '$k/var/lib/idlecfg/manifest' && test ! -s '$tmp/k.json.steps'"
printf 'root=/dev/vda2\trw %s mitigations=off\n' "$WORDS" >"$k/etc/kernel/cmdline"
ic "$k" rollback >"$tmp/k.rb" 2>&1; rc=$?
check "... the administrator appends a word: rollback exits 0 and keeps the line as they made it" sh -c "
        test $rc -eq 0 && grep -qx \"\$(printf 'root=/dev/vda2\\trw $WORDS mitigations=off')\" '$k/etc/kernel/cmdline' &&
        test ! -e '$k/var/lib/idlecfg/manifest'"
for form in crlf nonl; do
        case $form in crlf) printf 'root=/dev/vda2\trw\r\n' ;; nonl) printf 'root=/dev/vda2\trw' ;; esac \
                >"$k/etc/kernel/cmdline"
        cp "$k/etc/kernel/cmdline" "$tmp/k.$form"
        ic "$k" install >/dev/null 2>&1
        case $form in crlf) printf 'root=/dev/vda2\trw %s\r\n' "$WORDS" ;; nonl) printf 'root=/dev/vda2\trw %s' "$WORDS" ;; esac \
                >"$tmp/k.$form.want"
        check "$form: install adds the word and keeps the tab and the line end" cmp "$tmp/k.$form.want" "$k/etc/kernel/cmdline"
        ic "$k" rollback >/dev/null 2>&1
        check "$form: rollback gives the file back byte for byte" cmp "$tmp/k.$form" "$k/etc/kernel/cmdline"
        # again, installed twice, with the administrator's word appended in between
        ic "$k" install >/dev/null 2>&1
        ic "$k" install >/dev/null 2>&1
        check "$form: a second install keeps the tab and the line end" cmp "$tmp/k.$form.want" "$k/etc/kernel/cmdline"
        case $form in crlf) printf 'root=/dev/vda2\trw %s\tquiet\r\n' "$WORDS" ;; nonl) printf 'root=/dev/vda2\trw %s\tquiet' "$WORDS" ;; esac \
                >"$k/etc/kernel/cmdline"
        case $form in crlf) printf 'root=/dev/vda2\trw\tquiet\r\n' ;; nonl) printf 'root=/dev/vda2\trw\tquiet' ;; esac \
                >"$tmp/k.$form.edit"
        ic "$k" rollback >"$tmp/k.$form.rb" 2>&1; rc=$?
        check "$form: after the administrator's word, rollback takes out idlecfg's word only, every other byte kept" sh -c "
                test $rc -eq 0 && cmp '$tmp/k.$form.edit' '$k/etc/kernel/cmdline' && test ! -e '$k/var/lib/idlecfg/manifest'"
        last_failed && diag "$(cat "$tmp/k.$form.rb")"
        cp "$tmp/k.$form" "$k/etc/kernel/cmdline"
done
# ---- I3: a profile change on GRUB with BLS entries: the old profile's words are taken out ----
i=$tmp/i3
mk "$i"
mkdir -p "$i/boot/loader/entries" "$i/usr/bin"
printf 'GRUB_TIMEOUT=5\nGRUB_ENABLE_BLSCFG=true\n' >"$i/etc/default/grub"
: >"$i/usr/sbin/grub2-mkconfig"
printf 'CONFIG_PCIEASPM=y\nCONFIG_PCIEASPM_DEFAULT=y\n' >"$i/boot/config-$KVER"
PS=pcie_aspm.policy=powersupersave
ie=$i/boot/loader/entries/abc-$KVER.conf
printf 'title Fedora\nversion %s\nlinux /vmlinuz-%s\noptions root=UUID=1 ro\n' "$KVER" "$KVER" >"$ie"
profile=powersave ic "$i" install --json >"$tmp/i.json" 2>&1
steps "$tmp/i.json" "$i" >"$tmp/i.steps"
check "profile change, bls: the powersave install names grubby --args with its policy word" sh -c "
        grep -qw '$PS' '$i/etc/idlecfg/cmdline' &&
        grep -q '^grubby chroot @ROOT@ grubby --update-kernel=ALL --args=.*$PS' '$tmp/i.steps'"
# what grubby --args does: the words onto every entry's options
sed -i "s|^options .*|& $(cat "$i/etc/idlecfg/cmdline")|" "$ie"
ic "$i" install --json >"$tmp/i2.json" 2>"$tmp/i2.err"; rc=$?
steps "$tmp/i2.json" "$i" >"$tmp/i2.steps"
check "profile change to balanced: install exits 4 and names grubby --remove-args of the old word (JSON next_steps)" sh -c "
        test $rc -eq 4 &&
        grep -qx 'grubby-remove-args chroot @ROOT@ grubby --update-kernel=ALL --remove-args=$PS' '$tmp/i2.steps'"
last_failed && diag "exit $rc" "$(cat "$tmp/i2.steps")" "$(tail -n 3 "$tmp/i2.err")"
check "... the manifest remembers the word for the switch (dropped-words)" \
        grep -qx "dropped-words $PS" "$i/var/lib/idlecfg/manifest"
ic "$i" install >"$tmp/i3.out" 2>&1; rc=$?
check "... a second install (text) still names it, exit 4" sh -c "
        test $rc -eq 4 && grep -qF 'chroot $i grubby --update-kernel=ALL --remove-args=$PS' '$tmp/i3.out'"
ic "$i" verify >"$tmp/i.verify" 2>&1; rc=$?
ic "$i" verify --json >"$tmp/i.verify.json" 2>/dev/null
steps "$tmp/i.verify.json" "$i" >"$tmp/i.verify.steps"
check "... verify reports the step pending (text and JSON, not exit 0)" sh -c "
        test $rc -ne 0 && grep -qF 'grubby --update-kernel=ALL --remove-args=$PS' '$tmp/i.verify' &&
        grep -qx 'grubby-remove-args chroot @ROOT@ grubby --update-kernel=ALL --remove-args=$PS' '$tmp/i.verify.steps'"
last_failed && diag "exit $rc" "$(tail -n 5 "$tmp/i.verify")"
# what grubby --remove-args does
sed -i "s| $PS||" "$ie"
ic "$i" verify >"$tmp/i.verify2" 2>&1; rc=$?
ic "$i" verify --json >"$tmp/i.verify2.json" 2>/dev/null
steps "$tmp/i.verify2.json" "$i" >"$tmp/i.verify2.steps"
check "... once it ran, verify is quiet about it (no step, not exit 4)" sh -c "
        test $rc -ne 4 && ! grep -q 'grubby' '$tmp/i.verify2' && test ! -s '$tmp/i.verify2.steps'"
last_failed && diag "exit $rc" "$(cat "$tmp/i.verify2.steps")"
ic "$i" install >/dev/null 2>&1; rc=$?
check "... and install exits 0, the manifest forgets the word" sh -c "
        test $rc -eq 0 && ! grep -q '^dropped-words' '$i/var/lib/idlecfg/manifest'"
# back to powersave while the entries still hold the old word: it stays idlecfg's
profile=powersave ic "$i" install >/dev/null 2>&1
sed -i "s|^options .*|& $(cat "$i/etc/idlecfg/cmdline")|" "$ie"
ic "$i" install >/dev/null 2>&1
# a rollback right after the switch (on a copy of the root): the old word is idlecfg's too
cp -a "$i" "$i.copy"
ic "$i.copy" rollback --json >"$tmp/ic.rb.json" 2>&1; rc=$?
steps "$tmp/ic.rb.json" "$i.copy" >"$tmp/ic.rb.steps"
check "... rollback after the switch names grubby --remove-args of the old word (exit 4)" sh -c "
        test $rc -eq 4 && grep -qx 'grubby-remove-args chroot @ROOT@ grubby --update-kernel=ALL --remove-args=$PS' '$tmp/ic.rb.steps'"
last_failed && diag "exit $rc" "$(cat "$tmp/ic.rb.steps")"
profile=powersave ic "$i" install --json >"$tmp/i4.json" 2>&1; rc=$?
cat "$i/etc/idlecfg/cmdline" >"$tmp/i4.cmdline" 2>/dev/null
ic "$i" rollback --json >"$tmp/i.rb.json" 2>&1; rc2=$?
steps "$tmp/i.rb.json" "$i" >"$tmp/i.rb.steps"
check "... powersave again with the old word still in the entries: it stays idlecfg's, rollback names its removal" sh -c "
        grep -qw '$PS' '$tmp/i4.cmdline' && test $rc2 -eq 4 && grep -q '^grubby-remove-args .*--remove-args=.*$PS' '$tmp/i.rb.steps'"
last_failed && diag "install $rc, rollback $rc2" "$(cat "$tmp/i.rb.steps")"

# the administrator's own word, the same as idlecfg's: never named for removal
a=$tmp/i3adm
mk "$a"
mkdir -p "$a/boot/loader/entries" "$a/usr/bin"
printf 'GRUB_TIMEOUT=5\nGRUB_ENABLE_BLSCFG=true\n' >"$a/etc/default/grub"
: >"$a/usr/sbin/grub2-mkconfig"
printf 'CONFIG_PCIEASPM=y\nCONFIG_PCIEASPM_DEFAULT=y\n' >"$a/boot/config-$KVER"
printf 'title Fedora\nversion %s\nlinux /vmlinuz-%s\noptions root=UUID=1 ro %s\n' "$KVER" "$KVER" "$PS" \
        >"$a/boot/loader/entries/abc-$KVER.conf"
profile=powersave ic "$a" install --json >"$tmp/a.json" 2>&1
# grubby --args of idlecfg's other words, if any
[ -e "$a/etc/idlecfg/cmdline" ] &&
        sed -i "s|^options .*|& $(cat "$a/etc/idlecfg/cmdline")|" "$a/boot/loader/entries/abc-$KVER.conf"
ic "$a" install --json >"$tmp/a2.json" 2>&1; rc=$?
ic "$a" verify --json >"$tmp/a.verify.json" 2>/dev/null
ic "$a" rollback --json >"$tmp/a.rb.json" 2>&1
check "profile change, the entries held the policy word before idlecfg (the administrator's): never named for removal" sh -c "
        ! grep -qw '$PS' '$a/etc/idlecfg/cmdline' 2>/dev/null &&
        ! grep -q 'remove-args=.*$PS' '$tmp/a2.json' '$tmp/a.verify.json' '$tmp/a.rb.json' &&
        grep -qw '$PS' '$a/boot/loader/entries/abc-$KVER.conf'"
last_failed && diag "$(steps "$tmp/a2.json" "$a")"
# ---- D6 for the words: the state lost (rm -rf var/lib/idlecfg), then install again ----
# mkd6 ROOT FORMAT: a systemd-boot root whose /etc/kernel/cmdline is printf FORMAT (empty: no file, the vendor's line)
mkd6() {
        mk "$1"
        mkdir -p "$1/boot/efi/EFI/systemd" "$1/etc/kernel" "$1/usr/lib/kernel"
        : >"$1/boot/efi/EFI/systemd/systemd-bootx64.efi"
        printf 'CONFIG_PCIEASPM=y\nCONFIG_PCIEASPM_DEFAULT=y\n' >"$1/boot/config-$KVER"
        printf 'root=/dev/vda2 ro\n' >"$1/usr/lib/kernel/cmdline"
        [ -n "$2" ] && printf "$2" >"$1/etc/kernel/cmdline"
        return 0
}
d=$tmp/d6
mkd6 "$d" 'root=/dev/vda2\trw quiet\r\n'
cp "$d/etc/kernel/cmdline" "$tmp/d6.before"
profile=powersave ic "$d" install >/dev/null 2>&1; rc1=$?
cp "$d/etc/kernel/cmdline" "$tmp/d6.after"
rm -rf "$d/var/lib/idlecfg"
profile=powersave ic "$d" install >"$tmp/d6.out" 2>&1; rc=$?
# (exit 4 both times: no boot entry has been made from the file in this root)
check "D6 words: after the state was lost, install again exits as the first, the file as the first made it" sh -c "
        test $rc -eq $rc1 && cmp -s '$tmp/d6.after' '$d/etc/kernel/cmdline' &&
        test \$(grep -o 'pcie_aspm.policy=powersupersave' '$d/etc/kernel/cmdline' | wc -l) -eq 1"
last_failed && diag "exit $rc" "$(cat "$tmp/d6.out")"
ic "$d" rollback >"$tmp/d6.rb" 2>&1; rc=$?
check "D6 words: rollback then takes idlecfg's earlier word out, the file byte for byte as before idlecfg" sh -c "
        test $rc -eq 0 && cmp -s '$tmp/d6.before' '$d/etc/kernel/cmdline' && test ! -e '$d/etc/kernel/cmdline.idlecfg-words'"
last_failed && diag "exit $rc" "$(cat "$tmp/d6.rb")" "$(od -c "$d/etc/kernel/cmdline" | head -3)"
# d6_lose_rollback ROOT OUT: a powersave install, the state lost, install
# again, then rollback (its output in OUT, its exit status returned)
d6_lose_rollback() {
        profile=powersave ic "$1" install >/dev/null 2>&1
        rm -rf "$1/var/lib/idlecfg"
        profile=powersave ic "$1" install >/dev/null 2>&1
        ic "$1" rollback >"$2" 2>&1
}
# the administrator's word, the same as idlecfg's, there before idlecfg ever ran: never taken
e=$tmp/d6adm
mkd6 "$e" 'root=/dev/vda2 rw pcie_aspm.policy=powersupersave\n'
cp "$e/etc/kernel/cmdline" "$tmp/d6adm.before"
d6_lose_rollback "$e" "$tmp/d6adm.rb"; rc=$?
check "D6 words: the administrator's identical word from before idlecfg stays through state loss, install, rollback" sh -c "
        test $rc -eq 0 && cmp -s '$tmp/d6adm.before' '$e/etc/kernel/cmdline'"
last_failed && diag "exit $rc" "$(cat "$tmp/d6adm.rb")" "$(cat "$e/etc/kernel/cmdline")"
# the file idlecfg made from the vendor's line: removed again
f=$tmp/d6made
mkd6 "$f" ''
d6_lose_rollback "$f" "$tmp/d6made.rb"; rc=$?
check "D6 words: a file idlecfg made (from the vendor's line), the state lost, install again, rollback: the file is gone" sh -c "
        test $rc -eq 0 && test -e '$f/usr/lib/kernel/cmdline' && test ! -e '$f/etc/kernel/cmdline' &&
        test ! -e '$f/etc/kernel/cmdline.idlecfg-words'"
last_failed && diag "exit $rc" "$(cat "$tmp/d6made.rb")" "$(ls "$f/etc/kernel")"
# a profile with no command-line words after the state was lost: the noted words leave the line
g=$tmp/d6none
mkd6 "$g" 'root=/dev/vda2\trw quiet\r\n'
cp "$g/etc/kernel/cmdline" "$tmp/d6none.before"
profile=powersave ic "$g" install >/dev/null 2>&1
rm -rf "$g/var/lib/idlecfg"
profile=performance ic "$g" install --json >"$tmp/d6none.json" 2>"$tmp/d6none.err"; rc=$?
check "D6 words: the state lost, then a profile without words: the line as before idlecfg, the note gone, kernel-install named" sh -c "
        test $rc -eq 4 && cmp -s '$tmp/d6none.before' '$g/etc/kernel/cmdline' &&
        test ! -e '$g/etc/kernel/cmdline.idlecfg-words' && grep -q '\"kernel-install\"' '$tmp/d6none.json'"
last_failed && diag "exit $rc" "$(cat "$tmp/d6none.err")" "$(od -c "$g/etc/kernel/cmdline" | head -3)"
ic "$g" rollback >"$tmp/d6none.rb" 2>&1; rc=$?
check "... rollback then keeps the administrator's line byte for byte" sh -c "
        test $rc -eq 0 -o $rc -eq 4 && cmp -s '$tmp/d6none.before' '$g/etc/kernel/cmdline'"
last_failed && diag "exit $rc" "$(cat "$tmp/d6none.rb")"
h=$tmp/d6nonemade
mkd6 "$h" ''
profile=powersave ic "$h" install >/dev/null 2>&1
rm -rf "$h/var/lib/idlecfg"
profile=performance ic "$h" install >"$tmp/d6nm.out" 2>&1; rc=$?
check "D6 words: a file idlecfg made, the state lost, a profile without words: the vendor's line alone, no note" sh -c "
        test \"\$(cat '$h/etc/kernel/cmdline')\" = 'root=/dev/vda2 ro' && test ! -e '$h/etc/kernel/cmdline.idlecfg-words'"
last_failed && diag "exit $rc" "$(cat "$tmp/d6nm.out")" "$(cat "$h/etc/kernel/cmdline")"
ic "$h" rollback >"$tmp/d6nm.rb" 2>&1; rc=$?
check "... rollback then removes the file idlecfg made" sh -c "test ! -e '$h/etc/kernel/cmdline' && test -e '$h/usr/lib/kernel/cmdline'"
last_failed && diag "exit $rc" "$(cat "$tmp/d6nm.rb")"
# ---- install --dry-run and --check name the removal of an earlier profile's words, as install does ----
q=$tmp/i3dry
mk "$q"
mkdir -p "$q/boot/loader/entries" "$q/usr/bin"
printf 'GRUB_TIMEOUT=5\nGRUB_ENABLE_BLSCFG=true\n' >"$q/etc/default/grub"
: >"$q/usr/sbin/grub2-mkconfig"
printf 'CONFIG_PCIEASPM=y\nCONFIG_PCIEASPM_DEFAULT=y\n' >"$q/boot/config-$KVER"
printf 'title Fedora\nversion %s\nlinux /vmlinuz-%s\noptions root=UUID=1 ro\n' "$KVER" "$KVER" \
        >"$q/boot/loader/entries/abc-$KVER.conf"
profile=powersave ic "$q" install >/dev/null 2>&1
sed -i "s|^options .*|& $(cat "$q/etc/idlecfg/cmdline")|" "$q/boot/loader/entries/abc-$KVER.conf"
cp "$q/var/lib/idlecfg/manifest" "$tmp/q.manifest"
ic "$q" install --dry-run >"$tmp/q.dry" 2>&1; rc=$?
check "profile change, bls: install --dry-run names grubby --remove-args of the old word, as install does; the manifest untouched" sh -c "
        test $rc -ne 0 && grep -qF 'chroot $q grubby --update-kernel=ALL --remove-args=$PS' '$tmp/q.dry' &&
        cmp -s '$tmp/q.manifest' '$q/var/lib/idlecfg/manifest'"
last_failed && diag "exit $rc" "$(cat "$tmp/q.dry")"
ic "$q" install --dry-run --json >"$tmp/q.dry.json" 2>&1
steps "$tmp/q.dry.json" "$q" >"$tmp/q.dry.steps" 2>&1
check "... install --dry-run --json names it in next_steps" \
        grep -qx "grubby-remove-args chroot @ROOT@ grubby --update-kernel=ALL --remove-args=$PS" "$tmp/q.dry.steps"
last_failed && diag "$(cat "$tmp/q.dry.steps")"
ic "$q" install --check >"$tmp/q.check" 2>&1; rc=$?
check "... install --check names it too (files would change: exit 5)" sh -c "
        test $rc -eq 5 && grep -qF 'chroot $q grubby --update-kernel=ALL --remove-args=$PS' '$tmp/q.check'"
last_failed && diag "exit $rc" "$(cat "$tmp/q.check")"
ic "$q" install >"$tmp/q.install" 2>&1
check "... as install then does" grep -qF "chroot $q grubby --update-kernel=ALL --remove-args=$PS" "$tmp/q.install"
done_testing
