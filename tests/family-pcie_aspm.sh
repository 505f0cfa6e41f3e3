#!/bin/sh
# tests/family-pcie_aspm.sh: the [pcie_aspm] family (src/knobs/aspm.c): every
# policy and links value planned on every recorded machine: the command-line
# word and the tmpfiles line of the policy, the per-link L1 substate files of
# the devices an hwdb entry names (a test entry in the roots' /etc/udev/hwdb.d
# for two functions of intel-laptop: its deny beats its allow), per-source
# values and the refusals. amd-laptop suspends to idle: a policy other than
# default goes on its links instead (amd-debug-tools fails any other), unless
# an IDLECFG_ASPM_POLICY=allow entry names the machine (a copy, amd-allow).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/family-lib.sh"
plan 21

family_root() {
        mkdir -p "$1/etc/udev/hwdb.d"
        cat >"$1/etc/udev/hwdb.d/99-family-aspm.hwdb" <<'HWDB'
# tests/family-pcie_aspm.sh: per-link entries for two functions of intel-laptop
# SanDisk/WD NVMe 15b7:5011: its link has l1_2_aspm but no l1_1_aspm or l0s_aspm file
pci:v000015B7d00005011sv*sd*bc*sc*i*
 IDLECFG_ASPM_ALLOW=l0s,l1_1,l1_2
 IDLECFG_ASPM_ALLOW_REASON=family test allow

# Intel AX210 8086:2725: allowed L1.1 and L1.2, L1.2 denied
pci:v00008086d00002725sv*sd*bc*sc*i*
 IDLECFG_ASPM_ALLOW=l1_1,l1_2
 IDLECFG_ASPM_ALLOW_REASON=family test allow
 IDLECFG_ASPM_DENY=l1_2
 IDLECFG_ASPM_DENY_REASON=family test deny
HWDB
        [ "$2" = amd-allow ] || return 0
        cat >>"$1/etc/udev/hwdb.d/99-family-aspm.hwdb" <<'HWDB'

# amd-laptop's board: its vendor documents a policy (a test entry)
dmi:*:svnASUSTeKCOMPUTERINC.:pnVivobook_ASUSLaptopM3500QA_M3500QA:*
 IDLECFG_ASPM_POLICY=allow
 IDLECFG_ASPM_POLICY_REASON=family test policy allowed
HWDB
}
mkdir -p "$tmp/machines/amd-allow"
cp -R "$TESTS_DATA/machines/amd-laptop/." "$tmp/machines/amd-allow/"
FAMILY_MACHINES="$FAMILY_MACHINES amd-allow"
for v in default performance powersave powersupersave; do
        value "$v" pcie_aspm policy "$v" cmdline tmpfiles udev
done
value keep pcie_aspm policy keep cmdline tmpfiles
value src pcie_aspm policy "ac:default battery:powersupersave" tmpfiles
value links-yes pcie_aspm links yes udev
value links-no pcie_aspm links no udev
value links-src pcie_aspm links "ac:yes battery:no"
value bad pcie_aspm policy on
plan_all
K=pcie_aspm.policy
L=pcie_aspm.link

# policy VALUE: on the machines with PCIe ports, pcie_aspm.policy=VALUE on
# the command line and in tmpfiles, from the profile line (amd-laptop, which
# suspends to idle, only with default or its hwdb entry); the VM skipped.
# The roots have no /boot/config-$KVER: default's reason says that it changes
# nothing on a kernel built with CONFIG_PCIEASPM_DEFAULT, and why it is written
policy() {
        ok_plans "$1" || return 1
        _r=$(reason_of "$1" pcie_aspm policy "$1")
        _note=
        [ "$1" != default ] ||
                _note="; /boot/config-$KVER is not in the root: this changes nothing where the kernel is built with CONFIG_PCIEASPM_DEFAULT (its policy already), and brings the firmware's setup back where it is built with another policy"
        _ms="amd-allow desktop-sata intel-laptop"
        [ "$1" != default ] || _ms="$_ms amd-laptop"
        for _m in $_ms; do
                rows "$1" $K $_m | cut -d'|' -f5- >"$tmp/r"
                printf '|pcie_aspm|policy|%s|||cmdline|%s%s\n|pcie_aspm|policy|%s|||tmpfiles|%s; at run time too (the write fails where the firmware denies the OS ASPM control)%s\n' \
                        "$1" "$_r" "$_note" "$1" "$_r" "$_note" >"$tmp/w"
                diff -u "$tmp/w" "$tmp/r" || { echo "^ $_m"; return 1; }
                grep -qx "pcie_aspm.policy=$1" "$(out $_m "$1" cmdline)" || { echo "$_m: cmdline:"; cat "$(out $_m "$1" cmdline)"; return 1; }
                grep -qx "w /sys/module/pcie_aspm/parameters/policy - - - - $1" "$(out $_m "$1" tmpfiles)" ||
                        { echo "$_m: tmpfiles:"; cat "$(out $_m "$1" tmpfiles)"; return 1; }
        done
        [ "$(rows "$1" $K buildhost | cut -d'|' -f8,12)" = "|skipped: no PCI-to-PCI bridge (class 0604) on this machine, so no PCIe link for ASPM to act on: the policy would change nothing" ] &&
                ! grep -q pcie_aspm "$(out buildhost "$1" cmdline)" "$(out buildhost "$1" tmpfiles)"
}
for v in default performance powersave powersupersave; do
        check "policy = $v: pcie_aspm.policy=$v on the command line and in tmpfiles.d; the VM (no PCIe port) skipped" policy $v
done
AMD="an AMD machine that suspends to idle (/sys/power/mem_sleep: [s2idle]): AMD's s2idle checker (amd-debug-tools) fails any pcie_aspm policy but default, so the policy stays and each link gets its states"
# amd_links VALUE STATES BIT: on amd-laptop the policy is a skip saying why,
# and every link file of STATES that exists gets BIT, with the profile's
# reason and why; no command-line word, no tmpfiles line
amd_links() {
        [ "$(rows "$1" $K amd-laptop | cut -d'|' -f8,12)" = "|skipped: $AMD" ] || { rows "$1" $K amd-laptop; return 1; }
        ! grep -q pcie_aspm "$(out amd-laptop "$1" cmdline)" "$(out amd-laptop "$1" tmpfiles)" || return 1
        python3 - "$TESTS_DATA/machines/amd-laptop/machine.umockdev" "$2" "$3" "$(reason_of "$1" pcie_aspm policy "$1"), per link: $AMD" \
                >"$tmp/aw" <<'PY'
import sys
states = sys.argv[2].split(",")
dev = None
for l in open(sys.argv[1]):
    l = l.rstrip("\n")
    if l.startswith("P: "):
        dev = l[3:].rsplit("/", 1)[1]
    elif l.startswith("A: link/") and dev and dev.startswith("0000:"):
        f = l[3:].split("=", 1)[0]
        if f[len("link/"):].replace("_aspm", "") in states:
            print("%s|%s|%s|udev|%s" % (dev, f, sys.argv[3], sys.argv[4]))
PY
        rows "$1" $L amd-laptop | cut -d'|' -f3,5,8,11,12 | sort >"$tmp/ag"
        sort "$tmp/aw" | diff -u - "$tmp/ag"
}
amd_s2idle() {
        amd_links powersupersave l0s,l1,l1_1,l1_2,l1_1_pcipm,l1_2_pcipm,clkpm 1 &&
                amd_links powersave l0s,l1,clkpm 1 && amd_links performance l0s,l1,l1_1,l1_2,l1_1_pcipm,l1_2_pcipm,clkpm 0 &&
                [ -n "$(rows powersave $L amd-laptop)" ] && [ -z "$(rows powersave $L amd-allow)" ]
}
check "amd-laptop suspends to idle: a policy other than default is a skip saying why, its states go on each link that has the file (no word, no tmpfiles line)" amd_s2idle
check "the per-link rows of an AMD s2idle machine are udev rules writing exactly those files" udev_rules powersupersave $L
check "policy = keep: nothing planned, no command-line word, no tmpfiles line" kept keep $K pcie_aspm policy cmdline tmpfiles
src_policy() {
        ok_plans src || return 1
        # both rows switch (the parameter is writable under /sys/module at run
        # time); the files install writes hold the AC value
        planned src $K | cut -d'|' -f1,8-11 >"$tmp/s"
        for _m in amd-laptop desktop-sata intel-laptop amd-allow; do
                # no battery in desktop-sata: one source, the AC value alone (#33);
                # amd-laptop writes no policy on battery (s2idle): default on both
                if one_source $_m || [ $_m = amd-laptop ]; then
                        printf '%s|default|||%s\n' $_m cmdline $_m tmpfiles
                else
                        printf '%s|default|default|powersupersave|%s\n' $_m cmdline $_m tmpfiles
                fi
        done | diff -u - "$tmp/s" &&
                grep -qx 'w /sys/module/pcie_aspm/parameters/policy - - - - default' "$(out intel-laptop src tmpfiles)"
}
check "policy = ac:default battery:powersupersave: the parameter switches, the files hold default" src_policy
src_table() {
        # install's power-source table: the parameter is one file, switched once
        _r=$tmp/intel-laptop-root
        run_machine "$(machine_dir intel-laptop)" "$IDLECFG" install --profile src --root "$_r" --kernel $KVER \
                >"$tmp/src-install.out" 2>&1
        case $? in 0 | 4) ;; *) cat "$tmp/src-install.out"; return 1 ;; esac
        [ "$(grep -c ' pcie_aspm policy default powersupersave$' "$_r/etc/idlecfg/power-source.conf")" = 1 ] ||
                { cat "$_r/etc/idlecfg/power-source.conf"; return 1; }
}
check "policy = ac:default battery:powersupersave: the power-source table switches the parameter once, not once per mechanism" src_table
links_yes() {
        ok_plans links-yes || return 1
        planned links-yes $L | cut -d'|' -f1,3,5,8,11,12 >"$tmp/l"
        cat >"$tmp/w" <<W
intel-laptop|0000:01:00.0|link/l1_2_aspm|1|udev|hwdb /etc/udev/hwdb.d/99-family-aspm.hwdb:4 (family test allow)
intel-laptop|0000:a6:00.0|link/l1_1_aspm|1|udev|hwdb /etc/udev/hwdb.d/99-family-aspm.hwdb:9 (family test allow)
intel-laptop|0000:a6:00.0|link/l1_2_aspm|0|udev|hwdb /etc/udev/hwdb.d/99-family-aspm.hwdb:11 (family test deny)
W
        diff -u "$tmp/w" "$tmp/l"
}
check "links = yes: the hwdb's states where the link has the file (l1_2 of the NVMe; l1_1 of the AX210 on, its denied l1_2 off), nothing else" links_yes
check "links = yes: the udev rules write exactly those files" udev_rules links-yes $L
# link ID FUNCTION FILE: value|reason of the per-link file on intel-laptop
link() { rows "$1" $L intel-laptop | awk -F'|' -v d="$2" -v f="$3" '$3 == d && $5 == f { print $8 "|" $12 }'; }
aspm_deny() {
        for _v in links-yes balanced; do
                [ "$(link $_v 0000:a6:00.0 link/l1_2_aspm)" = "0|hwdb /etc/udev/hwdb.d/99-family-aspm.hwdb:11 (family test deny)" ] ||
                        { echo "$_v: $(link $_v 0000:a6:00.0 link/l1_2_aspm)"; return 1; }
        done
}
hwdb_point deny IDLECFG_ASPM_DENY "the AX210's denied L1.2: link/l1_2_aspm=0 with the deny entry's reason, though its allow entry names l1_2 (links = yes, balanced)" aspm_deny
aspm_keep() {
        for _v in links-yes balanced; do
                [ "$(link $_v 0000:01:00.0 link/l1_2_aspm)" = "1|hwdb /etc/udev/hwdb.d/99-family-aspm.hwdb:4 (family test allow)" ] &&
                        [ "$(link $_v 0000:a6:00.0 link/l1_1_aspm)" = "1|hwdb /etc/udev/hwdb.d/99-family-aspm.hwdb:9 (family test allow)" ] ||
                        { echo "$_v: $(link $_v 0000:01:00.0 link/l1_2_aspm) $(link $_v 0000:a6:00.0 link/l1_1_aspm)"; return 1; }
        done
}
hwdb_point keep IDLECFG_ASPM_DENY "without a deny: the NVMe's L1.2 and the AX210's L1.1 get 1 from their allow entries (links = yes, balanced)" aspm_keep
allow_lifts() {
        for _v in links-yes balanced; do
                [ "$(link $_v 0000:01:00.0 link/l1_2_aspm)" = "1|hwdb /etc/udev/hwdb.d/99-family-aspm.hwdb:4 (family test allow)" ] &&
                        [ "$(link $_v 0000:a6:00.0 link/l1_1_aspm)" = "1|hwdb /etc/udev/hwdb.d/99-family-aspm.hwdb:9 (family test allow)" ] ||
                        { echo "$_v:"; rows $_v $L intel-laptop; return 1; }
        done
}
hwdb_point allow IDLECFG_ASPM_ALLOW "the states an allow entry lists get 1 with its reason: the NVMe's L1.2, the AX210's L1.1 (links = yes, balanced)" allow_lifts
allow_keep() {
        for _v in links-yes balanced; do
                for _f in link/l1_aspm link/clkpm link/l1_1_pcipm link/l1_2_pcipm; do
                        [ -z "$(link $_v 0000:01:00.0 $_f)" ] || { echo "$_v: the NVMe's $_f: $(link $_v 0000:01:00.0 $_f)"; return 1; }
                done
                [ -z "$(rows $_v $L desktop-sata)" ] || { echo "$_v:"; rows $_v $L desktop-sata; return 1; }
        done
}
hwdb_point keep IDLECFG_ASPM_ALLOW "a state no entry lists stays as it is: the NVMe's L1, CLKPM and PCI-PM files, desktop-sata's link (links = yes, balanced)" allow_keep
# policy_through ID MACHINE: the policy ID on the command line and in tmpfiles, no per-link file
policy_through() {
        [ "$(rows "$1" $K "$2" | cut -d'|' -f8,11 | tr '\n' ' ')" = "$1|cmdline $1|tmpfiles " ] && [ -z "$(rows "$1" $L "$2")" ] ||
                { echo "$1 $2:"; rows "$1" $K "$2"; rows "$1" $L "$2"; return 1; }
}
policy_allow() {
        for _v in performance powersave powersupersave; do policy_through $_v amd-allow || return 1; done
}
hwdb_point allow IDLECFG_ASPM_POLICY "amd-laptop with its entry (amd-allow): performance, powersave, powersupersave go on the command line and in tmpfiles, no link file" policy_allow
policy_keep() {
        amd_links powersave l0s,l1,clkpm 1 && policy_through default amd-laptop
}
hwdb_point keep IDLECFG_ASPM_POLICY "amd-laptop without the entry: powersave is a skip saying why, its states go on each link; default goes through as with it" policy_keep
links_no() {
        ok_plans links-no && [ -z "$(rows links-no $L)" ] && ! grep -q "$L" "$(out intel-laptop links-no udev)" &&
                [ -n "$(rows balanced $L intel-laptop)" ]
}
check "links = no: no per-link file, though the hwdb names two functions (balanced, links = yes, sets them)" links_no
check "links takes no per-source value (a command-line-time choice): refused with the file and line" \
        refused_source links-src pcie_aspm links
check "a word policy does not take is refused with the file and line" refused_word bad pcie_aspm policy \
        "unknown value 'on' for [pcie_aspm] policy; valid: default, performance, powersave, powersupersave, keep"
check "every value changes its own knob alone: the rest of each plan is balanced's" only_knobs $K $L
done_testing
