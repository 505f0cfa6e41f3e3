#!/bin/sh
# tests/refresh.sh: refresh's cheap look (src/engine/refresh-run.c and
# refresh.c, src/pipeline/fingerprint.c). The fingerprint read
# straight from /sys must be detect's on every recording; a changed device set
# re-installs and an unchanged one does not; a touched input (same bytes)
# re-installs nothing, changed bytes do; a manifest written before the
# content digests still refreshes correctly; a refresh with nothing changed
# loads neither libkmod (src/root/modules.c opens it only for the module
# indexes) nor libudev (src/pipeline/udev-dl.c: detect's devices).
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}"
REFRESH_FP=${REFRESH_FP:-$top_builddir/tests/refresh-fp}
plan 19

# 1-2: the same fingerprint as detect: recorded machines and a generated one
fp_same() {
        run_machine "$1" sh -c '
                a=$("$1" detect --json 2>/dev/null | sed -n "s/^  \"fingerprint\": \"\(.*\)\",$/\1/p")
                b=$("$2" | cut -d" " -f1)
                [ -n "$a" ] && [ "$a" = "$b" ] || echo "detect ${a:-?}, refresh $b"' sh "$IDLECFG" "$REFRESH_FP"
}
bad=
n=0
for m in "$TESTS_DATA"/machines/*/; do
        out=$(fp_same "$m" 2>&1) || out="failed: $out"
        [ -z "$out" ] || bad="$bad $(basename "$m"): $out;"
        n=$((n + 1))
done
check_msg() { if [ -z "$2" ]; then ok "$1"; else not_ok "$1"; diag "$2"; fi; }
check_msg "refresh's fingerprint from /sys is detect's on the $n recorded machines" "$bad"
sh "$top_srcdir/tests/bench/gen-machine.sh" 600 >"$tmp/gen.umockdev"
out=$(fp_same "$tmp/gen.umockdev" 2>&1) || out="failed: $out"
check_msg "refresh's fingerprint is detect's on a generated machine of 600 devices" "$out"
# (every shared fixture recording: tests/detect-fixtures.sh, in its detect sessions)
# 3: what the fingerprint reads of /sys on the AMD laptop (2 SATA hosts, an
# NVMe disk, 2 sound cards, USB devices with interfaces): every PCI and USB
# device's uevent once; no uevent of a USB interface, a SCSI host, a sound
# card or control, an NVMe controller or an HDA codec (the kernel's names tell
# which devices have an identity; the others' take an uevent read and a link
# read each); the codecs' and the disk's identity attributes
run_machine "$TESTS_DATA/machines/amd-laptop" env IDLECFG_TRACE_READS="$tmp/fp.reads" "$REFRESH_FP" >/dev/null 2>&1
ue=$(grep '^live /sys/.*/uevent$' "$tmp/fp.reads" | sed 's|^live /sys/devices/||; s|/uevent$||')
pci=$(printf '%s\n' "$ue" | grep -c '[0-9a-f]:[0-9a-f][0-9a-f]\.[0-9a-f]$')
usb=$(printf '%s\n' "$ue" | grep -c -e '/usb[0-9]*$' -e '/[0-9]-[0-9.]*$')
check "the fingerprint reads the uevent of every PCI and USB device once, and no uevent of a USB interface, SCSI host, sound or NVMe class device or HDA codec" sh -c "
        [ $pci -eq 30 ] && [ $usb -eq 6 ] && [ \$(printf '%s\n' '$ue' | sort | uniq -d | wc -l) -eq 0 ] &&
        ! printf '%s\n' '$ue' | grep -q -e ':1\.[0-9]*\$' -e 'host[0-9]*\$' -e 'sound/' -e 'nvme' -e 'hdaudioC' &&
        grep -q '^live /sys/.*/nvme/nvme0/model\$' '$tmp/fp.reads' && grep -q '^live /sys/.*/hdaudioC1D0/vendor_id\$' '$tmp/fp.reads'"

root=$tmp/root
mkroot_installed "$TESTS_DATA/machines/intel-laptop" "$root" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$root/var/lib" "$root/run" "$root/etc/kernel" "$root/etc/idlecfg"
printf 'root=/dev/nvme0n1p2 ro\n' >"$root/etc/kernel/cmdline"
# the boot entry kernel-install makes from /etc/kernel/cmdline once balanced's
# word is there: the boot configuration lacks nothing (no exit 4)
mkdir -p "$root/boot/loader/entries"
printf 'version %s\noptions root=/dev/nvme0n1p2 ro pcie_aspm.policy=default\n' "$KVER" >"$root/boot/loader/entries/test.conf"
manifest=$root/var/lib/idlecfg/manifest

# one session on the laptop: each step's output in $out.N, the manifest after it in $out.N.m
cat >"$tmp/steps.sh" <<'SH'
ic() { "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }
step() { _n=$1; shift; "$@" >"$out.$_n" 2>&1; echo "rc=$?" >>"$out.$_n"; cp "$manifest" "$out.$_n.m"; }
step 1 ic install --profile balanced
step 2 ic refresh
# a touch of every kind of input: same bytes, new times
sleep 1
touch "$root"/usr/lib/udev/hwdb.d/*.hwdb "$root"/usr/share/idlecfg/profiles/*.profile "$root/etc/kernel/cmdline" \
        "$root/lib/modules/$KVER/modules.alias"
step 3 ic refresh
IDLECFG_TRACE_READS=$out.3b-reads step 3b ic refresh
# the same bytes in a new file (a package upgrade): a new inode
f=$(ls "$root"/usr/lib/udev/hwdb.d/*.hwdb | head -n 1)
cp -p "$f" "$f.tmp" && mv "$f.tmp" "$f"
step 4 ic refresh
IDLECFG_TRACE_READS=$out.4b-reads step 4b ic refresh
# changed bytes
printf '# local\nusb:v1234p5678*\n IDLECFG_USB_AUTOSUSPEND=deny\n' >"$root/usr/lib/udev/hwdb.d/90-local.hwdb"
step 5 ic refresh
step 6 ic refresh
# a manifest as written before the content digests: no *-content inputs (and
# its end record made again, as idlecfg writes one)
grep -v '^input [a-z]*-content \|^end ' "$manifest" >"$manifest.old" &&
        printf 'end %s %s\n' "$(wc -l <"$manifest.old")" "$(sha256sum <"$manifest.old" | cut -c1-64)" >>"$manifest.old" &&
        mv "$manifest.old" "$manifest"
cp "$manifest" "$out.old-format"
step 7 ic refresh
cp -p "$root/usr/lib/udev/hwdb.d/90-local.hwdb" "$root/usr/lib/udev/hwdb.d/90-local.new" &&
        mv "$root/usr/lib/udev/hwdb.d/90-local.new" "$root/usr/lib/udev/hwdb.d/90-local.hwdb"
step 8 ic refresh
step 9 ic refresh
SH
out=$tmp/out
run_machine "$TESTS_DATA/machines/intel-laptop" env IDLECFG="$IDLECFG" root="$root" KVER="$KVER" \
        manifest="$manifest" out="$out" sh "$tmp/steps.sh" >"$tmp/session.log" 2>&1
quiet() { [ "$(cat "$out.$1")" = "rc=0" ] && cmp -s "$out.$(($1 - 1)).m" "$out.$1.m"; }

check "install writes the stat and the content digests of each input group" sh -c "
        for g in hwdb profiles modules boot system; do grep -q \"^input \$g [0-9a-f]\\{32\\}\$\" '$out.1.m' &&
                grep -q \"^input \$g-content [0-9a-f]\\{32\\}\$\" '$out.1.m' || exit 1; done"
check "refresh, the same machine and nothing changed: exit 0, no output, manifest untouched" quiet 2
# the kinds of the manifest's lines that differ between steps A and B, but the end record
differs() { diff "$out.$1.m" "$out.$2.m" | sed -n 's/^[<>] //p' | grep -v '^end ' | cut -d' ' -f1-2 | sort -u | tr '\n' ' '; }
d3=$(differs 2 3) d4=$(differs 3b 4)
check "refresh after a touch of hwdb, profile, boot and module files: nothing re-installed" sh -c "
        [ \"\$(cat '$out.3')\" = rc=0 ]"
check "and only the stat digests of the boot and module groups are recorded anew (hwdb and profiles are /usr's: name and inode)" \
        test "$d3" = "input boot input modules "
check "so the next refresh reads no contents, and writes nothing" sh -c "
        [ \"\$(cat '$out.3b')\" = rc=0 ] && cmp -s '$out.3.m' '$out.3b.m' && ! grep -q '^read .*\.hwdb\$' '$out.3b-reads' &&
        ! grep -q '^read .*/modules\.' '$out.3b-reads' && test -s '$out.3b-reads'"
check "refresh after a file was replaced by the same bytes (new inode): nothing re-installed, its new stat digest recorded" sh -c "
        [ \"\$(cat '$out.4')\" = rc=0 ] && [ '$d4' = 'input hwdb ' ] &&
        [ \"\$(cat '$out.4b')\" = rc=0 ] && cmp -s '$out.4.m' '$out.4b.m' && ! grep -q '^read .*\.hwdb\$' '$out.4b-reads'"
check "refresh after an hwdb file changed: re-installs and says why" sh -c "
        grep -q 'hwdb: files changed' '$out.5' && grep -q '^rc=0' '$out.5' && ! cmp -s '$out.4.m' '$out.5.m'"
check "and the next refresh is quiet again" quiet 6
check "a manifest without content digests (older idlecfg): unchanged inputs, nothing re-installed" sh -c "
        test \"\$(cat '$out.7')\" = rc=0 && cmp -s '$out.old-format' '$out.7.m'"
check "with that manifest the same bytes in a new file re-install as before, and the new manifest has content digests" sh -c "
        grep -q 'hwdb: files changed' '$out.8' && grep -q '^input hwdb-content ' '$out.8.m' &&
        ! grep -q '^input hwdb-content ' '$out.old-format'"
check "(then quiet)" quiet 9

# 12-13: another device set re-installs; the first again re-installs back
run_machine "$TESTS_DATA/machines/amd-laptop" "$IDLECFG" --root "$root" --kernel "$KVER" refresh >"$out.10" 2>&1; rc=$?
check "refresh on another machine (the device set changed): re-installs, names the fingerprint" sh -c "
        test $rc -eq 0 && grep -q '^  fingerprint: ' '$out.10' && grep -q '^Installing profile' '$out.10'"
run_machine "$TESTS_DATA/machines/amd-laptop" "$IDLECFG" --root "$root" --kernel "$KVER" refresh >"$out.11" 2>&1; rc=$?
check "then on the same machine again: nothing to do" sh -c "test $rc -eq 0 && test ! -s '$out.11'"

# 14: the libraries ld.so loads (LD_DEBUG=files): libkmod.so.2 (and with it
# libcrypto) for plan, which reads the module indexes, and libudev.so.1, which
# detect's devices are read with; neither for the quiet refresh
mkdir -p "$tmp/ld"
run_machine "$TESTS_DATA/machines/amd-laptop" env LD_DEBUG=files LD_DEBUG_OUTPUT="$tmp/ld/refresh" \
        "$IDLECFG" --root "$root" --kernel "$KVER" refresh >"$out.12" 2>&1; rc=$?
run_machine "$TESTS_DATA/machines/amd-laptop" env LD_DEBUG=files LD_DEBUG_OUTPUT="$tmp/ld/plan" \
        "$IDLECFG" --root "$root" --kernel "$KVER" plan >"$out.13" 2>&1
check "refresh with nothing changed loads neither libkmod.so.2 nor libudev.so.1; plan loads both" sh -c "
        test $rc -eq 0 && test ! -s '$out.12' && ls '$tmp/ld/' | grep -q '^refresh' &&
        ! cat '$tmp'/ld/refresh* | grep -q -e 'file=libkmod' -e 'file=libudev' &&
        cat '$tmp'/ld/plan* | grep -q 'file=libkmod.so.2 ' && cat '$tmp'/ld/plan* | grep -q 'file=libudev.so.1 '"

# 18-19: what refresh_run() decides and the command line only says: -v
# after a touch (stale inputs recorded, then up to date); a profile that can
# no longer be chosen at the full look (exit 2, said, nothing written)
sleep 1
touch "$root/etc/kernel/cmdline"
cp "$manifest" "$out.14.before"
run_machine "$TESTS_DATA/machines/amd-laptop" "$IDLECFG" --root "$root" --kernel "$KVER" -v refresh >"$out.14" 2>&1; rc=$?
check "refresh -v after a touch: says the stat data is recorded anew, then up to date; exit 0" sh -c "
        test $rc -eq 0 && grep -q 'recorded anew in the manifest of $root' '$out.14' &&
        grep -q '^$root is up to date' '$out.14' && ! cmp -s '$out.14.before' '$manifest'"
mv "$root/usr/share/idlecfg/profiles/balanced.profile" "$tmp/balanced.profile"
cp "$manifest" "$out.15.before"
run_machine "$TESTS_DATA/machines/amd-laptop" "$IDLECFG" --root "$root" --kernel "$KVER" refresh >"$out.15" 2>&1; rc=$?
mv "$tmp/balanced.profile" "$root/usr/share/idlecfg/profiles/balanced.profile"
check "refresh when the installed profile is gone: exit 2, names it, nothing written" sh -c "
        test $rc -eq 2 && grep -q 'balanced' '$out.15' && ! grep -q '^Installing' '$out.15' &&
        cmp -s '$out.15.before' '$manifest'"
done_testing
