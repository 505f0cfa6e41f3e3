#!/bin/sh
# tests/boot-left.sh: after a rollback, verify says what the running kernel's
# command line (/proc/cmdline, only when the target is the running system:
# here the recorded machine's, umockdev serving $UMOCKDEV_DIR/proc/cmdline)
# or the current initramfs (its listing: the tests' lister prints $TAKE_LIST,
# lib.sh take_logger) still holds of what idlecfg no longer installs: "left
# from before rollback: ... gone after STEP", text and JSON with the step's
# argv; verify's exit is 4 then (1 when settings drift, as before: right after
# the rollback they do, the plan being no one's; after apply they do not). The rollback keeps a note of what it took out
# (/var/lib/idlecfg/left-by-rollback) while some of it is left, and a later
# rollback that finds nothing left removes it. The running system's case runs
# verify --root / in a private mount namespace (unshare -m) with tmpfs over
# /var/lib and /boot: nothing of this machine is read there or written.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}" python3
if [ -z "${IDLECFG_IN_MACHINE:-}" ]; then
        rm -rf "$tmp"
        IDLECFG_IN_MACHINE=1 exec "$top_srcdir/tests/run-machine" "$TESTS_DATA/machines/desktop-sata" sh "$0" "$@"
fi
plan 14

WORDS=pcie_aspm.policy=default
R=$tmp/r
mkroot_installed "$TESTS_DATA/machines/desktop-sata" "$R" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$R/var/lib" "$R/run" "$R/boot/grub" "$R/etc/default" "$R/usr/sbin"
echo initramfs >"$R/boot/initrd.img-$KVER"
printf 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"\n' >"$R/etc/default/grub"
: >"$R/usr/sbin/update-grub"
: >"$R/usr/sbin/update-initramfs"
take_logger "$tmp/lister"
export TAKE_LOG="$tmp/take.log" TAKE_ROOT="$R" TAKE_LIST="$tmp/list"
ic() { IDLECFG_TEST_TAKE_EFFECT=$tmp/lister "$IDLECFG" --root "$R" --kernel "$KVER" --profile balanced "$@"; }
# left JSON: the left_from_before_rollback list, one "what where holds|argv of each step|reboot" a line
left() {
        python3 - "$1" "$R" <<'PY'
import json, sys
for x in json.load(open(sys.argv[1]))["left_from_before_rollback"]:
    steps = ";".join(" ".join(a.replace(sys.argv[2], "@ROOT@") for a in s["argv"]) for s in x["gone_after"])
    print(x["what"], x["where"], " ".join(x["holds"]) + "|" + steps + "|" + str(x["reboot"]).lower())
PY
}

# ---- the initramfs of a root: made since install, its listing holds idlecfg's modprobe.d ----
ic install >"$tmp/install.out" 2>&1
touch "$R/boot/initrd.img-$KVER"        # update-initramfs ran after install
printf 'usr/lib/modules/%s/kernel/drivers/ata/ahci.ko\netc/modprobe.d/idlecfg.conf\n' "$KVER" >"$TAKE_LIST"
ic rollback >"$tmp/rb.out" 2>&1; rc=$?
check "rollback exits 4 naming update-initramfs and keeps its note: words, modprobe, kernel" sh -c "
        test $rc -eq 4 && grep -q 'update-initramfs -u -k $KVER' '$tmp/rb.out' && test ! -e '$R/var/lib/idlecfg/manifest' &&
        printf 'idlecfg-left 1\nkernel $KVER\nwords $WORDS\nmodprobe yes\n' | cmp - '$R/var/lib/idlecfg/left-by-rollback'"
ic verify >"$tmp/v.out" 2>&1; rc=$?
check "verify: left from before rollback: the initramfs holds idlecfg.conf, gone after update-initramfs (exit 1: the recorded values drift from the plan)" sh -c "
        test $rc -eq 1 && grep -q '^Settings of profile balanced (--profile): .* [1-9][0-9]* drift,' '$tmp/v.out' && grep -qxF 'left from before rollback: the initramfs /boot/initrd.img-$KVER holds etc/modprobe.d/idlecfg.conf: gone after update-initramfs' '$tmp/v.out' &&
        grep -qxF '  * chroot $R update-initramfs -u -k $KVER' '$tmp/v.out'"
ic verify --json >"$tmp/v.json" 2>"$tmp/v.err"; rc=$?
left "$tmp/v.json" >"$tmp/v.left"
check "verify --json: left_from_before_rollback with the step's argv" sh -c "
        echo 'initramfs /boot/initrd.img-$KVER etc/modprobe.d/idlecfg.conf|chroot @ROOT@ update-initramfs -u -k $KVER|false' |
        diff -u - '$tmp/v.left'"
# the values as planned (apply): nothing drifts, the step left is the answer: 4
ic apply >"$tmp/a.out" 2>&1
ic verify >"$tmp/va.out" 2>&1; rc=$?
check "after apply nothing drifts: verify exits 4 (a boot step left), still saying what is left" sh -c "
        test $rc -eq 4 && grep -q '^Settings of profile balanced (--profile): .* 0 drift,' '$tmp/va.out' &&
        grep -qxF 'left from before rollback: the initramfs /boot/initrd.img-$KVER holds etc/modprobe.d/idlecfg.conf: gone after update-initramfs' '$tmp/va.out'"
last_failed && diag "exit $rc" "$(grep -v '^  ' "$tmp/va.out" | head -n 5)" "$(tail -n 3 "$tmp/a.out")"
ic rollback apply >"$tmp/rba.out" 2>&1; rc=$?
ic verify >"$tmp/vb.out" 2>&1; rc2=$?
check "rollback apply puts the values back and keeps the note (exit $rc); verify drifts again: 1" sh -c "
        test $rc -eq 0 && test -e '$R/var/lib/idlecfg/left-by-rollback' && test ! -e '$R/var/lib/idlecfg/apply.journal' &&
        test $rc2 -eq 1 && grep -q 'left from before rollback: the initramfs' '$tmp/vb.out'"
# the step ran: the listing lacks it
printf 'usr/lib/modules/%s/kernel/drivers/ata/ahci.ko\n' "$KVER" >"$TAKE_LIST"
ic verify --json >"$tmp/v2.json" 2>&1
ic verify >"$tmp/v2.out" 2>&1
left "$tmp/v2.json" >"$tmp/v2.left" 2>&1
check "verify: once the initramfs lacks it, nothing is left (text and JSON)" sh -c "
        ! grep -q 'left from before rollback' '$tmp/v2.out' && test ! -s '$tmp/v2.left'"
ic rollback >"$tmp/rb2.out" 2>&1; rc=$?
check "a later rollback finds nothing left: the note and the state directory go (exit 0)" sh -c "
        test $rc -eq 0 && test ! -e '$R/var/lib/idlecfg'"

# ---- the running system: /proc/cmdline (umockdev) still holds the word ----
if ! root_ns; then
        for i in 8 9 10 11 12 13 14; do skip "the running system's /proc/cmdline" "$why (tmpfs over /var/lib and /boot)"; done
        done_testing
fi
printf 'idlecfg-left 1\nkernel %s\nwords %s\nmodprobe yes\n' "$KVER" "$WORDS" >"$tmp/note"
mkdir -p "$UMOCKDEV_DIR/proc"
# running ARGS...: verify of the running system (--root /) with the note, in a private mount namespace
running() {
        unshare -m sh -ec 'mount --make-rprivate / 2>/dev/null || true
                mount -t tmpfs tmpfs /var/lib; mount -t tmpfs tmpfs /boot
                mkdir /var/lib/idlecfg; cp "$0" /var/lib/idlecfg/left-by-rollback
                exec "$@"' "$tmp/note" env IDLECFG_TEST_CHROOT=0 "$IDLECFG" --root / --profiles-dir "$top_srcdir/profiles" \
                --kernel "$KVER" --profile balanced verify "$@"
}
printf 'BOOT_IMAGE=/vmlinuz-%s root=/dev/sda1 ro quiet %s\n' "$KVER" "$WORDS" >"$UMOCKDEV_DIR/proc/cmdline"
running >"$tmp/r.out" 2>&1; rc=$?
check "running system: /proc/cmdline holds the word: left from before rollback, gone after a reboot (exit $rc: not 0)" sh -c "
        test $rc -ne 0 && grep -qxF \"left from before rollback: the running kernel's command line (/proc/cmdline) holds $WORDS: gone after a reboot\" '$tmp/r.out'"
last_failed && diag "$(tail -n 5 "$tmp/r.out")"
running --json >"$tmp/r.json" 2>"$tmp/r.err"; rc=$?
left "$tmp/r.json" >"$tmp/r.left" 2>&1
check "running system: JSON kernel-cmdline /proc/cmdline, reboot true" sh -c "
        echo 'kernel-cmdline /proc/cmdline $WORDS||true' | diff -u - '$tmp/r.left'"
printf 'BOOT_IMAGE=/vmlinuz-%s root=/dev/sda1 ro quiet %s.x\n' "$KVER" "$WORDS" >"$UMOCKDEV_DIR/proc/cmdline"
running >"$tmp/r2.out" 2>&1; rc=$?
check "running system: a /proc/cmdline without the word (a longer word is not it): nothing left" sh -c "
        ! grep -q 'left from before rollback' '$tmp/r2.out'"
last_failed && diag "exit $rc" "$(tail -n 3 "$tmp/r2.out")"
# an earlier profile's word that the boot entries still hold (the manifest's
# dropped-words, #44 I3) is in the running kernel's command line until a
# reboot: plan does not take it for the administrator's (the word here is one
# a family reads: nmi_watchdog= at boot is the administrator's choice)
printf 'idlecfg-manifest 1\nversion 0.1\nprofile powersave\nfingerprint 0123456789abcdef\nkernel %s\n' "$KVER" >"$tmp/m0"
{ cat "$tmp/m0"; echo 'dropped-words nmi_watchdog=0'; } >"$tmp/m1"
# running_plan MANIFEST CMDLINE: plan of the running system (--root /) with
# MANIFEST, in a private mount namespace where CMDLINE is bound over
# /proc/cmdline (the planner reads the root's files through its own resolver,
# which umockdev does not serve)
running_plan() {
        unshare -m sh -ec 'mount --make-rprivate / 2>/dev/null || true
                mount -t tmpfs tmpfs /var/lib; mount -t tmpfs tmpfs /boot
                mkdir /var/lib/idlecfg; cp "$0" /var/lib/idlecfg/manifest
                mount --bind "$1" /proc/cmdline; shift
                exec "$@"' "$1" "$2" env IDLECFG_TEST_CHROOT=0 "$IDLECFG" --root / --profiles-dir "$top_srcdir/profiles" \
                --kernel "$KVER" --profile balanced plan
}
printf 'BOOT_IMAGE=/vmlinuz-%s root=/dev/sda1 ro quiet\n' "$KVER" >"$tmp/c.none"
printf 'BOOT_IMAGE=/vmlinuz-%s root=/dev/sda1 ro quiet nmi_watchdog=0\n' "$KVER" >"$tmp/c.word"
running_plan "$tmp/m1" "$tmp/c.none" >"$tmp/p.none" 2>&1
running_plan "$tmp/m0" "$tmp/c.word" >"$tmp/p.admin" 2>&1
running_plan "$tmp/m1" "$tmp/c.word" >"$tmp/p.dropped" 2>&1
check "running system: without dropped-words, nmi_watchdog=0 in /proc/cmdline is the administrator's (the watchdog skipped)" \
        sh -c "grep -q 'the kernel command line sets nmi_watchdog=0' '$tmp/p.admin' &&
                ! grep -q 'the kernel command line sets nmi_watchdog' '$tmp/p.none'"
last_failed && diag "$(grep -A1 'kernel.nmi_watchdog' "$tmp/p.admin" | head -n 4)"
check "running system: the manifest's dropped-words in /proc/cmdline are idlecfg's: the plan is the one without them" \
        diff -u "$tmp/p.none" "$tmp/p.dropped"
# a target that is not the running system: its /proc/cmdline is never read
printf 'idlecfg-left 1\nkernel %s\nwords %s\nmodprobe no\n' "$KVER" "$WORDS" >"$R/var/lib/idlecfg-note"
mkdir -p "$R/var/lib/idlecfg" "$R/proc"
mv "$R/var/lib/idlecfg-note" "$R/var/lib/idlecfg/left-by-rollback"
printf 'root=/dev/sda1 %s\n' "$WORDS" >"$R/proc/cmdline"
printf 'root=/dev/sda1 %s\n' "$WORDS" >"$UMOCKDEV_DIR/proc/cmdline"
ic verify >"$tmp/n.out" 2>&1
check "a root that is not the running system: no word of its /proc/cmdline is said left" sh -c "
        ! grep -q 'left from before rollback' '$tmp/n.out'"
# installed again: what install says counts, not the note
ic install >/dev/null 2>&1
ic verify >"$tmp/i.out" 2>&1
check "installed again: the note of the earlier rollback says nothing" sh -c "! grep -q 'left from before rollback' '$tmp/i.out'"
done_testing
