#!/bin/sh
# tests/sysctl.sh: the [kernel] family end to end on a recorded laptop: what
# the plan decides from the target's kernel config, command line and sysctl.d
# files; install, dry run and rollback of /etc/sysctl.d/90-idlecfg.conf in a
# temporary root; apply, verify and rollback against a /proc tree of the test
# (IDLECFG_TEST_PROC: the real /proc/sys is never written); and that without
# that variable nothing under umockdev touches /proc/sys.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}" python3
PATH=$PATH:/sbin:/usr/sbin
# one umockdev session for the whole test
if [ -z "${IDLECFG_IN_MACHINE:-}" ]; then
        rm -rf "$tmp"
        IDLECFG_IN_MACHINE=1 exec "$top_srcdir/tests/run-machine" "$TESTS_DATA/machines/intel-laptop" sh "$0" "$@"
fi
plan 35

root=$tmp/root
mkroot_installed "$TESTS_DATA/machines/intel-laptop" "$root" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$root/var/lib" "$root/run"
ic() { "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }
# helpers as commands, for check's sh -c:
# setting FILE KNOB FIELD: one field of the plan's setting of KNOB ("" if none)
# tree DIR: every path, type, mode and content below DIR (not the lock file)
mkdir -p "$tmp/bin"
cat >"$tmp/bin/setting" <<'PY'
#!/usr/bin/env python3
import json, sys
p = json.load(open(sys.argv[1]))
for s in p["settings"]:
    if s["knob"] == sys.argv[2]:
        print(s.get(sys.argv[3]) or "")
PY
cat >"$tmp/bin/tree" <<'SH'
#!/bin/sh
cd "$1" && find . ! -path ./run/idlecfg.lock -printf '%p %y %m %l\n' | sort &&
        find . -type f ! -path ./run/idlecfg.lock -exec sha256sum {} + | sort -k2
SH
chmod +x "$tmp/bin/setting" "$tmp/bin/tree"
PATH=$tmp/bin:$PATH
warnings() { python3 -c 'import json, sys; print("\n".join(json.load(open(sys.argv[1]))["warnings"]))' "$1"; }

# ---- what the plan decides for a target root ----
ic --profile powersave plan --json >"$tmp/p1" 2>&1
check "no /boot/config in the root: nmi_watchdog planned as the sysctl.d line kernel.nmi_watchdog = 0, saying it was not checked" sh -c "
        test \"\$(setting '$tmp/p1' kernel.nmi_watchdog mechanism) \$(setting '$tmp/p1' kernel.nmi_watchdog param) \$(setting '$tmp/p1' kernel.nmi_watchdog value)\" = 'sysctl kernel.nmi_watchdog 0' &&
        setting '$tmp/p1' kernel.nmi_watchdog reason | grep -q '/boot/config-$KVER is not in the root to check'"
check "powersave plans vm.dirty_writeback_centisecs = 1500 with its profile line" sh -c "
        test \"\$(setting '$tmp/p1' kernel.dirty_writeback_centisecs param)=\$(setting '$tmp/p1' kernel.dirty_writeback_centisecs value)\" = vm.dirty_writeback_centisecs=1500 &&
        setting '$tmp/p1' kernel.dirty_writeback_centisecs reason | grep -q 'powersave.profile:[0-9]*)\$'"

mkdir -p "$root/boot"
printf 'CONFIG_LOCKUP_DETECTOR=y\n# CONFIG_HARDLOCKUP_DETECTOR is not set\n' >"$root/boot/config-$KVER"
ic --profile balanced plan --json >"$tmp/p2" 2>&1
check "CONFIG_HARDLOCKUP_DETECTOR not set in the target's config: nmi_watchdog skipped, saying why" sh -c "
        test -z \"\$(setting '$tmp/p2' kernel.nmi_watchdog value)\" &&
        setting '$tmp/p2' kernel.nmi_watchdog reason | grep -q '^skipped: .*/boot/config-$KVER sets neither CONFIG_HARDLOCKUP_DETECTOR nor CONFIG_HAVE_NMI_WATCHDOG'"
printf '# CONFIG_HARDLOCKUP_DETECTOR is not set\nCONFIG_HAVE_NMI_WATCHDOG=y\n' >"$root/boot/config-$KVER"
ic --profile balanced plan --json >"$tmp/p2b" 2>&1
check "an architecture's own NMI watchdog (CONFIG_HAVE_NMI_WATCHDOG=y): planned, and the reason says so" sh -c "
        test \"\$(setting '$tmp/p2b' kernel.nmi_watchdog value)\" = 0 &&
        setting '$tmp/p2b' kernel.nmi_watchdog reason | grep -q '/boot/config-$KVER has CONFIG_HAVE_NMI_WATCHDOG\$'"
printf 'CONFIG_LOCKUP_DETECTOR=y\nCONFIG_HARDLOCKUP_DETECTOR=y\n' >"$root/boot/config-$KVER"
ic --profile balanced plan --json >"$tmp/p3" 2>&1
check "CONFIG_HARDLOCKUP_DETECTOR=y: planned, and the reason names the config" sh -c "
        test \"\$(setting '$tmp/p3' kernel.nmi_watchdog value)\" = 0 &&
        setting '$tmp/p3' kernel.nmi_watchdog reason | grep -q '/boot/config-$KVER has CONFIG_HARDLOCKUP_DETECTOR\$'"
check "balanced: the kernel's writeback interval on AC, 15 s on battery" sh -c "
        test \"\$(setting '$tmp/p3' kernel.dirty_writeback_centisecs value)\" = 500 &&
        setting '$tmp/p3' kernel.dirty_writeback_centisecs per_source | grep -q \"'battery': '1500'\" &&
        setting '$tmp/p3' kernel.dirty_writeback_centisecs reason | grep -q 'dirty_writeback_centisecs = ac:500 battery:1500'"
mkdir -p "$root/etc/kernel"
printf 'root=/dev/sda2 ro nmi_watchdog=panic quiet\n' >"$root/etc/kernel/cmdline"
ic --profile balanced plan --json >"$tmp/p4" 2>&1
check "nmi_watchdog= on the target's kernel command line is the administrator's: skipped" sh -c "
        test -z \"\$(setting '$tmp/p4' kernel.nmi_watchdog value)\" &&
        setting '$tmp/p4' kernel.nmi_watchdog reason | grep -q 'the kernel command line sets nmi_watchdog=panic: that choice stays'"
rm -f "$root/etc/kernel/cmdline"

# other sysctl.d files that set the same keys
mkdir -p "$root/etc/sysctl.d" "$root/usr/lib/sysctl.d" "$root/run/sysctl.d"
printf '# mine\nkernel.nmi_watchdog=1\n' >"$root/etc/sysctl.d/99-local.conf"
printf 'vm.dirty_writeback_centisecs = 700\n' >"$root/usr/lib/sysctl.d/99-local.conf"
printf 'vm.dirty_writeback_centisecs = 500\n' >"$root/usr/lib/sysctl.d/50-default.conf"
printf '\n; the admin\n-vm/dirty_writeback_centisecs = 3000\n' >"$root/etc/sysctl.d/60-admin.conf"
printf 'kernel.nmi_watchdog = 0\n' >"$root/run/sysctl.d/95-same.conf"
printf 'kernel.nmi_watchdog = 1\n' >"$root/etc/sysctl.d/README"
printf 'kernel.nmi_*= 1\n' >"$root/etc/sysctl.conf"
ic --profile powersave plan --json >"$tmp/p5" 2>&1
warnings "$tmp/p5" >"$tmp/w5"
check "a file read after ours that sets another value is named with file:line: it wins" \
        grep -q "^$root/etc/sysctl.d/99-local.conf:2 sets kernel.nmi_watchdog = 1 and is read after /etc/sysctl.d/90-idlecfg.conf: it wins" "$tmp/w5"
check "an administrator's file read before ours (slash spelling, '-' prefix): ours replaces it, said" \
        grep -q "^$root/etc/sysctl.d/60-admin.conf:3 sets vm.dirty_writeback_centisecs = 3000; /etc/sysctl.d/90-idlecfg.conf, read after it, replaces that with 1500" "$tmp/w5"
check "/etc/sysctl.conf (procps reads it last), glob key: named" \
        grep -q "^$root/etc/sysctl.conf:1 sets kernel.nmi_watchdog = 1 and is read after" "$tmp/w5"
check "silent: the distribution's defaults before ours, a file /etc hides, the same value, a name without .conf" sh -c "
        test \$(grep -c 'sets ' '$tmp/w5') -eq 3 && ! grep -q -e 50-default -e usr/lib/sysctl.d/99-local -e 95-same -e README '$tmp/w5'"
rm "$root/etc/sysctl.d/99-local.conf" "$root/usr/lib/sysctl.d/99-local.conf" "$root/etc/sysctl.d/60-admin.conf"
ln -s ../sysctl.conf "$root/etc/sysctl.d/99-sysctl.conf"
ic --profile powersave plan --json >"$tmp/p6" 2>&1
warnings "$tmp/p6" >"$tmp/w6"
check "Debian's 99-sysctl.conf -> ../sysctl.conf: one warning, under the link's name" sh -c "
        test \$(grep -c 'sets ' '$tmp/w6') -eq 1 && grep -q '^$root/etc/sysctl.d/99-sysctl.conf:1 sets kernel.nmi_watchdog = 1 and is read after' '$tmp/w6'"
# a minbase root without procps: the link dangles inside the root, and
# systemd-sysctl (parse_file(..., ignore_enoent)) skips it without a word
rm "$root/etc/sysctl.conf"
ic --profile powersave plan --json >"$tmp/p7" 2>"$tmp/e7"
mv "$root/etc/sysctl.d/99-sysctl.conf" "$tmp/99-sysctl.conf"
ic --profile powersave plan --json >"$tmp/p7-none" 2>"$tmp/e7-none"
check "Debian's 99-sysctl.conf dangling inside the root (no procps): no warning, the plan as without the link" sh -c "
        ! grep -q -e 99-sysctl -e 'leading out of the root' -e 'does not exist' '$tmp/p7' '$tmp/e7' && cmp '$tmp/p7-none' '$tmp/p7'"
# a link whose .. climbs above the root, and an absolute one to a file of this machine: said
printf 'kernel.nmi_watchdog = 1\n' >"$tmp/host-sysctl.conf"
ln -s ../../../../../../../../../../../../../../"$tmp/host-sysctl.conf" "$root/etc/sysctl.d/97-up.conf"
ln -s "$tmp/host-sysctl.conf" "$root/etc/sysctl.d/98-host.conf"
ic --profile powersave plan --json >"$tmp/p8" 2>"$tmp/w8"
check "sysctl.d links out of the root (.. above it, absolute to this machine's file): each warned as such, not read" sh -c "
        grep -q 'warning: $root/etc/sysctl.d/97-up.conf: a symbolic link leading out of the root (to \.\./' '$tmp/w8' &&
        grep -q 'warning: $root/etc/sysctl.d/98-host.conf: a symbolic link leading out of the root (to $tmp/host-sysctl.conf)' '$tmp/w8' &&
        ! grep -q 'sets kernel.nmi_watchdog' '$tmp/w8'"
rm "$root/etc/sysctl.d/97-up.conf" "$root/etc/sysctl.d/98-host.conf"
# /etc/sysctl.conf named directly (procps reads it), a link to nothing: said for what it is
ln -s sysctl.conf.dpkg-dist "$root/etc/sysctl.conf"
ic --profile powersave plan --json >"$tmp/p9" 2>"$tmp/w9"
check "/etc/sysctl.conf a link to nothing inside the root: named, 'a symbolic link to ..., which does not exist'" \
        grep -q "warning: $root/etc/sysctl.conf: a symbolic link to sysctl.conf.dpkg-dist, which does not exist" "$tmp/w9"
rm -rf "$root/etc/sysctl.d" "$root/usr/lib/sysctl.d" "$root/run/sysctl.d" "$root/etc/sysctl.conf" "$root/boot"

ic --profile powersave plan --format=sysctl >"$tmp/rendered" 2>&1
check "plan --format=sysctl: the header, then each setting's reason and key = value, sorted by key" sh -c "
        head -n 1 '$tmp/rendered' | grep -q '^# Generated by idlecfg .* for profile powersave, fingerprint [0-9a-f]*, kernel $KVER\.\$' &&
        test \"\$(grep -v '^#' '$tmp/rendered' | grep .)\" = 'kernel.nmi_watchdog = 0
vm.dirty_writeback_centisecs = 1500' &&
        grep -q '^# kernel.nmi_watchdog: profile powersave \[kernel\] nmi_watchdog = off ' '$tmp/rendered'"

# ---- install and rollback in a temporary root ----
tree "$root" >"$tmp/orig.tree"
ic --profile powersave install --dry-run >"$tmp/dry" 2>&1; rc=$?
check "install --dry-run: exit 1, a diff that creates the sysctl.d file, nothing written" sh -c "
        test $rc -eq 1 && grep -q '^+++ b/etc/sysctl.d/90-idlecfg.conf' '$tmp/dry' && grep -qx '+kernel.nmi_watchdog = 0' '$tmp/dry' &&
        grep -qx '+vm.dirty_writeback_centisecs = 1500' '$tmp/dry' && tree '$root' | cmp -s - '$tmp/orig.tree'"
ic --profile powersave install >"$tmp/i1" 2>&1; rc=$?
check "install writes /etc/sysctl.d/90-idlecfg.conf as plan renders it, mode 0644, recorded in the manifest" sh -c "
        test $rc -eq 4 && cmp '$tmp/rendered' '$root/etc/sysctl.d/90-idlecfg.conf' &&
        test \$(stat -c %a '$root/etc/sysctl.d/90-idlecfg.conf') = 644 &&
        grep -q '^file /etc/sysctl.d/90-idlecfg.conf [0-9a-f]\{64\} 0644 new\$' '$root/var/lib/idlecfg/manifest' &&
        grep -q '90-idlecfg.conf (sysctl.d lines, 2 settings)' '$tmp/i1' &&
        ! grep -q 'sysctl -p' '$tmp/i1'"
ic --profile powersave install >"$tmp/i2" 2>&1; rc=$?
# exit 4: the root has no boot loader, the command-line words are in /etc/idlecfg/cmdline only
check "install again: exit 4, nothing to change" sh -c "test $rc -eq 4 && grep -q 'Nothing to change' '$tmp/i2'"
ic --profile performance install >"$tmp/i3" 2>&1
check "install of a profile that keeps both: the file goes, as it was never there" sh -c "
        ! test -e '$root/etc/sysctl.d/90-idlecfg.conf' && grep -q 'removed .*90-idlecfg.conf: nothing of ours is needed there now' '$tmp/i3'"
ic --profile powersave install >/dev/null 2>&1
ic rollback install >"$tmp/r1" 2>&1; rc=$?
check "rollback: exit 0, the root as before, /etc/sysctl.d too (install made it)" sh -c "
        test $rc -eq 0 && tree '$root' | diff '$tmp/orig.tree' - && ! test -e '$root/etc/sysctl.d'"
mkdir -p "$root/etc/sysctl.d"
printf '# left by hand\nvm.dirty_writeback_centisecs = 6000\n' >"$root/etc/sysctl.d/90-idlecfg.conf"
chmod 0600 "$root/etc/sysctl.d/90-idlecfg.conf"
tree "$root" >"$tmp/orig2.tree"
ic --profile powersave install >"$tmp/i4" 2>&1
ic rollback install >"$tmp/r2" 2>&1; rc=$?
check "a file already at our name: replaced with a backup (mode kept), restored exactly by rollback" sh -c "
        grep -q 'changed .*90-idlecfg.conf (sysctl.d lines, 2 settings; the old file is kept for rollback)' '$tmp/i4' &&
        test $rc -eq 0 && tree '$root' | diff '$tmp/orig2.tree' -"
rm -rf "$root/etc/sysctl.d"

# ---- apply, verify and rollback against the test's /proc ----
proc=$tmp/proc
mkproc() {
        rm -rf "$proc"
        mkdir -p "$proc/sys/kernel" "$proc/sys/vm"
        printf '1\n' >"$proc/sys/kernel/nmi_watchdog"
        printf '500\n' >"$proc/sys/vm/dirty_writeback_centisecs"
}
mkproc
tree "$proc" >"$tmp/proc.before"
IDLECFG_TEST_PROC=$proc ic --profile powersave apply >"$tmp/a1" 2>&1; rc=$?
check "apply: both sysctls written to the test's /proc/sys, old and new value said" sh -c "
        test $rc -eq 0 && test \"\$(cat '$proc/sys/kernel/nmi_watchdog') \$(cat '$proc/sys/vm/dirty_writeback_centisecs')\" = '0 1500' &&
        grep -q 'set kernel.nmi_watchdog on system: $proc/sys/kernel/nmi_watchdog 1 -> 0' '$tmp/a1' &&
        grep -q 'set kernel.dirty_writeback_centisecs on system: $proc/sys/vm/dirty_writeback_centisecs 500 -> 1500' '$tmp/a1'"
check "the journal names each /proc/sys file with the value read and the one written" sh -c "
        grep -qF 'set $proc/sys/kernel/nmi_watchdog 1\x0a 0' '$root/var/lib/idlecfg/apply.journal' &&
        grep -qF 'set $proc/sys/vm/dirty_writeback_centisecs 500\x0a 1500' '$root/var/lib/idlecfg/apply.journal'"
# verify --json says the power source it assumed on standard error (idlecfg(8))
IDLECFG_TEST_PROC=$proc ic --profile powersave verify --json >"$tmp/v1" 2>"$tmp/v1.err"
check "verify after apply: both sysctl settings match" sh -c "
        python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); s = {x[\"knob\"]: x[\"state\"] for x in d[\"settings\"] if x[\"mechanism\"] == \"sysctl\"}; sys.exit(s != {\"kernel.nmi_watchdog\": \"match\", \"kernel.dirty_writeback_centisecs\": \"match\"})' '$tmp/v1'"
IDLECFG_TEST_PROC=$proc ic rollback apply >"$tmp/r3" 2>&1; rc=$?
IDLECFG_TEST_PROC=$proc ic --profile powersave verify >"$tmp/v2" 2>&1
check "rollback: the /proc/sys files byte for byte as before; verify then shows the drift" sh -c "
        test $rc -eq 0 && tree '$proc' | diff '$tmp/proc.before' - &&
        grep -q '^  drift   kernel.nmi_watchdog system kernel.nmi_watchdog: wanted 0, is 1' '$tmp/v2'"
chmod 0444 "$proc/sys/kernel/nmi_watchdog"
IDLECFG_TEST_PROC=$proc ic --profile powersave apply >"$tmp/a2" 2>&1
check "a read-only nmi_watchdog (no hard-lockup detector) is left alone and said" sh -c "
        grep -q 'absent: kernel.nmi_watchdog kernel.nmi_watchdog=0: $proc/sys/kernel/nmi_watchdog is read-only in the running kernel' '$tmp/a2' &&
        test \"\$(cat '$proc/sys/kernel/nmi_watchdog')\" = 1 && ! grep -q 'nmi_watchdog' '$root/var/lib/idlecfg/apply.journal'"
IDLECFG_TEST_PROC=$proc ic rollback apply >/dev/null 2>&1
rm "$proc/sys/kernel/nmi_watchdog"
IDLECFG_TEST_PROC=$proc ic --profile powersave apply >"$tmp/a3" 2>&1
check "a kernel without the sysctl: said, nothing created" sh -c "
        grep -q 'absent: kernel.nmi_watchdog kernel.nmi_watchdog=0: the running kernel has no $proc/sys/kernel/nmi_watchdog' '$tmp/a3' &&
        ! test -e '$proc/sys/kernel/nmi_watchdog'"
IDLECFG_TEST_PROC=$proc ic rollback apply >/dev/null 2>&1
mkproc
(unset IDLECFG_TEST_PROC; ic --profile powersave apply) >"$tmp/a4" 2>&1
check "under umockdev without IDLECFG_TEST_PROC: /proc/sys is not touched, the journal names none of it" sh -c "
        grep -q 'later: kernel.nmi_watchdog kernel.nmi_watchdog=0: /proc/sys is the host.s under umockdev' '$tmp/a4' &&
        ! grep -q '/proc/sys\|$proc' '$root/var/lib/idlecfg/apply.journal' && tree '$proc' | diff '$tmp/proc.before' -"
ic rollback apply >/dev/null 2>&1

# a journal may only name the sysctls a knob family sets
mkdir -p "$root/var/lib/idlecfg"
printf 'idlecfg-journal 1\nrun 1 0 p\nset %s/sys/kernel/core_pattern core |/tmp/x\n' "$proc" >"$root/var/lib/idlecfg/apply.journal"
printf 'core\n' >"$proc/sys/kernel/core_pattern"
IDLECFG_TEST_PROC=$proc ic rollback apply >"$tmp/r4" 2>&1; rc=$?
check "rollback refuses a journal naming a sysctl no knob family sets: exit 2 with file:line, nothing written" sh -c "
        test $rc -eq 2 && grep -q 'apply.journal:3: refusing a path that is no attribute, parameter or sysctl idlecfg sets: $proc/sys/kernel/core_pattern' '$tmp/r4' &&
        test \"\$(cat '$proc/sys/kernel/core_pattern')\" = core"
rm -rf "$root/var/lib/idlecfg" "$proc/sys/kernel/core_pattern"

# ---- the plan for the running system reads its /proc/sys ----
# The host fact these need: the plan's kernel is the running one. Without
# --kernel the running system's plan is for the kernel it boots next (the
# newest in /lib/modules: another one after an upgrade, before the reboot, or
# a headers-only directory), so the running kernel is named with --kernel
# (where it has no module directory, idlecfg warns: stderr goes aside).
profiles=$(cd "$top_srcdir/profiles" && pwd)
running=$(uname -r)
live() { IDLECFG_TEST_PROC=$proc "$IDLECFG" --profiles-dir "$profiles" --kernel "$running" --profile powersave plan --json \
        2>>"$tmp/live.err"; }
live >"$tmp/l1" 2>&1
check "the running system: current values read from /proc/sys" sh -c "
        test \"\$(setting '$tmp/l1' kernel.nmi_watchdog current) \$(setting '$tmp/l1' kernel.dirty_writeback_centisecs current)\" = '1 500'"
chmod 0444 "$proc/sys/kernel/nmi_watchdog"
live >"$tmp/l2" 2>&1
check "the running system without a hard-lockup detector (read-only nmi_watchdog): skipped, saying why" sh -c "
        test -z \"\$(setting '$tmp/l2' kernel.nmi_watchdog value)\" &&
        setting '$tmp/l2' kernel.nmi_watchdog reason | grep -q 'kernel.nmi_watchdog is read-only: the running kernel has no hard-lockup detector here'"
rm "$proc/sys/kernel/nmi_watchdog"
live >"$tmp/l3" 2>&1
check "the running system without the sysctl at all: skipped, saying why" \
        sh -c "setting '$tmp/l3' kernel.nmi_watchdog reason | grep -q 'the running kernel has no kernel.nmi_watchdog'"
# and the other way round: a plan of the running system for a kernel that is
# not running reads nothing of this one's /proc/sys
IDLECFG_TEST_PROC=$proc "$IDLECFG" --profiles-dir "$profiles" --kernel 0.0.0-idlecfg-test-other --profile powersave \
        plan --json >"$tmp/l4" 2>>"$tmp/live.err"
check "the running system planned for another kernel: no current value from /proc/sys" sh -c "
        test \"\$(setting '$tmp/l4' kernel.dirty_writeback_centisecs value)\" = 1500 &&
        test -z \"\$(setting '$tmp/l4' kernel.dirty_writeback_centisecs current)\""

# ---- a value outside the key's set stops everything, naming file:line ----
mkdir -p "$root/etc/idlecfg/profiles"
printf '[profile]\ninherit = powersave\n[kernel]\ndirty_writeback_centisecs = 50\n' >"$root/etc/idlecfg/profiles/mine.profile"
tree "$root" >"$tmp/orig3.tree"
ic --profile mine install >"$tmp/i5" 2>&1; rc=$?
check "install with dirty_writeback_centisecs = 50: exit 2, file:line named, nothing written" sh -c "
        test $rc -eq 2 && grep -q 'mine.profile:4: value 50 for \[kernel\] dirty_writeback_centisecs is out of range; valid: keep or an integer 100..6000' '$tmp/i5' &&
        tree '$root' | diff '$tmp/orig3.tree' -"
done_testing
