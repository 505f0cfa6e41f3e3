#!/bin/sh
# tests/apply.sh: apply, verify and rollback of live settings on every recorded
# machine under umockdev: the round trip restores the mock /sys exactly; a
# refused write undoes the run (or --keep-going goes on); a kill at every step
# leaves a journal that rollback restores exactly; malformed journals.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}"
PATH=$PATH:/sbin:/usr/sbin
machines="intel-laptop amd-laptop desktop-sata buildhost"
plan 35

# Inside the testbed: snap (tests/snap.sh) and ic
cat >"$tmp/lib-inner.sh" <<'SH'
. "$top_srcdir/tests/snap.sh"
ic() { "$IDLECFG" --root "$ROOT" --kernel "$KVER" --profile "$PROFILE" "$@"; }
SH

# ---- the round trip on every machine ----
cat >"$tmp/roundtrip.sh" <<'SH'
. "$LIBINNER"
snap "$OUT.before"
ic apply >"$OUT.apply" 2>&1 || { echo "apply failed"; cat "$OUT.apply"; exit 1; }
snap "$OUT.applied"
ic verify >"$OUT.verify" 2>&1; echo "verify-after-apply $?" >>"$OUT.rc"
ic apply >"$OUT.apply2" 2>&1; echo "apply-again $?" >>"$OUT.rc"
ic rollback >"$OUT.rollback" 2>&1 || { echo "rollback failed"; cat "$OUT.rollback"; exit 1; }
snap "$OUT.after"
ic verify >"$OUT.verify2" 2>&1; echo "verify-after-rollback $?" >>"$OUT.rc"
ic rollback >"$OUT.rollback2" 2>&1; echo "rollback-again $?" >>"$OUT.rc"
SH
export KVER LIBINNER="$tmp/lib-inner.sh"
for m in $machines; do
        root=$tmp/$m-root
        mkroot_installed "$TESTS_DATA/machines/$m" "$root" || { echo "Bail out! no root for $m"; exit 1; }
        mkdir -p "$root/run" "$root/var/lib"
        : >"$tmp/$m.rc"
        ROOT=$root PROFILE=powersave OUT=$tmp/$m run_machine "$TESTS_DATA/machines/$m" sh "$tmp/roundtrip.sh" >"$tmp/$m.log" 2>&1
        changed=$(diff "$tmp/$m.before" "$tmp/$m.applied" 2>/dev/null | grep -c '^>')
        if [ "$m" = buildhost ]; then
                # a virtual machine: nothing there saves power by runtime PM
                # (idlecfg(8), VIRTUAL MACHINES), so apply writes no attribute
                # and verify has nothing to find drifted, before or after
                check "$m (a VM): apply changes no attribute, and rollback leaves the mock /sys as it was" sh -c "
                        test -s '$tmp/$m.before' && cmp '$tmp/$m.before' '$tmp/$m.applied' &&
                        cmp '$tmp/$m.before' '$tmp/$m.after' && test ! -e '$root/var/lib/idlecfg'"
                check "$m (a VM): verify after apply and after rollback: nothing drifted (exit 0)" sh -c "
                        grep -qx 'verify-after-apply 0' '$tmp/$m.rc' && grep -qx 'verify-after-rollback 0' '$tmp/$m.rc' &&
                        ! grep -q '^  drift ' '$tmp/$m.verify2'"
        else
                check "$m: apply changes $changed attributes, then rollback restores the mock /sys exactly" sh -c "
                        test -s '$tmp/$m.before' && cmp '$tmp/$m.before' '$tmp/$m.after' && test $changed -gt 0 && test ! -e '$root/var/lib/idlecfg'"
                check "$m: verify after apply: everything matches (exit 0); after rollback: drift (exit 1)" sh -c "
                        grep -qx 'verify-after-apply 0' '$tmp/$m.rc' && grep -qx 'verify-after-rollback 1' '$tmp/$m.rc' &&
                        grep -q '^  drift ' '$tmp/$m.verify2'"
        fi
        check "$m: a second apply changes nothing; a second rollback has nothing to do" sh -c "
                grep -qx 'apply-again 0' '$tmp/$m.rc' && grep -q '^0 settings changed' '$tmp/$m.apply2' &&
                grep -qx 'rollback-again 0' '$tmp/$m.rc' && grep -q 'Nothing to roll back' '$tmp/$m.rollback2'"
done

m=intel-laptop
root=$tmp/$m-root
ROOT=$root PROFILE=powersave run_machine "$TESTS_DATA/machines/$m" sh -c '
        . "$LIBINNER"; ic apply >/dev/null 2>&1; cat "$ROOT/var/lib/idlecfg/apply.journal"; ic rollback >/dev/null 2>&1' >"$tmp/journal" 2>&1
check "the journal: a run line, then path, old (as read, newline escaped) and new value of each write" sh -c "
        sed -n 2p '$tmp/journal' | grep -q '^run 1 [0-9]* powersave\$' &&
        grep -qF 'set /sys/devices/pci0000:00/0000:00:00.0/power/control on\x0a auto' '$tmp/journal'"

# ---- verify: blockers named with the knob that fixes them ----
ROOT=$root PROFILE=powersave run_machine "$TESTS_DATA/machines/$m" sh -c '. "$LIBINNER"; ic verify; ic verify --json' >"$tmp/v" 2>&1
check "verify lists idle blockers with their knob or the reason they stay" sh -c "
        grep -q 'Idle blockers' '$tmp/v' && grep -q '1-4 (usb): runtime PM is off (power/control = on); kept on purpose: skipped: HID device' '$tmp/v' &&
        grep -q 'card0 (drm): GPU RC6 residency did not grow' '$tmp/v'"
check "verify --json is valid JSON with settings, blockers and residency" sh -c "
        sed -n '/^{/,/^}/p' '$tmp/v' | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"settings\"] and d[\"blockers\"] and \"residency\" in d'"
# the blockers the usb and gpu families declare, on attributes set to block
ROOT=$root PROFILE=powersave run_machine "$TESTS_DATA/machines/$m" sh -c '. "$LIBINNER"
        echo -1 >"$UMOCKDEV_DIR/sys/devices/pci0000:00/0000:00:14.0/usb1/1-4/power/autosuspend_delay_ms"
        echo 0 >"$UMOCKDEV_DIR/sys/devices/pci0000:00/0000:00:02.0/drm/card0/power/rc6_enable"
        ic verify' >"$tmp/v3" 2>&1
check "verify names USB autosuspend disabled and GPU RC6 off, with the knob that changes it" sh -c "
        grep -q '1-4 (usb): autosuspend is disabled (power/autosuspend_delay_ms = -1); knob usb.autosuspend_delay_ms' '$tmp/v3' &&
        grep -qx '  card0 (drm): GPU RC6 is disabled (rc6_enable = 0)' '$tmp/v3' && ! grep -q 'RC6 residency' '$tmp/v3'"
ROOT=$root PROFILE=powersave run_machine "$TESTS_DATA/machines/$m" sh -c '. "$LIBINNER"; ic explain i2c-0' >"$tmp/e" 2>&1
check "explain of an I2C adapter shows the runtime PM planned on its controller" grep -q 'i2c.runtime_pm: power/control' "$tmp/e"
d=desktop-sata
ROOT=$tmp/$d-root PROFILE=balanced run_machine "$TESTS_DATA/machines/$d" sh -c '. "$LIBINNER"; ic verify' >"$tmp/v2" 2>&1
check "verify names a SATA link at max_performance and an ASPM-disabled link" sh -c "
        grep -q 'SATA link power management is off' '$tmp/v2'"

# ---- all or nothing: a write the kernel refuses undoes the run ----
cat >"$tmp/refuse.sh" <<'SH'
. "$LIBINNER"
snap "$OUT.before"
IDLECFG_FAULT=$FAULT ic apply "$@" >"$OUT.apply" 2>&1; echo $? >"$OUT.rc"
snap "$OUT.after"
cp "$ROOT/var/lib/idlecfg/apply.journal" "$OUT.journal" 2>/dev/null
ic rollback >"$OUT.rb" 2>&1
snap "$OUT.final"
SH
ROOT=$root PROFILE=powersave OUT=$tmp/ref FAULT=fail:5:EINVAL:sysfs run_machine "$TESTS_DATA/machines/$m" sh "$tmp/refuse.sh" >/dev/null 2>&1
check "EINVAL on a write: exit 3, the device and the reason named" sh -c "
        test \$(cat '$tmp/ref.rc') -eq 3 && grep -q 'FAILED .* the kernel refused .*: Invalid argument' '$tmp/ref.apply'"
check "... and the run is undone: /sys as before" sh -c "cmp '$tmp/ref.before' '$tmp/ref.after' && grep -q 'Undoing the' '$tmp/ref.apply'"
check "... and rollback afterwards changes nothing more" cmp "$tmp/ref.before" "$tmp/ref.final"
for e in EOPNOTSUPP EIO EBUSY; do
        ROOT=$root PROFILE=powersave OUT=$tmp/ref-$e FAULT=fail:4:$e:sysfs run_machine "$TESTS_DATA/machines/$m" sh "$tmp/refuse.sh" >/dev/null 2>&1
        check "$e on a write: reported, run undone" sh -c "
                test \$(cat '$tmp/ref-$e.rc') -eq 3 && grep -q 'FAILED .*the kernel refused' '$tmp/ref-$e.apply' && cmp '$tmp/ref-$e.before' '$tmp/ref-$e.after'"
done
ROOT=$root PROFILE=powersave OUT=$tmp/kg FAULT=fail:5:EINVAL:sysfs run_machine "$TESTS_DATA/machines/$m" sh "$tmp/refuse.sh" --keep-going >/dev/null 2>&1
check "--keep-going: exit 3, the refused one reported, the rest applied" sh -c "
        test \$(cat '$tmp/kg.rc') -eq 3 && grep -q 'FAILED' '$tmp/kg.apply' && grep -q 'settings were refused' '$tmp/kg.apply' &&
        test \$(diff '$tmp/kg.before' '$tmp/kg.after' | grep -c '^>') -ge 5"
check "... and rollback restores it exactly" cmp "$tmp/kg.before" "$tmp/kg.final"

# ---- a kill at every step of apply: rollback restores exactly ----
cat >"$tmp/kill.sh" <<'SH'
. "$LIBINNER"
snap "$OUT.before"
n=$((1 - SWEEP_STEP)) hit=0 bad=0
while [ $n -lt 200 ]; do
        n=$((n + SWEEP_STEP))
        IDLECFG_FAULT=kill:$n ic apply >"$OUT.run" 2>&1
        grep -q injected "$OUT.run" || { ic rollback >/dev/null 2>&1; break; }
        hit=$((hit + 1))
        ic rollback >"$OUT.rb" 2>&1 || { bad=$((bad + 1)); echo "kill:$n: rollback failed"; cat "$OUT.rb"; }
        snap "$OUT.now"
        cmp -s "$OUT.before" "$OUT.now" || { bad=$((bad + 1)); echo "kill:$n: /sys differs"; diff "$OUT.before" "$OUT.now" | head; }
        [ -e "$ROOT/var/lib/idlecfg/apply.journal" ] && { bad=$((bad + 1)); echo "kill:$n: journal left"; }
done
echo "$hit $bad"
SH
ROOT=$root PROFILE=powersave OUT=$tmp/kill run_machine "$TESTS_DATA/machines/$m" sh "$tmp/kill.sh" >"$tmp/kill.log" 2>&1
set -- $(tail -n 1 "$tmp/kill.log")
# the steps: the one journal write of the run (temporary file, write, fsync,
# rename) and each sysfs write (powersave writes more than a dozen here)
check "apply killed at each of its ${1:-?} steps (the journal write and each sysfs write): rollback restores /sys exactly$SWEEP_NOTE" \
        sh -c "test '${2:-x}' = 0 && test ${1:-0} -gt $(sweep_share 15)"
[ "${2:-x}" = 0 ] || diag "$(head -30 "$tmp/kill.log")"

# ---- someone else changed values since apply ----
cat >"$tmp/other.sh" <<'SH'
. "$LIBINNER"
snap "$OUT.before"
ic apply >/dev/null 2>&1
# one put back by hand as it was, one changed to something else
printf 'on\n' >"$UMOCKDEV_DIR/sys/devices/pci0000:00/0000:00:00.0/power/control"
printf 'other' >"$UMOCKDEV_DIR/sys/devices/pci0000:00/0000:00:04.0/power/control"
ic rollback >"$OUT.rb1" 2>&1; echo $? >"$OUT.rc1"
cat "$UMOCKDEV_DIR/sys/devices/pci0000:00/0000:00:04.0/power/control" >"$OUT.kept"
ic rollback --force >"$OUT.rb2" 2>&1; echo $? >"$OUT.rc2"
snap "$OUT.after"
SH
ROOT=$root PROFILE=powersave OUT=$tmp/other run_machine "$TESTS_DATA/machines/$m" sh "$tmp/other.sh" >/dev/null 2>&1
check "rollback leaves a value someone changed since, says so, exit 1" sh -c "
        test \$(cat '$tmp/other.rc1') -eq 1 && grep -q 'left .*0000:00:04.0/power/control alone: it is other' '$tmp/other.rb1' &&
        test \$(cat '$tmp/other.kept') = other"
check "rollback --force restores it too: /sys exactly as before apply" sh -c "
        test \$(cat '$tmp/other.rc2') -eq 0 && cmp '$tmp/other.before' '$tmp/other.after'"

# ---- malformed journals: file and line, nothing written (the root stands
# for the running system's: another root's journal is never replayed) ----
mkdir -p "$root/var/lib/idlecfg"
export IDLECFG_TEST_LIVE_ROOT="$root"
printf 'idlecfg-journal 1\nrun 1 0 p\nset /etc/passwd x y\n' >"$root/var/lib/idlecfg/apply.journal"
"$IDLECFG" --root "$root" rollback apply >"$tmp/mj1" 2>&1; rc=$?
check "a journal naming a path outside /sys: exit 2 with file:line" sh -c "
        test $rc -eq 2 && grep -q 'apply.journal:3: refusing a path that is no attribute, parameter or sysctl' '$tmp/mj1'"
printf 'idlecfg-journal 1\nrun 1 0 p\nset /sys/a \\\\xzz y\n' >"$root/var/lib/idlecfg/apply.journal"
"$IDLECFG" --root "$root" rollback apply >"$tmp/mj2" 2>&1; rc=$?
check "a journal with a bad escape: exit 2 with file:line" sh -c "test $rc -eq 2 && grep -q 'apply.journal:3: malformed field' '$tmp/mj2'"
printf 'idlecfg-journal 1\nrun 1 0 p\nset /sys/devices/x/power/control on auto' >"$root/var/lib/idlecfg/apply.journal"
"$IDLECFG" --root "$root" rollback apply >"$tmp/mj3" 2>&1; rc=$?
check "a journal whose last record was cut short by a crash: that record is dropped, rollback completes" sh -c "
        test $rc -eq 0 && test ! -e '$root/var/lib/idlecfg/apply.journal'"
printf 'hello' >"$root/var/lib/idlecfg/apply.journal"
"$IDLECFG" --root "$root" rollback apply >"$tmp/mj5" 2>&1; rc=$?
check "a file that is no journal, not even a torn one: exit 2, nothing dropped silently" sh -c "
        test $rc -eq 2 && grep -q 'apply.journal:1: not an idlecfg journal' '$tmp/mj5' && test -e '$root/var/lib/idlecfg/apply.journal'"
printf 'idlecfg-journal 3\n' >"$root/var/lib/idlecfg/apply.journal"
"$IDLECFG" --root "$root" rollback apply >"$tmp/mj4" 2>&1; rc=$?
check "a journal of an unknown format: exit 2, said plainly" sh -c "test $rc -eq 2 && grep -q 'journal format 3 is not known' '$tmp/mj4'"
rm -rf "$root/var/lib/idlecfg"
unset IDLECFG_TEST_LIVE_ROOT

# ---- apply --dry-run writes nothing ----
ROOT=$root PROFILE=powersave OUT=$tmp/dry run_machine "$TESTS_DATA/machines/$m" sh -c '. "$LIBINNER"; snap "$OUT.b"; ic apply --dry-run >"$OUT.out" 2>&1; echo $? >"$OUT.rc"; snap "$OUT.a"' >/dev/null 2>&1
check "apply --dry-run: exit 1, says what would change, writes nothing" sh -c "
        test \$(cat '$tmp/dry.rc') -eq 1 && grep -q 'would set pci.runtime_pm' '$tmp/dry.out' && cmp '$tmp/dry.b' '$tmp/dry.a' &&
        test ! -e '$root/var/lib/idlecfg'"
done_testing
