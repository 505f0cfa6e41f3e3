#!/bin/sh
# tests/hwdb-db.sh: idlecfg's policy database (hwdb/*.hwdb) and static udev rules
# (rules/*.rules): clean for systemd-hwdb, documented, well-formed, and answering
# for the kernel quirk rows they were made from
. "$top_srcdir/tests/lib.sh"
need systemd-hwdb
SYSTEMD_HWDB=$(PATH=$PATH:/sbin:/usr/sbin command -v systemd-hwdb)
HWDB_QUERY=${HWDB_QUERY:-$top_builddir/tests/hwdb-query}
QUIRKS=$FIXTURES/kernel-quirks
RULES=$top_srcdir/rules/60-idlecfg.rules
plan 26

# the database in a root of its own, compiled once
root=$tmp/root
mkdir -p "$root/etc/udev/hwdb.d"
cp "$top_srcdir"/hwdb/*.hwdb "$root/etc/udev/hwdb.d/"

# 1-2: systemd 252's --strict fails only on unreadable files, so it must not
# print a single warning either; our reader's strict load stops at the first
"$SYSTEMD_HWDB" --strict --root "$root" update >"$tmp/strict.log" 2>&1; rc=$?
if [ "$rc" -eq 0 ] && [ ! -s "$tmp/strict.log" ]; then
        ok "systemd-hwdb --strict accepts hwdb/*.hwdb ($(ls "$top_srcdir"/hwdb/*.hwdb | wc -l) files) without a warning"
else
        not_ok "systemd-hwdb --strict accepts hwdb/*.hwdb without a warning (exit $rc)"
        diag "$(cat "$tmp/strict.log")"
fi
if [ -x "$HWDB_QUERY" ]; then
        check "our strict load accepts hwdb/*.hwdb" "$HWDB_QUERY" --strict "$root"
else
        skip "our strict load accepts hwdb/*.hwdb ($HWDB_QUERY not built)"
fi

# 3-7: one pass over the files; each problem is a line "TAG FILE:LINE: what".
# An entry is its match lines and properties; its comment is the block of
# '#' lines right above it. The header is the comment block that opens a file.
awk '
BEGIN {
        H = "[0-9A-F]"; H4 = H H H H; ID = "(0000" H4 "|\\*)"
        # property: the values it may have, the keys it may sit on
        split("PCI_RUNTIME_PM ASPM_DENY ASPM_ALLOW SATA_ALPM NVME_APST USB_AUTOSUSPEND " \
              "USB_PERSIST AUDIO_POWER_SAVE I2C_RUNTIME_PM MEM_SLEEP I915_PSR I915_FBC AMDGPU_ABM AHCI_RUNTIME_PM " \
              "WIFI_POWER_SAVE BLUETOOTH_AUTOSUSPEND WAKEUP EEE NIC_DASH NVIDIA_RTD3 THUNDERBOLT_QUIRK", p, " ")
        for (i in p) known["IDLECFG_" p[i]] = 1
        st = "(l0s|l1|l1_1|l1_2|clkpm|l1_1_pcipm|l1_2_pcipm)"
        val["IDLECFG_PCI_RUNTIME_PM"] = "^(deny|allow)$"
        val["IDLECFG_NIC_DASH"] = "^enabled$"
        val["IDLECFG_ASPM_DENY"] = val["IDLECFG_ASPM_ALLOW"] = "^" st "(," st ")*$"
        val["IDLECFG_SATA_ALPM"] = "^deny$"
        val["IDLECFG_NVME_APST"] = "^(deny|no-deepest)$"
        val["IDLECFG_USB_AUTOSUSPEND"] = "^(allow|deny)$"
        val["IDLECFG_USB_PERSIST"] = "^0$"
        val["IDLECFG_WIFI_POWER_SAVE"] = "^deny$"
        val["IDLECFG_EEE"] = "^deny$"
        val["IDLECFG_BLUETOOTH_AUTOSUSPEND"] = "^deny$"
        val["IDLECFG_WAKEUP"] = "^disabled$"
        val["IDLECFG_AUDIO_POWER_SAVE"] = "^deny$"
        val["IDLECFG_I2C_RUNTIME_PM"] = "^(deny|allow)$"
        val["IDLECFG_MEM_SLEEP"] = "^(s2idle|deep)$"
        val["IDLECFG_I915_PSR"] = val["IDLECFG_I915_FBC"] = "^(deny|allow)$"
        val["IDLECFG_AMDGPU_ABM"] = "^[0-4]$"
        val["IDLECFG_AHCI_RUNTIME_PM"] = "^deny$"
        val["IDLECFG_NVIDIA_RTD3"] = "^(deny|allow)$"
        val["IDLECFG_THUNDERBOLT_QUIRK"] = "^keep_power_in_dp_redrive$"
        pcikey = "^pci:v" ID "d" ID "sv" ID "sd" ID "bc(" H H "|\\*)sc(" H H "|\\*)(i(" H H "|\\*))?\\*?$"
        usbkey = "^usb:v" H4 "p" H4 "\\*$"
        atakey = "^idlecfg-ata:[^:]+:[^:]+$"
        nvmekey = "^idlecfg-nvme:[^:]+:[^:]+$"
        i2ckey = "^(acpi:[A-Z0-9]+:\\*|i2c:[a-z0-9_-]+)$"
        # a machine: its DMI modalias, fields in the kernel order, globs between
        dmi = "dmi:\\*:?[a-z]+[^|]*:\\*"
        dmikey = "^" dmi "$"
        # a device on a machine, a drive behind a controller: idlecfg-on:OUTER|KEY
        pciinner = substr(pcikey, 2, length(pcikey) - 2)
        atainner = substr(atakey, 2, length(atakey) - 2)
        key["IDLECFG_PCI_RUNTIME_PM"] = key["IDLECFG_NIC_DASH"] = "(" pcikey ")|(^idlecfg-on:" dmi "\\|" pciinner "$)"
        key["IDLECFG_ASPM_DENY"] = key["IDLECFG_ASPM_ALLOW"] = pcikey
        key["IDLECFG_SATA_ALPM"] = "(" atakey ")|(^idlecfg-on:" pciinner "\\|" atainner "$)|(" dmikey ")|(" pcikey ")"
        key["IDLECFG_NVME_APST"] = "(" nvmekey ")|(" pcikey ")|(^idlecfg-on:" dmi "\\|" pciinner "$)|(" dmikey ")"
        key["IDLECFG_USB_AUTOSUSPEND"] = key["IDLECFG_USB_PERSIST"] = key["IDLECFG_BLUETOOTH_AUTOSUSPEND"] = usbkey
        key["IDLECFG_AUDIO_POWER_SAVE"] = "^pci:v\\*d\\*sv0000" H4 "sd0000" H4 "bc04sc0[13]\\*$"
        key["IDLECFG_I2C_RUNTIME_PM"] = i2ckey
        # a spurious wake source: an I2C client, or a serial input port on one machine
        key["IDLECFG_WAKEUP"] = "(" i2ckey ")|(^idlecfg-on:" dmi "\\|serio:ty[0-9A-F][0-9A-F][^|]*$)"
        key["IDLECFG_WIFI_POWER_SAVE"] = key["IDLECFG_EEE"] = key["IDLECFG_THUNDERBOLT_QUIRK"] = pcikey
        key["IDLECFG_MEM_SLEEP"] = key["IDLECFG_AMDGPU_ABM"] = dmikey
        # i915 display features: per machine, or per GPU generation (its PCI key)
        key["IDLECFG_I915_PSR"] = key["IDLECFG_I915_FBC"] = "(" dmikey ")|(" pcikey ")"
        # every platform of a vendor, where the reports name different models
        key["IDLECFG_AHCI_RUNTIME_PM"] = "^dmi:\\*:svn[^:*]+:(pn[^:*]+:)?\\*$"
        # NVIDIA runtime D3: allow for a GPU on a machine; deny also per GPU or machine
        key["IDLECFG_NVIDIA_RTD3"] = "(^idlecfg-on:" dmi "\\|" pciinner "$)|(" pcikey ")|(" dmikey ")"
}
function bad(tag, line, msg) { printf "%s %s:%d: %s\n", tag, name, line, msg }
function close_entry(    i, k, b, v, n) {
        if (!nm)
                return
        if (cmt !~ /(^|\n)# source: / || cmt !~ /(^|\n)# why/)
                bad("COMMENT", start, "entry without a comment block that has \"# source:\" and \"# why\" lines")
        for (k in props) {
                b = k; sub(/_(REASON|KERNEL|BIOS_DATE)$/, "", b)
                v = props[k]
                if (!(b in known)) { bad("NAME", pline[k], "unknown property " k); continue }
                used[b] = 1
                if (k == b) {
                        if (v !~ val[b]) bad("VALUE", pline[k], k "=" v " is not a documented value")
                        if (!((b "_REASON") in props)) bad("REASON", pline[k], k " without " b "_REASON in its entry")
                        for (i = 1; i <= nm; i++)
                                if (match_[i] !~ key[b]) bad("KEY", start + i - 1, "key " match_[i] " does not fit " b)
                } else {
                        if (!(b in props)) bad("REASON", pline[k], k " without " b " in its entry")
                        if (k ~ /_REASON$/ && (v !~ /^[A-Za-z0-9 .,:;()\/_+<>-]+$/ || v ~ /^ | $/ || length(v) > 160))
                                bad("VALUE", pline[k], k ": reason text outside the documented characters or over 160 bytes")
                        if (k ~ /_KERNEL$/ && v !~ /^(<|<=|>=|>)[0-9]+(\.[0-9]+)*$/)
                                bad("VALUE", pline[k], k "=" v ": not OP VERSION")
                        if (k ~ /_BIOS_DATE$/ && v !~ /^(<|<=|>=|>)[0-9][0-9][0-9][0-9][01][0-9][0-3][0-9]$/)
                                bad("VALUE", pline[k], k "=" v ": not OP YYYYMMDD")
                }
        }
        if (props["IDLECFG_SATA_ALPM"] == "deny" && cmt ~ /ATA_(HORKAGE|QUIRK)_NOLPM/)
                printf "NOLPM %s:%d\n", name, start
        nm = 0; np = 0; cmt = ""; split("", props); split("", pline)
}
function close_file(    b) {
        close_entry()
        for (b in used)
                if (index(header, "\n#   " b "=") == 0)
                        bad("DOC", 1, "the header has no \"#   " b "=VALUES\" paragraph")
        split("", used)
}
FNR == 1 { if (NR > 1) close_file(); name = FILENAME; sub(/.*\//, "", name); inhdr = 1; header = ""; block = "" }
inhdr && /^#/ { header = header "\n" $0; next }
inhdr && /^[ \t]*$/ { inhdr = 0; next }
inhdr { bad("DOC", FNR, "the file does not open with a header comment block"); inhdr = 0 }
/^[ \t]*$/ { close_entry(); block = ""; next }
/^#/ {
        if (nm) bad("COMMENT", FNR, "comment inside an entry")
        block = block (block == "" ? "" : "\n") $0
        next
}
/^ / {
        if (!nm) { bad("NAME", FNR, "property line outside an entry"); next }
        np++
        k = substr($0, 2); v = k; sub(/=.*/, "", k); sub(/^[^=]*=/, "", v)
        if (k !~ /^IDLECFG_[A-Z0-9_]+$/) bad("NAME", FNR, "property name " k " is not IDLECFG_*")
        if (k in props) bad("NAME", FNR, k " twice in one entry")
        props[k] = v; pline[k] = FNR
        next
}
{
        if (np) close_entry()
        if (!nm) { start = FNR; cmt = block; block = "" }
        match_[++nm] = $0
}
END { close_file() }
' "$top_srcdir"/hwdb/*.hwdb >"$tmp/lint" 2>&1

# problems TAG: no line with that tag
problems() { ! grep "^$1 " "$tmp/lint"; }
check "every entry has a comment block with its source and why" problems COMMENT
check "every IDLECFG_X property has IDLECFG_X_REASON in its entry" problems REASON
check "property names and values are from the documented set" sh -c "! grep -E '^(NAME|VALUE) ' '$tmp/lint'"
check "keys have the documented form for the properties on them (PCI/USB hex in upper case)" problems KEY
check "each file's header documents the IDLECFG properties the file uses" problems DOC

# 8-16: spot checks with systemd-hwdb query
q() { "$SYSTEMD_HWDB" --root "$root" query "$1"; }
deny_m500() { has 'idlecfg-ata:Crucial_CT480M500SSD1:MU05' IDLECFG_SATA_ALPM=deny; }
check "NOLPM Crucial M500, full ATA model: IDLECFG_SATA_ALPM=deny" deny_m500
deny_m500_sysfs() { has 'idlecfg-ata:Crucial_CT480M50:MU05' IDLECFG_SATA_ALPM=deny; }
check "NOLPM Crucial M500, 16-character sysfs model: IDLECFG_SATA_ALPM=deny" deny_m500_sysfs
deny_atapi() {
        has 'idlecfg-ata:BD-RW   BDR-207M:1.10' IDLECFG_SATA_ALPM=deny &&
                lacks 'idlecfg-ata:Samsung SSD PM830 mSATA 256GB:CXM13D1Q' IDLECFG_SATA_ALPM &&
                has 'idlecfg-ata:SAMSUNG SSD PM830 mSATA 256GB:CXM13D1Q' IDLECFG_SATA_ALPM=deny &&
                has 'idlecfg-ata:SAMSUNG SSD PM83:3D1Q' IDLECFG_SATA_ALPM=deny
}
check "NOLPM ATAPI drive by its INQUIRY product, firmware-bound rows by ATA and sysfs firmware" deny_atapi
not_broad() {
        lacks 'idlecfg-ata:Samsung SSD 860 EVO 500GB:RVT04B6Q' IDLECFG_SATA_ALPM &&
                lacks 'idlecfg-ata:Samsung SSD 860:4B6Q' IDLECFG_SATA_ALPM &&
                lacks 'idlecfg-ata:Crucial_CT480M550SSD1:MU01' IDLECFG_SATA_ALPM &&
                lacks 'idlecfg-ata:Crucial_CT480M55:MU01' IDLECFG_SATA_ALPM &&
                lacks 'idlecfg-ata:SAMSUNG MZMPC128HBFU-000MV:CXM13M1Q' IDLECFG_SATA_ALPM
}
check "drives without a NOLPM row get no IDLECFG_SATA_ALPM (M550, 860 EVO, other firmware)" not_broad
hda() {
        has 'pci:v00008086d000002C8sv000017AAsd00005079bc04sc03i80' IDLECFG_AUDIO_POWER_SAVE=deny &&
                has 'pci:v00008086d000002C8sv000017AAsd00005079bc04sc01i00' IDLECFG_AUDIO_POWER_SAVE=deny &&
                lacks 'pci:v00008086d000002EDsv000017AAsd00005079bc0Csc03i30' IDLECFG_AUDIO_POWER_SAVE
}
check "HDA denylist board 17aa:5079: IDLECFG_AUDIO_POWER_SAVE=deny, not on its xHCI" hda
aspm() {
        has 'pci:v00008086d000010A7sv00008086sd0000A02Cbc02sc00i00' IDLECFG_ASPM_DENY=l0s &&
                has 'pci:v00001B21d00001080sv00001B21sd00001080bc06sc04i00' IDLECFG_ASPM_DENY=l0s,l1 &&
                has 'pci:v00008086d000056A0sv00008086sd00001020bc03sc00i00' IDLECFG_ASPM_ALLOW=l1
}
check "quirk_disable_aspm_l0s 8086:10a7: IDLECFG_ASPM_DENY=l0s (ASM1080: l0s,l1; DG2: ALLOW l1)" aspm
nvme() {
        has 'idlecfg-nvme:THNSF5256GPUK TOSHIBA:5KDA4103' IDLECFG_NVME_APST=deny 'IDLECFG_NVME_APST_KERNEL=<4.12' &&
                has 'pci:v00002646d00002263sv00002646sd00002263bc01sc08i02' IDLECFG_NVME_APST=no-deepest &&
                lacks 'pci:v0000144Dd0000A808sv0000144Dsd0000A801bc01sc08i02' IDLECFG_NVME_APST
}
check "NVMe: NO_APST model string deny with its kernel range, NO_DEEPEST_PS by PCI ID" nvme
usb() {
        has 'usb:v1235p8211:Scarlett Solo USB' IDLECFG_USB_AUTOSUSPEND=deny &&
                has 'usb:v046Dp0825:' IDLECFG_USB_AUTOSUSPEND=deny &&
                lacks 'usb:v0BDAp8153:USB 10/100/1000 LAN' IDLECFG_USB_AUTOSUSPEND &&
                lacks 'usb:v17EFp1018:' IDLECFG_USB_AUTOSUSPEND &&
                lacks 'usb:v12D1p15BB:' IDLECFG_USB_AUTOSUSPEND &&
                lacks 'usb:v046Dp0826:' IDLECFG_USB_AUTOSUSPEND
}
check "USB: DISCONNECT_SUSPEND and RESET_RESUME deny; NO_LPM alone, hubs and allowlisted devices left alone" usb
i2c_dmi() {
        has 'acpi:CYAP0002:' IDLECFG_I2C_RUNTIME_PM=deny &&
                has 'i2c:cyapa' IDLECFG_I2C_RUNTIME_PM=deny &&
                lacks 'acpi:ELAN0670:PNP0C50:' IDLECFG_I2C_RUNTIME_PM &&
                has 'dmi:bvnMicrosoftCorporation:bvr1.0:bd01/01/2022:br1.0:svnMicrosoftCorporation:pnSurfacePro8:pvr124I:rvnMicrosoftCorporation:rnSurfacePro8:rvr:cvnMicrosoftCorporation:ct9:cvr:skuSurface_Pro_8:' IDLECFG_I915_PSR=deny &&
                lacks 'dmi:bvnMicrosoftCorporation:bvr1.0:bd01/01/2022:br1.0:svnMicrosoftCorporation:pnSurfacePro9:pvr1:' IDLECFG_I915_PSR &&
                has 'dmi:bvnINSYDECorp.:bvr03.05:bd03/29/2024:br3.5:efr3.5:svnFramework:pnLaptop13(AMDRyzen7040Series):pvrA7:rvnFramework:rnFRANMDCP07:rvrA7:cvnFramework:ct10:cvrA7:skuFRANDGCP07:' IDLECFG_AMDGPU_ABM=0
}
check "I2C cyapa by ACPI ID and by name; platform entries by DMI modalias" i2c_dmi

# 17-20: the static rules: no program runs, only the documented keys, and
# (where udevadm can be run in a private namespace on a mock /sys) the effect
rules_no_programs() {
        ! grep -v '^[[:space:]]*#' "$RULES" | grep -E '(^|[[:space:],])(RUN|PROGRAM)[{+=!]|IMPORT\{program\}'
}
check "rules/60-idlecfg.rules runs nothing: no RUN, PROGRAM, IMPORT{program}" rules_no_programs
awk '
function tok(t) {
        if (t ~ /^(ACTION|SUBSYSTEM|KERNEL|DRIVER|TEST|ENV\{[A-Z0-9_]+\}|ATTR\{[a-z0-9_\/]+\})(==|!=)"[^"]*"$/) return
        if (t ~ /^ATTR\{power\/[a-z0-9_]+\}="[^"$%]*"$/) return
        if (t ~ /^LABEL="[a-z0-9_]+"$/) { label[substr(t, 8, length(t) - 8)] = 1; return }
        if (t ~ /^GOTO="[a-z0-9_]+"$/) { gotos[substr(t, 7, length(t) - 7)] = NR; return }
        printf "%d: unexpected %s\n", NR, t
}
/\\$/ { line = line substr($0, 1, length($0) - 1); next }
{ line = line $0 }
line ~ /^[ \t]*(#|$)/ { line = ""; next }
{
        n = split(line, t, /,[ \t]*/)
        for (i = 1; i <= n; i++) { gsub(/^[ \t]+|[ \t]+$/, "", t[i]); tok(t[i]) }
        line = ""
}
END { for (g in gotos) if (!(g in label)) printf "%d: GOTO %s without a LABEL\n", gotos[g], g }
' "$RULES" >"$tmp/rules.lint"
check "rules: only match keys, power/ ATTR assignments, LABEL and GOTO; every GOTO has its LABEL" sh -c "! cat '$tmp/rules.lint' | grep ."
rules_props() {
        for _p in $(grep -o 'ENV{IDLECFG_[A-Z0-9_]*}' "$RULES" | sed 's/ENV{\(.*\)}/\1/; s/_KERNEL$//' | sort -u); do
                grep -q "^ $_p=" "$top_srcdir"/hwdb/*.hwdb || grep -q "#   $_p=" "$top_srcdir"/hwdb/*.hwdb ||
                        grep -q "^\.B $_p=" "$top_srcdir/src/man/idlecfg-hwdb.7" ||
                        { echo "$_p is in no hwdb file and not in idlecfg-hwdb(7)"; return 1; }
        done
}
check "rules read only properties the hwdb files or idlecfg-hwdb(7) document" rules_props

# the rules under udevadm test: a mock /sys (umockdev) and a private /etc/udev
# (mount namespace) holding our compiled hwdb and rules; the mock devices live
# under /devices/idlecfg-test so that nothing of a real /sys can be written
live_desc="rules under udevadm test: deny USB device and cyapa set on, others untouched"
if ! command -v umockdev-run >/dev/null 2>&1 || ! command -v unshare >/dev/null 2>&1 ||
        ! PATH=$PATH:/sbin:/usr/sbin command -v udevadm >/dev/null 2>&1; then
        skip "$live_desc (umockdev-run, unshare or udevadm missing)"
elif ! mount_ns; then
        skip "$live_desc" "$why"
else
        etc=$tmp/etc-udev
        mkdir -p "$etc/rules.d"
        cp "$root/etc/udev/hwdb.bin" "$etc/"
        cp "$RULES" "$etc/rules.d/"
        cat >"$tmp/live.umockdev" <<'REC'
P: /devices/idlecfg-test/usb1/1-2
E: DEVTYPE=usb_device
E: PRODUCT=1235/8211/100
E: SUBSYSTEM=usb
A: idVendor=1235
A: idProduct=8211
A: product=Scarlett Solo USB
A: power/control=auto
A: power/persist=1

P: /devices/idlecfg-test/usb1/1-3
E: DEVTYPE=usb_device
E: PRODUCT=46d/c52b/1211
E: SUBSYSTEM=usb
A: idVendor=046d
A: idProduct=c52b
A: product=USB Receiver
A: power/control=auto

P: /devices/idlecfg-test/i2c-1/i2c-CYAP0001:00
E: MODALIAS=acpi:CYAP0001:
E: SUBSYSTEM=i2c
A: name=CYAP0001:00
A: power/control=auto
REC
        cat >"$tmp/live.sh" <<EOF
mount --bind '$etc' /etc/udev || exit 77
for d in usb1/1-2 usb1/1-3 i2c-1/i2c-CYAP0001:00; do
        [ -d /sys/devices/idlecfg-test/\$d ] || exit 77
        udevadm test --action=add /sys/devices/idlecfg-test/\$d 2>&1
done
EOF
        PATH=$PATH:/sbin:/usr/sbin $us umockdev-run -d "$tmp/live.umockdev" -- sh "$tmp/live.sh" >"$tmp/live.log" 2>&1
        rc=$?
        if [ "$rc" -eq 77 ] || ! grep -q 'rules.d/60-idlecfg.rules' "$tmp/live.log"; then
                skip "$live_desc (could not run udevadm on the mock tree)"
        elif grep "60-idlecfg.rules:.*1-2/power/control' writing 'on'" "$tmp/live.log" >/dev/null &&
                grep "60-idlecfg.rules:.*i2c-CYAP0001:00/power/control' writing 'on'" "$tmp/live.log" >/dev/null &&
                ! grep "60-idlecfg.rules:.*1-3/" "$tmp/live.log" >/dev/null &&
                ! grep -i "60-idlecfg.rules.*\(invalid\|error\|unknown\)" "$tmp/live.log" >/dev/null; then
                ok "$live_desc"
        else
                not_ok "$live_desc"
                diag "$(grep -i 'idlecfg\|power/' "$tmp/live.log" | head -n 40)"
        fi
fi

# 21-26: the kernel tables the entries come from (fixtures; skipped without)
tsv() { grep -v '^#' "$QUIRKS/$1"; }
if [ -f "$QUIRKS/linux-ata-horkage.tsv" ]; then
        rows=$(tsv linux-ata-horkage.tsv | awk -F'\t' '$3 ~ /ATA_HORKAGE_NOLPM/' | wc -l)
        entries=$(grep -c '^NOLPM ' "$tmp/lint")
        # the shipped files follow a newer kernel, which keeps every 6.1 row
        # (CT500BX100SSD1 became the glob CT*0BX*00SSD1) and adds some
        check "NOLPM entries ($entries) >= NOLPM rows of linux-ata-horkage.tsv ($rows)" test "$entries" -ge "$rows"
        # each row as a drive: the full ATA strings, then what sysfs shows (16
        # characters of model, the last 4 of 8 firmware characters unless
        # blank); ATAPI (the PIONEER rows): the INQUIRY product, characters 9-24
        tsv linux-ata-horkage.tsv | awk -F'\t' '$3 ~ /ATA_HORKAGE_NOLPM/ {
                m = $1; f = $2
                gsub(/\*/, "X", m)
                if (f == "*") f = "ZZ01XY23"
                printf "idlecfg-ata:%s:%s\n", m, f
                if (m ~ /^PIONEER /) s = substr(m, 9, 16); else s = substr(m, 1, 16)
                sub(/ +$/, "", s)
                f8 = sprintf("%-8s", f); r = substr(f8, 5, 4)
                if (r ~ /^ *$/) r = substr(f8, 1, 4)
                sub(/ +$/, "", r)
                printf "idlecfg-ata:%s:%s\n", s, r
        }' >"$tmp/nolpm.keys"
        all_nolpm() { while IFS= read -r _k; do has "$_k" IDLECFG_SATA_ALPM=deny || return 1; done <"$tmp/nolpm.keys"; }
        check "every NOLPM row, as ATA strings and as sysfs shows them ($(wc -l <"$tmp/nolpm.keys") keys): IDLECFG_SATA_ALPM=deny" all_nolpm
else
        skip "NOLPM entries = NOLPM rows ($QUIRKS/linux-ata-horkage.tsv missing)"
        skip "every NOLPM row answers deny ($QUIRKS/linux-ata-horkage.tsv missing)"
fi
if [ -f "$QUIRKS/linux-hda-power-save-denylist.tsv" ]; then
        all_hda() {
                tsv linux-hda-power-save-denylist.tsv | awk -F'\t' '{ printf "pci:v00008086d0000A0C8sv0000%ssd0000%sbc04sc03i00\n", toupper($1), toupper($2) }' |
                        while IFS= read -r _k; do has "$_k" IDLECFG_AUDIO_POWER_SAVE=deny || return 1; done
        }
        check "every power_save_denylist row ($(tsv linux-hda-power-save-denylist.tsv | wc -l)): IDLECFG_AUDIO_POWER_SAVE=deny" all_hda
else
        skip "every power_save_denylist row answers deny (fixture missing)"
fi
if [ -f "$QUIRKS/linux-pci-pm-fixups.tsv" ]; then
        all_aspm() {
                tsv linux-pci-pm-fixups.tsv | awk -F'\t' '
                        $5 == "quirk_disable_aspm_l0s" { s = "l0s" }
                        $5 == "quirk_disable_aspm_l0s_l1" { s = "l0s,l1" }
                        $5 ~ /^quirk_disable_aspm_l0s(_l1)?$/ { printf "pci:v0000%sd0000%ssv00000000sd00000000bc02sc00i00 %s\n", toupper($2), toupper($3), s }' |
                        while read -r _k _s; do has "$_k" "IDLECFG_ASPM_DENY=$_s" || return 1; done
        }
        check "every quirk_disable_aspm_l0s and _l0s_l1 row: IDLECFG_ASPM_DENY" all_aspm
else
        skip "every quirk_disable_aspm_l0s row answers (fixture missing)"
fi
if [ -f "$QUIRKS/linux-usb-quirks.tsv" ]; then
        # the kernel applies NO_LPM itself: the report skips a row that has
        # nothing else, and an entry made for another flag says why it is left out
        all_lpm() {
                tsv linux-usb-quirks.tsv | awk -F'\t' '$2 == "USB_DEVICE" && $5 ~ /USB_QUIRK_NO_LPM/ { print $3, $4 }' >"$tmp/nolpm.usb"
                [ -s "$tmp/nolpm.usb" ] || return 1
                while read -r _v _p; do
                        _row="USB_DEVICE($_v, $_p) "
                        if grep -F -- "  skipped: $_row" "$top_srcdir/hwdb/linux-import.txt" |
                                grep -qF ': the kernel applies USB_QUIRK_NO_LPM itself'; then
                                continue
                        fi
                        awk -v row="$_row" '
                                /^# source: / { insrc = index($0, row) > 0 }
                                insrc && /^# NO_LPM: the kernel applies USB_QUIRK_NO_LPM itself/ { found = 1 }
                                END { exit !found }' "$top_srcdir/hwdb/60-idlecfg-linux-usb.hwdb" ||
                                { echo "$_row: neither skipped for NO_LPM nor noted"; return 1; }
                done <"$tmp/nolpm.usb"
                ! grep -q 'IDLECFG_USB_LPM' "$top_srcdir"/hwdb/*.hwdb
        }
        check "every USB_QUIRK_NO_LPM row ($(tsv linux-usb-quirks.tsv | grep -c USB_QUIRK_NO_LPM)): skipped or noted, the kernel applies it; no IDLECFG_USB_LPM" all_lpm
else
        skip "every USB_QUIRK_NO_LPM row skipped or noted (fixture missing)"
fi
if [ -f "$QUIRKS/linux-nvme-quirks.tsv" ]; then
        all_nvme() {
                tsv linux-nvme-quirks.tsv | awk -F'\t' '$1 == "pci_id_table" && $5 ~ /NVME_QUIRK_NO_DEEPEST_PS/ { printf "pci:v0000%sd0000%ssv00000000sd00000000bc01sc08i02\n", toupper($2), toupper($3) }' |
                        while IFS= read -r _k; do has "$_k" IDLECFG_NVME_APST=no-deepest || return 1; done
        }
        check "every nvme_id_table NO_DEEPEST_PS row: IDLECFG_NVME_APST=no-deepest" all_nvme
else
        skip "every nvme_id_table NO_DEEPEST_PS row answers (fixture missing)"
fi

done_testing
