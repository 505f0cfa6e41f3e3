#!/bin/sh
# tests/refresh-inputs.sh: refresh re-plans when a file of the root changes
# that a knob family or detect reads besides the hwdb, profiles, modules and
# command line (struct knob_input, src/knobs/knob.h; group "system" of the
# manifest), and when the upstream version of an ABI-named kernel changes in
# the dpkg status; a touch of such a file re-installs nothing. On the Wi-Fi +
# Ethernet recording (tests/data/net/wifi-ether.umockdev), whose [wifi] and
# [network] plans depend on NetworkManager, .link files and systemd's version.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}"
plan 19

REC=$TESTS_DATA/net/wifi-ether.umockdev
root=$tmp/root
mkroot_installed /dev/null "$root" || { echo "Bail out! cannot build the root"; exit 1; }
mkdir -p "$root/run" "$root/var/lib/dpkg" "$root/etc/kernel" "$root/boot" "$root/etc/sysctl.d" \
        "$root/usr/lib/systemd/network" "$root/usr/lib/x86_64-linux-gnu/systemd"
printf 'root=/dev/sda1 ro\n' >"$root/etc/kernel/cmdline"
printf 'UUID=0123 / ext4 defaults 0 1\n' >"$root/etc/fstab"
printf '[Match]\nOriginalName=*\n\n[Link]\nNamePolicy=keep kernel database onboard slot path\n' \
        >"$root/usr/lib/systemd/network/99-default.link"
: >"$root/usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared-252.so"
# status VERSION: the root's dpkg status, with the kernel's image package at VERSION
cat >"$tmp/status.sh" <<'SH'
status() {
        printf 'Package: linux-image-%s\nStatus: install ok installed\nVersion: %s\n\nPackage: zlib1g\nStatus: install ok installed\nVersion: 1:1.2.13.dfsg-1\n' \
                "$KVER" "$1" >"$root/var/lib/dpkg/status"
}
SH
. "$tmp/status.sh"
status 6.1.76-1
manifest=$root/var/lib/idlecfg/manifest

# one session: each step's output in $out.N (with its exit status), the manifest after it in $out.N.m
cat >"$tmp/steps.sh" <<'SH'
. "$status_sh"
ic() { "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }
step() { _n=$1; shift; "$@" >"$out.$_n" 2>&1; echo "rc=$?" >>"$out.$_n"; cp "$manifest" "$out.$_n.m"; }
step 1 ic install --profile powersave
# the installer runs the boot step install asks for (exit 4, NEXT STEPS in
# idlecfg(8)): kernel-install makes the target kernel's boot entry from
# /etc/kernel/cmdline; from then on a refresh that changes nothing says nothing
mkdir -p "$root/boot/loader/entries"
printf 'title Debian GNU/Linux\nversion %s\nlinux /vmlinuz-%s\noptions %s\n' "$KVER" "$KVER" \
        "$(cat "$root/etc/kernel/cmdline")" >"$root/boot/loader/entries/$KVER.conf"
test -e "$root/etc/systemd/network/99-default.link.d/50-idlecfg.conf" && echo yes >"$out.dropin"
step 2 ic refresh
sleep 1
touch "$root/etc/fstab" "$root/usr/lib/systemd/network/99-default.link"
step 3 ic refresh
# NetworkManager installed: [wifi] moves from the driver's parameter to its conf.d
mkdir -p "$root/usr/sbin" && : >"$root/usr/sbin/NetworkManager"
step 4 ic refresh
step 5 ic refresh
# the kernel's config, with the hard-lockup detector: [kernel] nmi_watchdog is planned
printf 'CONFIG_HARDLOCKUP_DETECTOR=y\n' >"$root/boot/config-$KVER"
step 6 ic refresh
# a .link file of the administrator's that matches the NIC before 99-default.link
printf '[Match]\nDriver=e1000e\n\n[Link]\nName=lan0\n' >"$root/usr/lib/systemd/network/10-lan.link"
step 7 ic refresh
# systemd older than 248 (no .link drop-ins): the reason of the skip changes
rm "$root/usr/lib/systemd/network/10-lan.link"
mv "$root/usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared-252.so" \
        "$root/usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared-247.so"
step 8 ic refresh
# a sysctl.d file that sets a key the plan sets
printf 'kernel.nmi_watchdog = 1\n' >"$root/etc/sysctl.d/99-local.conf"
step 9 ic refresh
# a kernel package update that keeps the ABI name
status 6.1.192-1
step 10 ic refresh
step 11 ic refresh
# fstab: the plan's storage facts come from it
printf 'UUID=0123 / ext4 defaults 0 1\nUUID=4567 none swap sw 0 0\n' >"$root/etc/fstab"
step 12 ic refresh
# what plan reads of the root, and what an unchanged refresh looks at (src/root/rootfs.c's trace)
IDLECFG_TRACE_READS=$out.plan-reads ic plan --profile powersave >/dev/null 2>&1
IDLECFG_TRACE_READS=$out.refresh-reads ic refresh >"$out.13" 2>&1
# dpkg's database: the kernel package's file list, which dpkg writes anew
# on every unpack of the package; an install records it
mkdir -p "$root/var/lib/dpkg/info"
printf '/boot/vmlinuz-%s\n' "$KVER" >"$root/var/lib/dpkg/info/linux-image-$KVER.list"
step 14 ic install --profile powersave
IDLECFG_TRACE_READS=$out.15-reads step 15 ic refresh
# an upgrade under the same ABI name: the status and a new file list
status 6.1.200-1
cp "$root/var/lib/dpkg/info/linux-image-$KVER.list" "$root/var/lib/dpkg/info/new.list" &&
        mv "$root/var/lib/dpkg/info/new.list" "$root/var/lib/dpkg/info/linux-image-$KVER.list"
step 16 ic refresh
IDLECFG_TRACE_READS=$out.17-reads step 17 ic refresh
SH
out=$tmp/out
run_machine "$REC" env IDLECFG="$IDLECFG" root="$root" KVER="$KVER" manifest="$manifest" out="$out" status_sh="$tmp/status.sh" \
        sh "$tmp/steps.sh" >"$tmp/session.log" 2>&1
quiet() { [ "$(cat "$out.$1")" = "rc=0" ] && cmp -s "$out.$(($1 - 1)).m" "$out.$1.m"; }
# replanned N WHAT: refresh N says WHAT changed, exits 0 and writes a new manifest
replanned() {
        grep -qF "$2" "$out.$1" && grep -q '^rc=0$' "$out.$1" && ! cmp -s "$out.$(($1 - 1)).m" "$out.$1.m" ||
                { diag "refresh $1:"; sed 's/^/  /' "$out.$1" | diag "$(cat)"; return 1; }
}

check "install records the system files and the kernel's upstream version" sh -c "
        grep -q '^input system [0-9a-f]\\{32\\}\$' '$out.1.m' && grep -q '^input system-content [0-9a-f]\\{32\\}\$' '$out.1.m' &&
        grep -q '^input kernel_version 6.1.76\$' '$out.1.m'"
check "refresh with nothing changed: quiet" quiet 2
check "a touch of fstab and of a .link file: nothing re-installed, the system group's stat digest recorded anew" sh -c "
        [ \"\$(cat '$out.3')\" = rc=0 ] &&
        [ \"\$(diff '$out.2.m' '$out.3.m' | sed -n 's/^[<>] //p' | grep -v '^end ' | cut -d' ' -f1-2 | sort -u | tr '\n' ' ')\" = 'input system ' ]"
check "NetworkManager installed: refresh says the system files changed and re-installs" replanned 4 "system: files changed"
check "and writes NetworkManager's conf.d file for [wifi]" grep -q "NetworkManager/conf.d/idlecfg.conf" "$out.4"
check "then quiet" quiet 5
check "the kernel's config appears: re-installs, with the sysctl.d file for nmi_watchdog" sh -c "
        grep -q 'system: files changed' '$out.6' && grep -q 'sysctl.d/90-idlecfg.conf' '$out.6'"
check "a .link file that matches the NIC first: re-installs and removes the 99-default.link drop-in" sh -c "
        test -s '$out.dropin' && grep -q 'system: files changed' '$out.7' &&
        grep -q 'removed .*99-default.link.d/50-idlecfg.conf' '$out.7'"
check "systemd's version changes (its shared library's name): re-plans" replanned 8 "system: files changed"
check "a sysctl.d file of the administrator's: re-plans" replanned 9 "system: files changed"
check "the kernel package's upstream version changes under the same ABI name: re-plans, naming both" \
        replanned 10 "kernel_version: 6.1.76 -> 6.1.192"
check "then quiet" quiet 11
check "fstab changes: re-plans" replanned 12 "system: files changed"
check "every step ran in one session" test -s "$out.12"
# every path plan reads is one refresh looks at, or a file of a directory
# refresh lists, or a directory refresh looks into; a backup (plan reads the
# line before idlecfg's words in /etc/kernel/cmdline there) is named by the
# checksum of its content in the manifest, which refresh reads
uncovered() {
        cut -d' ' -f2- "$out.refresh-reads" | sort -u >"$tmp/r"
        cut -d' ' -f2- "$out.plan-reads" | sort -u | while IFS= read -r p; do
                grep -qxF -- "$p" "$tmp/r" || grep -qxF -- "${p%/*}" "$tmp/r" || grep -qF -- "$p/" "$tmp/r" ||
                        { case $p in */var/lib/idlecfg/backup/*) grep -q '/var/lib/idlecfg/manifest$' "$tmp/r" ;; *) false ;; esac; } ||
                        echo "$p"
        done >"$tmp/uncovered"
        [ -s "$out.plan-reads" ] && [ "$(cat "$out.13")" = "" ] && [ ! -s "$tmp/uncovered" ] ||
                { diag "plan reads what refresh does not digest:"; diag "$(cat "$tmp/uncovered")"; return 1; }
}
check "refresh digests every file of the root that plan reads ($(cut -d' ' -f2- "$out.plan-reads" 2>/dev/null | sort -u | wc -l) paths)" uncovered
# 16-19: with dpkg's database the quiet look does not read the dpkg status
# (a few MiB on a desktop) while the kernel package's file list is the one
# the manifest records
check "with the kernel package's file list, install records it beside the version" sh -c "
        grep -q '^input kernel_version 6.1.192\$' '$out.14.m' &&
        grep -q '^input kernel_version_key linux-image-$KVER\\\\x20' '$out.14.m'" 
check "and a quiet refresh then does not read the dpkg status" sh -c "
        [ \"\$(cat '$out.15')\" = rc=0 ] && cmp -s '$out.14.m' '$out.15.m' &&
        grep -q '/var/lib/dpkg/info/linux-image-$KVER.list' '$out.15-reads' &&
        ! grep -q ' /var/lib/dpkg/status\$' '$out.15-reads'"
check "an upgrade (a new status and a new file list): re-plans, naming both versions" \
        replanned 16 "kernel_version: 6.1.192 -> 6.1.200"
check "then quiet, without reading the status" sh -c "
        [ \"\$(cat '$out.17')\" = rc=0 ] && cmp -s '$out.16.m' '$out.17.m' && ! cmp -s '$out.14.m' '$out.16.m' &&
        ! grep -q ' /var/lib/dpkg/status\$' '$out.17-reads'"

done_testing
