#!/bin/sh
# tests/import-linux.sh: hwdb/import-linux on the synthetic kernel tree of
# tests/data/linux-mini (golden output, coverage, a re-import changes nothing,
# systemd-hwdb --strict), on the Linux 6.1 tables of the shared fixtures
# (every power row mirrored or skipped with a reason), and the committed
# 60-idlecfg-linux-*.hwdb (generated, with their report)
. "$top_srcdir/tests/lib.sh"
need python3 systemd-hwdb
SYSTEMD_HWDB=$(PATH=$PATH:/sbin:/usr/sbin command -v systemd-hwdb)
IMPORT=$top_srcdir/hwdb/import-linux
MINI=$TESTS_DATA/linux-mini
QUIRKS=$FIXTURES/kernel-quirks
plan 22

imp() { python3 "$IMPORT" "$@"; }

# 1: usage
imp >/dev/null 2>&1
check "no tree: usage, exit 2" test $? -eq 2

# 2-3: the synthetic tree, twice: the golden files, byte for byte
imp --out "$tmp/a" "$MINI" 2>"$tmp/a.err"
rc=$?
check "import of tests/data/linux-mini exits 0 and says what it did" \
        sh -c "test $rc -eq 0 && grep -q 'Linux 6.99.3: total: [0-9]* power rows' '$tmp/a.err'"
gold() {
        for _f in "$TESTS_DATA"/linux-mini-expected/*; do
                _b=${_f##*/}
                if [ "${IDLECFG_UPDATE_GOLDEN:-0}" = 1 ]; then cp "$tmp/a/$_b" "$_f"; fi
                diff -u "$_f" "$tmp/a/$_b" || return 1
        done
        [ "$(ls "$tmp/a" | wc -l)" -eq "$(ls "$TESTS_DATA"/linux-mini-expected | wc -l)" ]
}
check "the generated files and report match tests/data/linux-mini-expected" gold

# 4: again into a directory that holds the first output and a stale file:
# identical, and the stale generated file is gone (hand files stay)
mkdir -p "$tmp/b"
cp "$tmp"/a/* "$tmp/b/"
: >"$tmp/b/60-idlecfg-linux-gone.hwdb"
echo "# mine" >"$tmp/b/70-idlecfg-local.hwdb"
imp --out "$tmp/b" "$MINI" 2>/dev/null
reimport() {
        [ ! -e "$tmp/b/60-idlecfg-linux-gone.hwdb" ] && [ "$(cat "$tmp/b/70-idlecfg-local.hwdb")" = "# mine" ] &&
                rm "$tmp/b/70-idlecfg-local.hwdb" && diff -r "$tmp/a" "$tmp/b"
}
check "a re-import of the same tree changes nothing, drops a stale generated file, keeps a local one" reimport

# 5: systemd's own reader accepts the generated files without a warning
mkdir -p "$tmp/root/etc/udev/hwdb.d"
cp "$tmp"/a/*.hwdb "$tmp/root/etc/udev/hwdb.d/"
"$SYSTEMD_HWDB" --strict --root "$tmp/root" update >"$tmp/strict.log" 2>&1
check "systemd-hwdb --strict --root accepts the generated files without a warning" \
        sh -c "test $? -eq 0 && ! test -s '$tmp/strict.log'"

# 6: the report: every table adds up, every skip has a reason
# adds_up REPORT: for each table line "N with a power meaning, M mirrored, K
# skipped", M + K = N and K "skipped: ROW: REASON" lines follow
adds_up() {
        awk '
        / with a power meaning, / {
                if (t != "" && seen != k) { print "table " t ": " k " skipped, " seen " skip lines"; bad = 1 }
                t = $0; sub(/:.*/, "", t)
                n = $0; sub(/.*rows, /, "", n); n += 0
                m = $0; sub(/.* meaning, /, "", m); m += 0
                k = $0; sub(/.* mirrored, /, "", k); k += 0
                if (m + k != n) { print "table " t ": " m " + " k " != " n; bad = 1 }
                seen = 0; next
        }
        /^  skipped: / {
                # "  skipped: ROW: REASON", the reason at least a few words
                r = $0; sub(/^  skipped: .*: /, "", r)
                if (r == $0 || length(r) < 12) { print "no reason: " $0; bad = 1 }
                seen++
        }
        END { if (t != "" && seen != k) { print "table " t ": " k " skipped, " seen " skip lines"; bad = 1 }; exit bad }
        ' "$1"
}
check "linux-mini report: per table, mirrored + skipped = power rows, each skip with its reason" adds_up "$tmp/a/linux-import.txt"

# 7-12: what the synthetic rows become, asked of systemd-hwdb
q() { "$SYSTEMD_HWDB" --root "$tmp/root" query "$1"; }
ata() {
        has 'idlecfg-ata:ADATA SU680:V8X01c44' IDLECFG_SATA_ALPM=deny &&
                has 'idlecfg-ata:Crucial_CT512MX100SSD1:MU01' IDLECFG_SATA_ALPM=deny &&
                has 'idlecfg-ata:Crucial_CT512MX1:MU01' IDLECFG_SATA_ALPM=deny &&
                lacks 'idlecfg-ata:Crucial_CT512MX100SSD1:MU02' IDLECFG_SATA_ALPM &&
                has 'idlecfg-ata:BD-RW   BDR-207M:1.10' IDLECFG_SATA_ALPM=deny &&
                has 'idlecfg-ata:SAMSUNG SSD PM83:3D1Q' IDLECFG_SATA_ALPM=deny &&
                has 'idlecfg-ata:WDC WD800JD-00LSA0:06.01D06' IDLECFG_SATA_ALPM=deny &&
                lacks 'idlecfg-ata:WDC AC11000H:*' IDLECFG_SATA_ALPM
}
check "ATA: NOLPM (QUIRK_ and HORKAGE_ names, multi-line flags), firmware-bound, ATAPI, WD_BROKEN_LPM; no entry for a NODMA row" ata
onati() {
        has 'idlecfg-on:pci:v00001002d00004391sv00001043sd00008443bc01sc06i01|idlecfg-ata:Samsung SSD 860 EVO 500GB:RVT04B6Q' IDLECFG_SATA_ALPM=deny &&
                lacks 'idlecfg-on:pci:v00001022d00007901sv00001043sd00008443bc01sc06i01|idlecfg-ata:Samsung SSD 860 EVO 500GB:RVT04B6Q' IDLECFG_SATA_ALPM &&
                lacks 'idlecfg-ata:Samsung SSD 860 EVO 500GB:RVT04B6Q' IDLECFG_SATA_ALPM &&
                has 'pci:v00001022d00007901sv00001043sd00008443bc01sc06i01' IDLECFG_SATA_ALPM=deny &&
                lacks 'pci:v000010DEd0000044Csv000010DEsd0000CB84bc01sc06i01' IDLECFG_SATA_ALPM
}
check "NO_LPM_ON_ATI only behind an ATI host; AHCI_HFLAG_NO_LPM board denies its controller, NO_DIPM does not" onati
machines() {
        has 'dmi:bvnLENOVO:bvrN10ET61W(1.40):bd03/15/2018:br1.40:svnLENOVO:pn20CM001XUS:pvrThinkPadX250:rvnLENOVO:rn20CM001XUS:rvrSDK0E50512STD:cvnLENOVO:ct10:cvrNone:' \
                IDLECFG_SATA_ALPM=deny 'IDLECFG_SATA_ALPM_BIOS_DATE=<20180406' &&
                has 'dmi:bvnAmericanMegatrendsInc.:bvr3621:bd07/15/2021:br5.17:svnSystemmanufacturer:pnSystemProductName:pvrSystemVersion:rvnASUSTeKCOMPUTERINC.:rnROGSTRIXB550-FGAMING(WI-FI):rvrRevX.0x:cvnDefaultstring:ct3:cvrDefaultstring:' \
                IDLECFG_SATA_ALPM=deny &&
                has 'idlecfg-on:dmi:bvnAmericanMegatrendsInc.:bvrF4:bd05/01/2018:svnGigabyteTechnologyCo.,Ltd.:pnX299DESIGNAREEX:rvnGigabyteTechnologyCo.,Ltd.:rnX299DESIGNAREEX-CF:rvrx.x:cvn:ct3:|pci:v00008086d00002030sv00001458sd00001000bc06sc04i00' \
                IDLECFG_PCI_RUNTIME_PM=deny &&
                lacks 'pci:v00008086d00002030sv00001458sd00001000bc06sc04i00' IDLECFG_PCI_RUNTIME_PM &&
                has 'dmi:bvnLENOVO:bvrN1FET33W:bd01/01/2017:svnLENOVO:pn20GGA00L00:pvrThinkPadX1Tablet:rvnLENOVO:rn20GGA00L00:' \
                IDLECFG_MEM_SLEEP=deep
}
check "machine keys: ahci_broken_lpm with its BIOS date, bridge_d3_blacklist with the bridge, init_default_s3" machines
nvme() {
        has 'idlecfg-on:dmi:bvnDellInc.:bvr01.02.00:bd04/07/2016:svnDellInc.:pnXPS159550:pvr:rvnDellInc.:rn0N7TVV:|pci:v0000144Dd0000A802sv0000144Dsd0000A801bc01sc08i02' \
                IDLECFG_NVME_APST=no-deepest &&
                lacks 'idlecfg-on:dmi:bvnDellInc.:bvr1.0:bd04/07/2016:svnDellInc.:pnXPS139360:pvr:|pci:v0000144Dd0000A802sv0000144Dsd0000A801bc01sc08i02' IDLECFG_NVME_APST &&
                has 'idlecfg-on:dmi:bvnAmericanMegatrendsInc.:bvr1:bd01/01/2018:svnSystem:pnSystem:rvnASUSTeKCOMPUTERINC.:rnPRIMEB350M-A:rvrRevX.0x:|pci:v0000144Dd0000A804sv0000144Dsd0000A801bc01sc08i02' \
                IDLECFG_NVME_APST=deny 'IDLECFG_NVME_APST_KERNEL=<6.99.3' &&
                has 'dmi:bvnINSYDE:bvr1:bd01/01/2023:svnX:pnY:rvnZ:rnLXKT-ZXEG-N6:rvr1:' IDLECFG_NVME_APST=deny &&
                has 'idlecfg-nvme:THNSF5256GPUK TOSHIBA:5KDA4103' IDLECFG_NVME_APST=deny 'IDLECFG_NVME_APST_KERNEL=<4.12' &&
                has 'pci:v00008086d0000F1A5sv00008086sd0000390Abc01sc08i02' IDLECFG_NVME_APST=no-deepest &&
                lacks 'pci:v00008086d00000953sv00008086sd0000370Dbc01sc08i02' IDLECFG_NVME_APST
}
check "NVMe: board and drive (check_vendor_combination_bug), board alone, core_quirks model with its known range, id table" nvme
pcis() {
        has 'pci:v00001022d000043F7sv00001022sd000043F7bc0Csc03i30' IDLECFG_PCI_RUNTIME_PM=allow 'IDLECFG_PCI_RUNTIME_PM_KERNEL=>=6.99.3' &&
                has 'pci:v00008086d00009A13sv00008086sd00007270bc0Csc03i30' IDLECFG_PCI_RUNTIME_PM=allow &&
                lacks 'pci:v00001B21d00003042sv00001B21sd00003042bc0Csc03i30' IDLECFG_PCI_RUNTIME_PM &&
                has 'pci:v00001022d000015E0sv00001022sd000015E0bc0Csc03i30' IDLECFG_PCI_RUNTIME_PM=deny 'IDLECFG_PCI_RUNTIME_PM_KERNEL=<5.6' &&
                has 'pci:v00001022d000015E9sv00001022sd000015E9bc0Csc03i30' IDLECFG_PCI_RUNTIME_PM=deny 'IDLECFG_PCI_RUNTIME_PM_KERNEL=<6.99.3' &&
                has 'pci:v00001002d00004376sv00001002sd00004376bc01sc01i8a' IDLECFG_PCI_RUNTIME_PM=deny &&
                has 'pci:v00001B21d00001080sv00001B21sd00001080bc06sc04i00' IDLECFG_ASPM_DENY=l0s,l1 &&
                has 'pci:v00008086d000056C1sv00008086sd00001020bc03sc00i00' IDLECFG_ASPM_ALLOW=l1
}
check "PCI: XHCI_DEFAULT_PM_RUNTIME_ALLOW with its range (not RESET_ON_RESUME), D3 fixups with known and unknown ranges, ASPM" pcis
usbhda() {
        has 'usb:v0204p6025*' IDLECFG_USB_AUTOSUSPEND=deny &&
                has 'usb:v046Dp0825:' IDLECFG_USB_AUTOSUSPEND=deny && lacks 'usb:v046Dp0825:' IDLECFG_USB_LPM &&
                lacks 'usb:v0BDAp8153:' IDLECFG_USB_LPM &&
                has 'usb:v03F0pA31D:' IDLECFG_USB_AUTOSUSPEND=deny &&
                has 'usb:v046DpC05A:' IDLECFG_USB_AUTOSUSPEND=deny &&
                lacks 'usb:v058Fp9254:' IDLECFG_USB_AUTOSUSPEND &&
                lacks 'usb:v03F0p0701:' IDLECFG_USB_AUTOSUSPEND &&
                has 'pci:v00008086d00009D71sv000017AAsd00002227bc04sc03i00' IDLECFG_AUDIO_POWER_SAVE=deny
}
check "USB: RESET_RESUME, DISCONNECT_SUSPEND, AMD resume list; NO_LPM (applied by the kernel) and hub skipped; HDA denylist in sound/hda/" usbhda

thunderbolt() {
        has 'pci:v00008086d00005781sv00008086sd00000000bc0Csc03i40' IDLECFG_THUNDERBOLT_QUIRK=keep_power_in_dp_redrive &&
                has 'pci:v00008086d00005784sv00008086sd00000000bc0Csc03i40' IDLECFG_THUNDERBOLT_QUIRK=keep_power_in_dp_redrive &&
                lacks 'pci:v00008086d0000463Esv00008086sd00000000bc0Csc03i40' IDLECFG_THUNDERBOLT_QUIRK &&
                lacks 'pci:v00008086d00005786sv00008086sd00000000bc06sc04i00' IDLECFG_THUNDERBOLT_QUIRK &&
                grep -q '^drivers/thunderbolt/quirks.c tb_quirks\[\]: 7 rows, 7 with a power meaning, 2 mirrored, 5 skipped$' "$tmp/a/linux-import.txt" &&
                grep -q '^  skipped: { 0x0438, 0x0208, 0x0000, 0x0000, quirk_clx_disable }: CL states ' "$tmp/a/linux-import.txt" &&
                grep -q '^  skipped: { 0x0000, 0x0000, 0x00d4, 0xb070, quirk_force_power_link }: ' "$tmp/a/linux-import.txt"
}
check "Thunderbolt tb_quirks[]: block_rpm_in_redrive on Intel host routers keyed by the NHI (nhi.h macros, a second hook field), CLx, bandwidth, DROM rows skipped" thunderbolt

# 13: rows it cannot express are in the report, not dropped
listed() {
        for _s in 'DMI_PRODUCT_FAMILY "Made Up Family", any BIOS: DMI field DMI_PRODUCT_FAMILY is not in the DMI modalias' \
                'USB_VENDOR_AND_INTERFACE_INFO(046d, usb_class_video, 1, 0)' \
                'USB_DEVICE(0bda, 8153) USB_QUIRK_NO_LPM: the kernel applies USB_QUIRK_NO_LPM itself' \
                'if (xhci->hci_version >= 0x120): XHCI_DEFAULT_PM_RUNTIME_ALLOW: the condition is not a PCI ID' \
                'quirk_made_up_pm_thing): no rule for handler quirk_made_up_pm_thing' \
                'quirk_s2idle_bug: DMI_BOARD_VENDOR "LENOVO" DMI_PRODUCT_NAME "20X5"'; do
                grep -qF -- "  skipped: " "$tmp/a/linux-import.txt" && grep -F -- "$_s" "$tmp/a/linux-import.txt" | grep -q '^  skipped: ' ||
                        { echo "not listed: $_s"; return 1; }
        done
        ! grep -q quirk_not_related "$tmp/a/linux-import.txt"
}
check "DMI fields without a key, interface classes, NO_LPM, code conditions, unknown handlers are listed as skipped" listed

# 14-15: the Linux 7.x shapes (tests/data/linux-mini-7, linux-mini as the
# older tree): 64-bit ATA quirks, designated ahci_pci_tbl[] rows and board
# aliases, ASPM fixups moved from FINAL to HEADER; has7/lacks7 ask its hwdb
imp --out "$tmp/m7" "$TESTS_DATA/linux-mini-7" "$MINI" 2>/dev/null
mkdir -p "$tmp/root7/etc/udev/hwdb.d"
cp "$tmp"/m7/*.hwdb "$tmp/root7/etc/udev/hwdb.d/"
"$SYSTEMD_HWDB" --strict --root "$tmp/root7" update >"$tmp/strict7.log" 2>&1
q7() { "$SYSTEMD_HWDB" --root "$tmp/root7" query "$1"; }
q1() { "$SYSTEMD_HWDB" --root "$tmp/root" query "$1"; }
has7() { q() { q7 "$1"; }; has "$@"; _r=$?; q() { q1 "$1"; }; return $_r; }
lacks7() { q() { q7 "$1"; }; lacks "$@"; _r=$?; q() { q1 "$1"; }; return $_r; }
seven() {
        [ ! -s "$tmp/strict7.log" ] || { cat "$tmp/strict7.log"; return 1; }
        has7 'idlecfg-on:pci:v00001002d00004391sv00001043sd00008443bc01sc06i01|idlecfg-ata:Samsung SSD 860 EVO 500GB:RVT04B6Q' IDLECFG_SATA_ALPM=deny &&
                has7 'idlecfg-on:pci:v00001022d00007901sv00001043sd00008443bc01sc06i01|idlecfg-ata:Samsung SSD 860 EVO 500GB:RVT04B6Q' IDLECFG_SATA_ALPM=deny &&
                lacks7 'idlecfg-on:pci:v00008086d00002652sv00008086sd00002652bc01sc06i01|idlecfg-ata:Samsung SSD 860 EVO 500GB:RVT04B6Q' IDLECFG_SATA_ALPM &&
                has7 'pci:v00001022d00007901sv00001043sd00008443bc01sc06i01' IDLECFG_SATA_ALPM=deny &&
                has7 'pci:v00001022d00007904sv00001043sd00008443bc01sc06i01' IDLECFG_SATA_ALPM=deny &&
                lacks7 'pci:v000010DEd00000554sv000010DEsd0000CB84bc01sc06i01' IDLECFG_SATA_ALPM &&
                grep -q '^  skipped: PCI_VDEVICE(NVIDIA, 0x0554) board_ahci_mcp67 (ATA_FLAG_NO_DIPM): ' "$tmp/m7/linux-import.txt" &&
                grep -q '^drivers/ata/ahci.c ahci_pci_tbl\[\] board flags: 4 rows, 4 with a power meaning, 2 mirrored, 2 skipped$' "$tmp/m7/linux-import.txt" &&
                adds_up "$tmp/m7/linux-import.txt"
}
check "Linux 7.x shapes: NO_LPM_ON_ATI_AND_AMD behind ATI and AMD hosts only, .driver_data rows and board aliases read" seven
phase() {
        has7 'pci:v00001022d000015E9sv00001022sd000015E9bc0Csc03i30' IDLECFG_PCI_RUNTIME_PM=deny 'IDLECFG_PCI_RUNTIME_PM_KERNEL=<6.99.3' &&
                has7 'pci:v00001B21d00001080sv00001B21sd00001080bc06sc04i00' IDLECFG_ASPM_DENY=l0s,l1 &&
                grep -q 'DECLARE_PCI_FIXUP_HEADER(1022, 15e9, quirk_ryzen_xhci_d3hot)' "$tmp/m7/60-idlecfg-linux-pci.hwdb" &&
                ! grep -q 'no longer has' "$tmp/m7/linux-import.txt"
}
check "Linux 7.x shapes: a fixup moved from FINAL to HEADER is the same row (its range from the older tree, none 'no longer' there)" phase

# 16-17: hwdb/knob-interfaces on the two synthetic trees (older first or not),
# and the committed table names every knob of src/knobs
python3 "$top_srcdir/hwdb/knob-interfaces" --out "$tmp/ki.txt" "$TESTS_DATA/linux-mini-7" "$MINI" 2>"$tmp/ki.err"
ki() {
        grep -A4 '^sysctl vm.laptop_mode ' "$tmp/ki.txt" | grep -qx '  verdict: stub in 7.99.1 (writes ignored)' &&
                grep -A4 '^module parameter ahci.mask_port_ext ' "$tmp/ki.txt" | grep -qx '  verdict: new in 7.99.1' &&
                grep -A4 '^sysctl vm.dirty_writeback_centisecs ' "$tmp/ki.txt" | grep -qx '  verdict: same' &&
                grep -q '^  6.99.3   mm/page-writeback.c:13$' "$tmp/ki.txt"
}
check "knob-interfaces: laptop_mode a stub in 7.x, mask_port_ext new, dirty_writeback the same, with file:line" ki
# the knobs are the registry's rules (tests/knob-registry), whatever spells
# their names in src/knobs (a string, a #define); and the table names no
# knob the registry does not have
knobs_named() {
        _reg=${KNOB_REGISTRY:-$top_builddir/tests/knob-registry}
        _kl=$("$_reg" | awk '$1 == "rule" { print $2 }' | sort -u)
        [ -n "$_kl" ] || { echo "$_reg lists no rule"; return 1; }
        for _kn in $_kl; do
                grep -q "  \[.*\b$_kn\b.*\]$" "$top_srcdir/hwdb/knob-interfaces.txt" || { echo "not in the table: $_kn"; return 1; }
        done
        for _kn in $(sed -n 's/.*  \[\([^]]*\)\]$/\1/p' "$top_srcdir/hwdb/knob-interfaces.txt" | tr ' ' '\n' | grep -vx -- - | sort -u); do
                echo "$_kl" | grep -qx -- "$_kn" || { echo "the table names $_kn, no rule of the registry"; return 1; }
        done
}
check "hwdb/knob-interfaces.txt checks every knob of the registry against the kernel trees, and names no other" knobs_named

# 18-19: the Linux 6.1 tables (TSV extracts of the shared fixtures)
if [ -f "$QUIRKS/linux-ata-horkage.tsv" ]; then
        imp --out "$tmp/t1" "$QUIRKS" 2>/dev/null && imp --out "$tmp/t2" "$QUIRKS" 2>/dev/null
        check "Linux 6.1 tables: a re-import changes nothing (byte-identical)" diff -r "$tmp/t1" "$tmp/t2"
        six() {
                adds_up "$tmp/t1/linux-import.txt" &&
                        grep -qx 'total: 248 power rows, 150 mirrored, 98 skipped' "$tmp/t1/linux-import.txt"
        }
        check "Linux 6.1 tables: every power row mirrored or skipped with a reason (248 = 150 + 98)" six
else
        skip "Linux 6.1 tables: a re-import changes nothing ($QUIRKS missing)"
        skip "Linux 6.1 tables: every power row mirrored or skipped ($QUIRKS missing)"
fi

# 20-21: the committed files are the importer's, and its report adds up
committed() {
        for _f in "$top_srcdir"/hwdb/60-idlecfg-linux-*.hwdb; do
                head -n 1 "$_f" | grep -q '^# 60-idlecfg-linux-[a-z]*\.hwdb: GENERATED by hwdb/import-linux from Linux [0-9.]* ' ||
                        { echo "$_f: no GENERATED header"; return 1; }
        done
        # every entry names its source: as many "# source: Linux" lines as entries
        _e=$(grep -c '^ IDLECFG_[A-Z_]*_REASON=' "$top_srcdir"/hwdb/60-idlecfg-linux-*.hwdb | awk -F: '{ s += $2 } END { print s }')
        _s=$(grep -c '^# source: Linux [0-9.]* ' "$top_srcdir"/hwdb/60-idlecfg-linux-*.hwdb | awk -F: '{ s += $2 } END { print s }')
        [ "$_s" -gt 0 ] && [ "$_e" -ge "$_s" ] || { echo "$_s source lines, $_e reasons"; return 1; }
        ! grep -l 'GENERATED by hwdb/import-linux' "$top_srcdir"/hwdb/*.hwdb | grep -v '/60-idlecfg-linux-'
}
check "hwdb/60-idlecfg-linux-*.hwdb are generated, each entry with its source; no hand file claims to be" committed
check "hwdb/linux-import.txt: per table, mirrored + skipped = power rows, each skip with its reason" adds_up "$top_srcdir/hwdb/linux-import.txt"

done_testing
