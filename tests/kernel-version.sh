#!/bin/sh
# tests/kernel-version.sh: which kernel version _KERNEL ranges compare. A
# Debian release such as 6.1.0-18-amd64 hides its upstream sublevel: the plan
# takes it from the root's dpkg status (linux-image-RELEASE's Version), says
# which version it used and from where, and skips a device whose entry has a
# range that needs the sublevel when the root does not say it
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}" python3
plan 10

M=$TESTS_DATA/machines/intel-laptop
XHCI=0000:00:14.0
root=$tmp/root
mkroot_installed "$M" "$root" >/dev/null 2>&1 || { echo "Bail out! no root"; exit 1; }
mkdir -p "$root/etc/udev/hwdb.d" "$root/var/lib/dpkg"

# local RANGE: an entry that denies runtime PM of the machine's xHCI for kernels in RANGE
local_entry() {
        printf '# test entry, source: tests/kernel-version.sh\npci:v00008086d000051ED*\n IDLECFG_PCI_RUNTIME_PM=deny\n IDLECFG_PCI_RUNTIME_PM_REASON=test range\n IDLECFG_PCI_RUNTIME_PM_KERNEL=%s\n' \
                "$1" >"$root/etc/udev/hwdb.d/90-local.hwdb"
}
# status VERSION [STATUS]: a dpkg status file with the kernel's image package among others
status() {
        cat >"$root/var/lib/dpkg/status" <<EOF
Package: linux-image-6.1.0-17-amd64
Status: install ok installed
Version: 6.1.69-1

Package: linux-image-$KVER
Status: ${2:-install ok installed}
Maintainer: Debian Kernel Team <debian-kernel@lists.debian.org>
Version: $1
Description: Linux 6.1 for 64-bit PCs (signed)
 The Linux kernel 6.1 and modules for use on PCs with AMD64, Intel 64 or
 VIA Nano processors.

Package: zlib1g
Status: install ok installed
Version: 1:1.2.13.dfsg-1
EOF
}
# plan_json NAME [KERNEL]: the balanced plan; NAME.xhci holds the xHCI's runtime PM setting value|reason
plan_json() {
        run_machine "$M" "$IDLECFG" plan --json --profile balanced --root "$root" --kernel "${2:-$KVER}" \
                >"$tmp/$1.json" 2>"$tmp/$1.err" || { cat "$tmp/$1.err"; return 1; }
        python3 - "$tmp/$1.json" "$XHCI" >"$tmp/$1.xhci" <<'PY' || return 1
import json, sys
p = json.load(open(sys.argv[1]))
print("kernel_version=%s" % p["kernel_version"])
print("kernel_version_source=%s" % p["kernel_version_source"])
for s in p["settings"]:
    if s["knob"] == "pci.runtime_pm" and s["device"] == sys.argv[2]:
        print("setting=%s|%s" % (s["value"] or "", s["reason"]))
PY
}
has() { grep -qF -- "$2" "$tmp/$1.xhci" || { cat "$tmp/$1.xhci"; return 1; }; }

# 1-2: no dpkg status: a range in 6.1 that needs the sublevel is not decided
local_entry '<6.1.80'
rm -f "$root/var/lib/dpkg/status"
unknown() {
        plan_json unknown &&
                has unknown 'kernel_version=None' &&
                has unknown 'kernel_version_source=unknown: 6.1.0-18-amd64 names no upstream sublevel and the root does not say it (no /var/lib/dpkg/status); ranges that need it are not decided' &&
                has unknown "setting=|skipped: hwdb /etc/udev/hwdb.d/90-local.hwdb:3 sets IDLECFG_PCI_RUNTIME_PM=deny for kernels <6.1.80 only, and the upstream sublevel of kernel 6.1.0-18-amd64 is unknown (no /var/lib/dpkg/status): the kernel default stays"
}
check "no dpkg status: <6.1.80 is not decided for 6.1.0-18-amd64, the xHCI skipped with why, JSON says unknown" unknown
text_unknown() {
        run_machine "$M" "$IDLECFG" plan --profile balanced --root "$root" --kernel "$KVER" >"$tmp/unknown.txt" 2>&1 &&
                sed -n 2p "$tmp/unknown.txt" | grep -q '^Kernel version for _KERNEL ranges: unknown: 6.1.0-18-amd64 names no upstream' ||
                { cat "$tmp/unknown.txt"; return 1; }
}
check "plan text says on its second line that the upstream version is unknown" text_unknown

# 3-4: the image package says 6.1.76: the deny holds (6.1.76 < 6.1.80)
status 6.1.76-1
known_old() {
        plan_json old &&
                has old 'kernel_version=6.1.76' &&
                has old 'kernel_version_source=/var/lib/dpkg/status: linux-image-6.1.0-18-amd64 6.1.76-1' &&
                has old 'setting=|skipped: hwdb /etc/udev/hwdb.d/90-local.hwdb:3 (test range)'
}
check "dpkg status says 6.1.76-1: ranges compare 6.1.76, the <6.1.80 deny holds" known_old
explain_known() {
        run_machine "$M" "$IDLECFG" explain "$XHCI" --profile balanced --root "$root" --kernel "$KVER" >"$tmp/explain.txt" 2>&1 &&
                grep -qxF '  kernel 6.1.0-18-amd64, version for _KERNEL ranges: 6.1.76 (/var/lib/dpkg/status: linux-image-6.1.0-18-amd64 6.1.76-1)' "$tmp/explain.txt" ||
                { cat "$tmp/explain.txt"; return 1; }
}
check "explain names the version compared and where it was read" explain_known

# 5: 6.1.90 is past the range: the entry does not apply, the profile decides
# (balanced's runtime_pm = auto)
status '6.1.90-1~deb12u1'
known_new() {
        plan_json new && has new 'kernel_version=6.1.90' && ! grep -q 'setting=.*90-local.hwdb' "$tmp/new.xhci" &&
                has new 'setting=auto|profile balanced [pci] runtime_pm = auto'
}
check "dpkg status says 6.1.90-1~deb12u1: the <6.1.80 entry does not apply" known_new

# 6: a package removed with its configuration kept is not the kernel's version
status 6.1.76-1 'deinstall ok config-files'
not_installed() {
        plan_json removed && has removed 'kernel_version=None' &&
                has removed '(no installed linux-image-6.1.0-18-amd64 in /var/lib/dpkg/status)'
}
check "an image package that is not installed gives no version" not_installed

# 7: a status file over the limit is refused at once, by its size
rm -f "$root/var/lib/dpkg/status"
truncate -s 65M "$root/var/lib/dpkg/status"
too_big() {
        plan_json big && has big 'kernel_version=None' &&
                has big '(/var/lib/dpkg/status: larger than 64 MiB, idlecfg'"'"'s limit for this file)'
}
check "a 65 MiB sparse dpkg status: refused by its size, version unknown, plan exits 0" too_big
rm -f "$root/var/lib/dpkg/status"

# 8: a range the minor version decides needs no sublevel
local_entry '<6.2'
minor() { plan_json minor && has minor 'setting=|skipped: hwdb /etc/udev/hwdb.d/90-local.hwdb:3 (test range)'; }
check "no dpkg status, range <6.2: decided for 6.1.0-18-amd64, the deny holds" minor

# 9-10: a release that names its sublevel is its own version
local_entry '<6.1.80'
mkdir -p "$root/lib/modules"
cp -R "$root/lib/modules/$KVER" "$root/lib/modules/6.1.76"
full() {
        plan_json full 6.1.76 && has full 'kernel_version=6.1.76' && has full 'kernel_version_source=the release' &&
                has full 'setting=|skipped: hwdb /etc/udev/hwdb.d/90-local.hwdb:3 (test range)'
}
check "--kernel 6.1.76: compared as it is, the deny holds" full
full_text() {
        run_machine "$M" "$IDLECFG" plan --profile balanced --root "$root" --kernel 6.1.76 >"$tmp/full.txt" 2>&1 &&
                ! grep -q 'for _KERNEL ranges' "$tmp/full.txt"
}
check "--kernel 6.1.76: the text plan adds no version line" full_text

done_testing
