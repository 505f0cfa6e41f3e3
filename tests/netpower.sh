#!/bin/sh
# tests/netpower.sh: [wifi] power_save and [network] wake_on_lan on a recording
# with a Wi-Fi card and an Ethernet NIC (tests/data/net/wifi-ether.umockdev):
# which mechanism the target root gets (NetworkManager or the driver's
# parameter; a drop-in of 99-default.link, or a skip naming why), the rendered
# files against golden ones, install and an exact rollback, apply and verify
# under umockdev, and bad values refused with file:line.
. "$top_srcdir/tests/lib.sh"
# hwdb_point (the points about an hwdb property the wifi family reads)
. "$top_srcdir/tests/family-lib.sh"
need umockdev-run depmod "${CC:-cc}" python3
plan 46

REC=$TESTS_DATA/net/wifi-ether.umockdev
EXP=$TESTS_DATA/net/expected

idlecfg() { run_machine "$REC" "$IDLECFG" "$@"; }

# plan output of ROOT, profile PROFILE, in FORMAT, line numbers of profiles masked
# (other sections may be added above ours); stderr to $tmp/err
plan_of() {
        idlecfg plan --root "$1" --kernel "$KVER" --profile "$2" --format "$3" 2>"$tmp/err" |
                sed -E 's/\.profile:[0-9]+/.profile:N/g; s/\.hwdb:[0-9]+/.hwdb:N/g; s/fingerprint [0-9a-f]{16}/fingerprint F/'
}

# "knob device value mechanism" of the network settings of a JSON plan, skips with their reason
decisions() {
        python3 -c '
import json, sys
p = json.load(sys.stdin)
for s in p["settings"]:
    if s["knob"].split(".")[0] in ("wifi", "network"):
        print(s["knob"], s["device"], s["value"] or "-", s["mechanism"], s["module"] or "-", s["param"] or "-",
              "" if s["value"] else s["reason"])
for w in p["warnings"]:
    print("warning:", w)'
}

# the state of a root: every file with its content hash, every directory and link
# (not the lock file in run/, which stays by design; not the fixture trees)
tree() {
        (cd "$1" && find . \( -path ./lib -o -path ./usr/share -o -path ./usr/lib/udev -o -path ./run \) -prune -o -print |
                LC_ALL=C sort | while read -r f; do
                if [ -L "$f" ]; then echo "L $f $(readlink "$f")"
                elif [ -d "$f" ]; then echo "D $f"
                else echo "F $f $(sha256sum <"$f" | cut -c1-16) $(stat -c %a "$f")"; fi
        done)
}

base=$tmp/base
mkroot_installed /dev/null "$base" || { echo "Bail out! cannot build the root"; exit 1; }

# roots: plain; with NetworkManager (and Ubuntu's default file); with systemd 252's
# 99-default.link; both
with_nm() {
        mkdir -p "$1/usr/sbin" "$1/etc/NetworkManager/conf.d"
        : >"$1/usr/sbin/NetworkManager"
        chmod 755 "$1/usr/sbin/NetworkManager"
        printf '[connection]\nwifi.powersave = 3\n' >"$1/etc/NetworkManager/conf.d/default-wifi-powersave-on.conf"
}
with_link() {
        mkdir -p "$1/usr/lib/systemd/network" "$1/usr/lib/x86_64-linux-gnu/systemd"
        printf '[Match]\nOriginalName=*\n\n[Link]\nNamePolicy=keep kernel database onboard slot path\nAlternativeNamesPolicy=database onboard slot path\nMACAddressPolicy=persistent\n' \
                >"$1/usr/lib/systemd/network/99-default.link"
        : >"$1/usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared-${2:-252}.so"
}
copy() { rm -rf "$2"; cp -a "$1" "$2"; }

plain=$tmp/plain; copy "$base" "$plain"
nm=$tmp/nm; copy "$base" "$nm"; with_nm "$nm"
full=$tmp/full; copy "$base" "$full"; with_nm "$full"; with_link "$full"

# ---- detect ----
idlecfg detect --root "$plain" --kernel "$KVER" --json >"$tmp/detect.json" 2>"$tmp/err"
check "detect: the Wi-Fi and the Ethernet interface, with kind, driver and device" python3 -c '
import json, sys
net = {d["name"]: d for d in json.load(open(sys.argv[1]))["devices"]["net"]}
ids = {n: d["ids"] for n, d in net.items()}
assert set(net) == {"wlp3s0", "eno1"}, net.keys()
assert ids["wlp3s0"]["kind"] == "wlan" and net["wlp3s0"]["driver"] == "iwlwifi" and ids["wlp3s0"]["device"] == "0000:03:00.0"
assert ids["eno1"]["kind"] == "ether" and net["eno1"]["driver"] == "e1000e" and ids["eno1"]["device"] == "0000:00:1f.6"
' "$tmp/detect.json"

# ---- Wi-Fi power save ----
idlecfg plan --root "$plain" --kernel "$KVER" --json 2>"$tmp/err" >"$tmp/bal.json"
decisions <"$tmp/bal.json" >"$tmp/d"
wifi_deny() {
        grep -q '^wifi.driver_power_save wlp3s0 1 modprobe iwlmvm power_scheme' "$tmp/d" &&
                python3 -c '
import json, sys
s = [s for s in json.load(open(sys.argv[1]))["settings"] if s["knob"] == "wifi.driver_power_save"]
assert len(s) == 1 and s[0]["reason"].startswith("hwdb /usr/lib/udev/hwdb.d/60-idlecfg-wifi.hwdb:"), s
' "$tmp/bal.json"
}
hwdb_point deny IDLECFG_WIFI_POWER_SAVE "no NetworkManager: the BE200's deny entry turns balanced's on into iwlmvm.power_scheme=1 in modprobe.d, naming the entry" wifi_deny
idlecfg plan --root "$plain" --kernel "$KVER" --json --profile powersave 2>"$tmp/err" >"$tmp/p.json"
check "the reason names the hwdb entry of the BE200" \
        grep -q '60-idlecfg-wifi.hwdb:[0-9]* (Intel BE200/BE211' "$tmp/p.json"
# a profile that asks for on, and a hwdb without the deny: the driver's default 2
mkdir -p "$tmp/prof"
printf '[profile]\ninherit = balanced\n[wifi]\npower_save = on\n' >"$tmp/prof/won.profile"
printf '[profile]\ninherit = balanced\n[wifi]\npower_save = off\n' >"$tmp/prof/woff.profile"
nodeny=$tmp/nodeny; copy "$plain" "$nodeny"
grep -v 'IDLECFG_WIFI' "$nodeny/usr/lib/udev/hwdb.d/60-idlecfg-wifi.hwdb" >"$tmp/h" &&
        cp "$tmp/h" "$nodeny/usr/lib/udev/hwdb.d/60-idlecfg-wifi.hwdb"
idlecfg plan --root "$nodeny" --kernel "$KVER" --json --profile won --profiles-dir "$tmp/prof" 2>"$tmp/err" | decisions >"$tmp/d"
hwdb_point keep IDLECFG_WIFI_POWER_SAVE "without the deny entry, on is iwlmvm.power_scheme=2 (balanced, the driver's default)" \
        grep -q '^wifi.driver_power_save wlp3s0 2 modprobe iwlmvm power_scheme' "$tmp/d"
idlecfg plan --root "$nodeny" --kernel "$KVER" --json --profile performance 2>"$tmp/err" | decisions >"$tmp/d"
check "performance keeps it: one skip, the kernel default stays" \
        grep -q '^wifi.power_save None - none - - skipped: profile performance \[wifi\] power_save = keep' "$tmp/d"

plan_of "$nm" balanced networkmanager >"$tmp/nm-balanced.conf"
golden "NetworkManager in the root: balanced renders the conf.d file (BE200: wifi.powersave=2)" \
        "$EXP/networkmanager-balanced.conf" "$tmp/nm-balanced.conf"
with_nm "$nodeny"
idlecfg plan --root "$nodeny" --kernel "$KVER" --format networkmanager --profile won --profiles-dir "$tmp/prof" \
        >"$tmp/won.conf" 2>"$tmp/err"
check "without the deny entry, on is wifi.powersave=3 in the interface's own section" \
        grep -qx 'wifi.powersave=3' "$tmp/won.conf"
idlecfg plan --root "$nm" --kernel "$KVER" --json 2>"$tmp/err" | decisions >"$tmp/d"
check "Ubuntu's default-wifi-powersave-on.conf is read before idlecfg.conf: no warning" \
        sh -c '! grep -q "^warning:.*wifi.powersave" "$1"' sh "$tmp/d"
later=$tmp/later; copy "$nm" "$later"
printf '[connection]\nwifi.powersave = 2\n' >"$later/etc/NetworkManager/conf.d/zz-local.conf"
idlecfg plan --root "$later" --kernel "$KVER" --json 2>"$tmp/err" | decisions >"$tmp/d"
check "a conf.d file read after idlecfg.conf that sets wifi.powersave is named in a warning" \
        grep -q '^warning: /etc/NetworkManager/conf.d/zz-local.conf sets wifi.powersave' "$tmp/d"

# ---- Wake-on-LAN ----
idlecfg plan --root "$plain" --kernel "$KVER" --json --profile powersave 2>"$tmp/err" | decisions >"$tmp/d"
check "no 99-default.link in the root: skipped, saying so" \
        grep -q '^network.wake_on_lan eno1 - none - - skipped: the target has no 99-default.link' "$tmp/d"
plan_of "$full" powersave link >"$tmp/link-powersave.conf"
golden "systemd 252's 99-default.link: powersave renders the drop-in with WakeOnLan=off" \
        "$EXP/link-powersave.conf" "$tmp/link-powersave.conf"
idlecfg plan --root "$full" --kernel "$KVER" --json --profile powersave 2>"$tmp/err" | decisions >"$tmp/d"
check "only the Ethernet NIC gets Wake-on-LAN, by the link mechanism" \
        sh -c 'grep -q "^network.wake_on_lan eno1 off link - WakeOnLan" "$1" && ! grep -q "^network.wake_on_lan wlp3s0" "$1"' \
        sh "$tmp/d"
old=$tmp/old; copy "$base" "$old"; with_link "$old" 247
idlecfg plan --root "$old" --kernel "$KVER" --json --profile powersave 2>"$tmp/err" | decisions >"$tmp/d"
check "systemd 247 reads no .link drop-ins: skipped, naming the version and 248" \
        grep -q '^network.wake_on_lan eno1 - none - - skipped: systemd 247 in the target .*(they came in 248)' "$tmp/d"
masked=$tmp/masked; copy "$base" "$masked"; with_link "$masked"
mkdir -p "$masked/etc/systemd/network"
ln -s /dev/null "$masked/etc/systemd/network/99-default.link"
idlecfg plan --root "$masked" --kernel "$KVER" --json --profile powersave 2>"$tmp/err" | decisions >"$tmp/d"
check "99-default.link masked in /etc: skipped as masked" \
        grep -q '^network.wake_on_lan eno1 - none - - skipped: /etc/systemd/network/99-default.link is masked' "$tmp/d"
rival=$tmp/rival; copy "$full" "$rival"
mkdir -p "$rival/etc/systemd/network"
printf '[Match]\nDriver=e1000e\n\n[Link]\nName=lan0\n' >"$rival/etc/systemd/network/10-lan.link"
idlecfg plan --root "$rival" --kernel "$KVER" --json --profile powersave 2>"$tmp/err" | decisions >"$tmp/d"
check "a .link file that matches the NIC first (Driver=e1000e): skipped, naming it, and a warning" \
        sh -c 'grep -q "^network.wake_on_lan eno1 - none - - skipped: /etc/systemd/network/10-lan.link matches this NIC" "$1" &&
               grep -q "^warning: eno1: /etc/systemd/network/10-lan.link matches it before 99-default.link" "$1"' sh "$tmp/d"
printf '[Match]\nDriver=r8169\n\n[Link]\nName=lan0\n' >"$rival/etc/systemd/network/10-lan.link"
idlecfg plan --root "$rival" --kernel "$KVER" --json --profile powersave 2>"$tmp/err" | decisions >"$tmp/d"
check "a .link file for another driver: the drop-in reaches the NIC, no warning" \
        sh -c 'grep -q "^network.wake_on_lan eno1 off link" "$1" && ! grep -q "^warning: eno1" "$1"' sh "$tmp/d"
printf '[Match]\nMACAddress=02:00:00:00:00:01\n\n[Link]\nName=lan0\n' >"$rival/etc/systemd/network/10-lan.link"
idlecfg plan --root "$rival" --kernel "$KVER" --json --profile powersave 2>"$tmp/err" | decisions >"$tmp/d"
check "a .link file that may match (MACAddress=): planned, with a warning naming it" \
        sh -c 'grep -q "^network.wake_on_lan eno1 off link" "$1" &&
               grep -q "^warning: eno1: /etc/systemd/network/10-lan.link may match it" "$1"' sh "$tmp/d"
idlecfg plan --root "$full" --kernel "$KVER" --json --profile desktop 2>"$tmp/err" | decisions >"$tmp/d"
check "desktop keeps Wake-on-LAN and turns Wi-Fi power save off" \
        sh -c 'grep -q "^network.wake_on_lan None - none - - skipped: profile desktop \[network\] wake_on_lan = keep" "$1" &&
               grep -q "^wifi.power_save wlp3s0 off networkmanager - wifi.powersave" "$1"' sh "$tmp/d"

# ---- EEE off by hwdb entry ([EnergyEfficientEthernet], systemd 258) ----
# a local entry for the recording's I219-V (8086:15bc); the shipped hwdb has none
with_eee() {
        mkdir -p "$1/etc/udev/hwdb.d"
        printf 'pci:v00008086d000015BC*\n IDLECFG_EEE=deny\n IDLECFG_EEE_REASON=tests: a local EEE entry\n' \
                >"$1/etc/udev/hwdb.d/70-eee.hwdb"
}
eee=$tmp/eee; copy "$base" "$eee"; with_link "$eee" 258; with_eee "$eee"
idlecfg plan --root "$eee" --kernel "$KVER" --json >"$tmp/eee.json" 2>"$tmp/err"
decisions <"$tmp/eee.json" >"$tmp/d"
hwdb_point deny IDLECFG_EEE "systemd 258 and an entry for the I219: EEE off by the link mechanism, with the entry's reason" \
        sh -c 'grep -q "^network.eee eno1 off link - EnergyEfficientEthernet.Enable" "$1" &&
               grep -q "70-eee.hwdb:[0-9]* (tests: a local EEE entry); drop-in of /usr/lib/systemd/network/99-default.link" "$2"' \
        sh "$tmp/d" "$tmp/eee.json"
plan_of "$eee" powersave link >"$tmp/link-eee.conf"
golden "systemd 258 and the entry: powersave's drop-in has [EnergyEfficientEthernet] Enable=no beside [Link] WakeOnLan=off" \
        "$EXP/link-eee.conf" "$tmp/link-eee.conf"
noeee=$tmp/noeee; copy "$base" "$noeee"; with_link "$noeee" 258
idlecfg plan --root "$noeee" --kernel "$KVER" --json --profile powersave 2>"$tmp/err" | decisions >"$tmp/d"
plan_of "$noeee" powersave link >"$tmp/link-noeee.conf"
hwdb_point keep IDLECFG_EEE "systemd 258, no entry: nothing about EEE in the plan or the drop-in (WakeOnLan only)" \
        sh -c '! grep -q "network.eee\|EEE" "$1" && ! grep -q "EnergyEfficientEthernet" "$2" &&
               cmp -s "$2" "$3"' sh "$tmp/d" "$tmp/link-noeee.conf" "$EXP/link-powersave.conf"
old257=$tmp/old257; copy "$base" "$old257"; with_link "$old257" 257; with_eee "$old257"
idlecfg plan --root "$old257" --kernel "$KVER" --json --profile powersave 2>"$tmp/err" | decisions >"$tmp/d"
plan_of "$old257" powersave link >"$tmp/link-old257.conf"
hwdb_point deny IDLECFG_EEE "systemd 257: skipped naming 257, 258 and the entry; the drop-in its udevd reads has no EEE section" \
        sh -c 'grep -q "^network.eee eno1 - none - - skipped: systemd 257 in the target .*knows no \[EnergyEfficientEthernet\] section in .link files (it came in 258).*wanted EEE off by hwdb .*70-eee.hwdb" "$1" &&
               grep -q "^network.wake_on_lan eno1 off link" "$1" && ! grep -q "EnergyEfficientEthernet" "$2" &&
               grep -qx "WakeOnLan=off" "$2"' sh "$tmp/d" "$tmp/link-old257.conf"
old247=$tmp/old247; copy "$base" "$old247"; with_link "$old247" 247; with_eee "$old247"
idlecfg plan --root "$old247" --kernel "$KVER" --json 2>"$tmp/err" | decisions >"$tmp/d"
check "systemd 247 (no drop-ins at all): the EEE entry is skipped with the drop-in's reason, balanced keeps Wake-on-LAN" \
        grep -q '^network.eee eno1 - none - - skipped: systemd 247 in the target .*(they came in 248).*; wanted EEE off (\[EnergyEfficientEthernet\] Enable=no) by hwdb' "$tmp/d"
rivale=$tmp/rivale; copy "$eee" "$rivale"
mkdir -p "$rivale/etc/systemd/network"
printf '[Match]\nDriver=e1000e\n\n[Link]\nName=lan0\n' >"$rivale/etc/systemd/network/10-lan.link"
idlecfg plan --root "$rivale" --kernel "$KVER" --json 2>"$tmp/err" | decisions >"$tmp/d"
check "a .link file that takes the NIC first: EEE off skipped naming it, and a warning" \
        sh -c 'grep -q "^network.eee eno1 - none - - skipped: /etc/systemd/network/10-lan.link matches this NIC.*set \[EnergyEfficientEthernet\] Enable=no there" "$1" &&
               grep -q "^warning: eno1: /etc/systemd/network/10-lan.link matches it before 99-default.link: its hwdb entry" "$1"' \
        sh "$tmp/d"
# a second Ethernet interface, without an entry (on the Wi-Fi card's PCI
# function, for want of another in the recording): the drop-in reaches it too
python3 -c 'import sys; sys.stdout.write(open(sys.argv[1]).read().rstrip("\n") + "\n\n" + "\n".join([
    "P: /devices/pci0000:00/0000:00:1c.0/0000:03:00.0/net/eno2", "E: INTERFACE=eno2", "E: IFINDEX=4",
    "E: SUBSYSTEM=net", "A: addr_len=6\\n", "A: carrier=1\\n", "L: device=../../../0000:03:00.0",
    "A: ifindex=4\\n", "A: type=1\\n"]) + "\n")' "$REC" >"$tmp/two.umockdev"
run_machine "$tmp/two.umockdev" "$IDLECFG" plan --root "$eee" --kernel "$KVER" --json 2>"$tmp/err" | decisions >"$tmp/d"
check "two Ethernet NICs, an entry for one: EEE off planned for it alone, the other named in a warning" \
        sh -c 'grep -q "^network.eee eno1 off link" "$1" && ! grep -q "^network.eee eno2" "$1" &&
               grep -q "^warning: eno2: EEE goes off on it too: the drop-in of 99-default.link" "$1" &&
               ! grep -q "^warning: eno1: EEE goes off" "$1"' sh "$tmp/d"
einst=$tmp/einst; copy "$eee" "$einst"
tree "$einst" >"$tmp/before"
idlecfg install --root "$einst" --kernel "$KVER" >"$tmp/einst.out" 2>"$tmp/err"
idlecfg verify --root "$einst" --kernel "$KVER" --json >"$tmp/everify.json" 2>"$tmp/err"
check "install of balanced writes the drop-in with Enable=no only; verify says later (no ETHTOOL_GEEE under umockdev)" \
        sh -c 'f=$1/etc/systemd/network/99-default.link.d/50-idlecfg.conf
               grep -qx "\[EnergyEfficientEthernet\]" "$f" && grep -qx "Enable=no" "$f" && ! grep -q "^\[Link\]" "$f" &&
               python3 -c "
import json, sys
s = [x for x in json.load(open(sys.argv[1]))[\"settings\"] if x[\"knob\"] == \"network.eee\"]
assert len(s) == 1 and s[0][\"state\"] == \"later\" and s[0][\"actual\"] is None, s
" "$2"' sh "$einst" "$tmp/everify.json"
idlecfg rollback --root "$einst" >/dev/null 2>"$tmp/err"
tree "$einst" >"$tmp/after"
check "rollback removes the EEE drop-in: the root exactly as before install" diff -u "$tmp/before" "$tmp/after"
badeee=$tmp/badeee; copy "$eee" "$badeee"
printf 'pci:v00008086d000015BC*\n IDLECFG_EEE=0\n' >"$badeee/etc/udev/hwdb.d/70-eee.hwdb"
rc=0; idlecfg plan --root "$badeee" --kernel "$KVER" >/dev/null 2>"$tmp/err" || rc=$?
check "an hwdb IDLECFG_EEE other than deny: exit 2 naming file:line" \
        sh -c 'test "$1" -eq 2 && grep -q "70-eee.hwdb:2.*IDLECFG_EEE=0" "$2"' sh "$rc" "$tmp/err"

# ---- install, apply, verify, rollback ----
inst=$tmp/inst; copy "$full" "$inst"
tree "$inst" >"$tmp/before"
idlecfg install --root "$inst" --kernel "$KVER" --profile powersave --dry-run >"$tmp/dry" 2>"$tmp/err"
tree "$inst" >"$tmp/after-dry"
check "install --dry-run shows both files and writes nothing" \
        sh -c 'grep -q "^+++ b/etc/NetworkManager/conf.d/idlecfg.conf" "$1" &&
               grep -q "^+++ b/etc/systemd/network/99-default.link.d/50-idlecfg.conf" "$1" && cmp -s "$2" "$3"' \
        sh "$tmp/dry" "$tmp/before" "$tmp/after-dry"
idlecfg install --root "$inst" --kernel "$KVER" --profile powersave --json >"$tmp/inst.json" 2>"$tmp/err"
check "install writes the NetworkManager file and the drop-in, and names their kinds" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
f = {x["path"]: x for x in j["files"]}
assert f["/etc/NetworkManager/conf.d/idlecfg.conf"]["kind"] == "networkmanager", f
assert f["/etc/NetworkManager/conf.d/idlecfg.conf"]["action"] == "write"
assert f["/etc/systemd/network/99-default.link.d/50-idlecfg.conf"]["kind"] == "link"
assert f["/etc/systemd/network/99-default.link.d/50-idlecfg.conf"]["settings"] == 1
' "$tmp/inst.json"
sed -E 's/fingerprint [0-9a-f]{16}/fingerprint F/; s/\.profile:[0-9]+/.profile:N/g' \
        "$inst/etc/systemd/network/99-default.link.d/50-idlecfg.conf" >"$tmp/installed-link"
check "the installed drop-in is the rendered one" cmp "$EXP/link-powersave.conf" "$tmp/installed-link"
check "the manifest records the files and the directory install made" \
        sh -c 'grep -q "99-default.link.d/50-idlecfg.conf" "$1" && grep -q "/etc/systemd/network/99-default.link.d" "$1" &&
               grep -q "NetworkManager/conf.d/idlecfg.conf" "$1"' sh "$inst/var/lib/idlecfg/manifest"
idlecfg install --root "$inst" --kernel "$KVER" --profile powersave >"$tmp/again" 2>"$tmp/err"
check "a second install changes nothing" grep -q "Nothing to change" "$tmp/again"
idlecfg apply --dry-run --root "$inst" --kernel "$KVER" --profile powersave >"$tmp/apply" 2>"$tmp/err"
check "apply lists both network settings as later, with why" \
        sh -c 'grep -q "later: wifi.power_save wifi.powersave=off: NetworkManager sets it" "$1" &&
               grep -q "later: network.wake_on_lan WakeOnLan=off: systemd-udevd sets it" "$1"' sh "$tmp/apply"
idlecfg verify --root "$inst" --kernel "$KVER" --profile powersave --json >"$tmp/verify.json" 2>"$tmp/err"
check "verify under umockdev: later, not drift (the mock cannot answer ETHTOOL_GWOL or nl80211)" python3 -c '
import json, sys
s = [x for x in json.load(open(sys.argv[1]))["settings"] if x["knob"] in ("wifi.power_save", "network.wake_on_lan")]
assert len(s) == 2 and all(x["state"] == "later" and x["actual"] is None for x in s), s
' "$tmp/verify.json"
# back to balanced: the drop-in is no longer wanted and goes, with its directory
idlecfg install --root "$inst" --kernel "$KVER" --profile balanced >"$tmp/bal" 2>"$tmp/err"
check "install of balanced removes the drop-in, keeps the NetworkManager file" \
        sh -c 'test ! -e "$1/etc/systemd/network/99-default.link.d/50-idlecfg.conf" &&
               grep -qx "wifi.powersave=2" "$1/etc/NetworkManager/conf.d/idlecfg.conf"' sh "$inst"
idlecfg rollback --root "$inst" >"$tmp/rb" 2>"$tmp/err"
tree "$inst" >"$tmp/after"
check "rollback leaves the root exactly as before install (files, modes, directories)" \
        diff -u "$tmp/before" "$tmp/after"
# an administrator's drop-in directory is there before: it stays after rollback
admin=$tmp/admin; copy "$full" "$admin"
mkdir -p "$admin/etc/systemd/network/99-default.link.d"
printf '[Link]\nMTUBytes=9000\n' >"$admin/etc/systemd/network/99-default.link.d/10-mtu.conf"
tree "$admin" >"$tmp/before"
idlecfg install --root "$admin" --kernel "$KVER" --profile powersave >/dev/null 2>"$tmp/err"
check "install puts the drop-in beside the administrator's" \
        test -f "$admin/etc/systemd/network/99-default.link.d/50-idlecfg.conf"
idlecfg rollback --root "$admin" >/dev/null 2>"$tmp/err"
tree "$admin" >"$tmp/after"
check "rollback keeps the administrator's drop-in and its directory" diff -u "$tmp/before" "$tmp/after"
# a rival .link file: nothing of Wake-on-LAN is written
printf '[Match]\nDriver=e1000e\n\n[Link]\nName=lan0\n' >"$rival/etc/systemd/network/10-lan.link"
idlecfg install --root "$rival" --kernel "$KVER" --profile powersave >/dev/null 2>"$tmp/err"
check "with a .link file that takes the NIC, install writes no drop-in" \
        test ! -e "$rival/etc/systemd/network/99-default.link.d"

# ---- bad values ----
printf '[profile]\ninherit = balanced\n[wifi]\npower_save = 3\n' >"$tmp/prof/bad1.profile"
printf '[profile]\ninherit = balanced\n[network]\n# ethtool letters\nwake_on_lan = g\n' >"$tmp/prof/bad2.profile"
rc=0; idlecfg plan --root "$plain" --kernel "$KVER" --profile bad1 --profiles-dir "$tmp/prof" >/dev/null 2>"$tmp/err" || rc=$?
check "[wifi] power_save = 3: exit 2 naming file:line and the valid values" \
        sh -c 'test "$1" -eq 2 && grep -q "bad1.profile:4: unknown value .3. for \[wifi\] power_save; valid: on, off, keep" "$2"' \
        sh "$rc" "$tmp/err"
rc=0; idlecfg install --root "$plain" --kernel "$KVER" --profile bad2 --profiles-dir "$tmp/prof" >/dev/null 2>"$tmp/err" || rc=$?
check "[network] wake_on_lan = g: install exits 2 naming file:line and writes nothing" \
        sh -c 'test "$1" -eq 2 && grep -q "bad2.profile:5: unknown value .g. for \[network\] wake_on_lan; valid: off, keep" "$2" &&
               test ! -e "$3/var/lib/idlecfg"' sh "$rc" "$tmp/err" "$plain"
hostile=$tmp/hostile; copy "$nm" "$hostile"
mkdir -p "$hostile/etc/udev/hwdb.d"
printf 'pci:v00008086d0000272B*\n IDLECFG_WIFI_POWER_SAVE=off\n' >"$hostile/etc/udev/hwdb.d/70-local.hwdb"
rc=0; idlecfg plan --root "$hostile" --kernel "$KVER" >/dev/null 2>"$tmp/err" || rc=$?
check "an hwdb IDLECFG_WIFI_POWER_SAVE other than deny: exit 2 naming file:line" \
        sh -c 'test "$1" -eq 2 && grep -q "70-local.hwdb:2.*IDLECFG_WIFI_POWER_SAVE=off" "$2"' sh "$rc" "$tmp/err"
# ---- an interface name the kernel allows and NetworkManager's file cannot match ----
# (a udev rule's NAME= or ip link set name gives it: no '/', ':' or blanks, at
# most 15 bytes): that one setting is a skip with its reason, in plan and
# install alike; everything else installs
for name in 'w"l\p{x}' 'e=n,o'; do
        python3 -c 'import sys; sys.stdout.write(open(sys.argv[1]).read().replace("wlp3s0", sys.argv[2]))' \
                "$REC" "$name" >"$tmp/odd.umockdev"
        odd=$tmp/odd; copy "$full" "$odd"
        run_machine "$tmp/odd.umockdev" "$IDLECFG" plan --root "$odd" --kernel "$KVER" --profile powersave --json \
                2>"$tmp/err" | decisions >"$tmp/d"
        run_machine "$tmp/odd.umockdev" "$IDLECFG" install --root "$odd" --kernel "$KVER" --profile powersave \
                >"$tmp/odd.out" 2>&1; rc=$?
        check "interface $name: wifi.power_save a skip naming it in plan; install (exit $rc) writes the rest, no NetworkManager file" \
                sh -c 'grep -qF "wifi.power_save $3 - none - - skipped: idlecfg'"'"'s NetworkManager file cannot match the interface name '"'"'$3'"'"' (its section names and match-device take 1 to 15 letters, digits, _ . and - only): the power save NetworkManager chooses stays; wanted off by" "$1" &&
                       { test $2 -eq 0 || test $2 -eq 4; } && ! grep -q "not allowed" "$4" &&
                       test ! -e "$5/etc/NetworkManager/conf.d/idlecfg.conf" &&
                       test -f "$5/etc/systemd/network/99-default.link.d/50-idlecfg.conf" &&
                       test -f "$5/etc/udev/rules.d/70-idlecfg.rules"' sh "$tmp/d" $rc "$name" "$tmp/odd.out" "$odd"
done
rc=0; idlecfg plan --root "$plain" --kernel "$KVER" --format wol >/dev/null 2>"$tmp/err" || rc=$?
check "plan --format: an unknown one lists networkmanager and link among the valid" \
        sh -c 'test "$1" -eq 2 && grep -q "valid: .*, networkmanager, link" "$2"' sh "$rc" "$tmp/err"
done_testing
