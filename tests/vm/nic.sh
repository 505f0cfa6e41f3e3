# tests/vm/nic.sh: sourced by check-vm.sh. The flow "nic" of IDLECFG_VM_FLOWS
# (issue 47, item 2): a NIC whose driver suspends it when the link goes down,
# booted. q35 only: QEMU's e1000e (Intel 82574L, driver e1000e) on a PCIe
# root port, on a user-mode network (restrict=on: no traffic leaves QEMU),
# and a QMP socket through which the host turns the link off and on
# (set_link), as pulling the cable would.
#
# e1000e lets the kernel runtime-suspend the NIC only where pci_dev_run_wake()
# finds PME (e1000_probe(), drivers/net/ethernet/intel/e1000e/netdev.c, 6.1 to
# 7.3), and QEMU's e1000e lists none (hw/net/e1000e.c: PMC is
# PCI_PM_CAP_VER_1_1 | PCI_PM_CAP_DSI; its igb is the same). A real 82574L
# lists PME from D0, D3hot and D3cold and asserts it on a link change the
# driver armed; tests/vm/idlecfg_test_pme.c, a test module built against the
# guest kernel's headers (as the power flow's AC adapter), gives QEMU's the
# same in the kernel. Its config space still lists no PME, which is what
# idlecfg reads, so the root gets a local hwdb entry saying runtime PM works
# on this NIC (IDLECFG_PCI_RUNTIME_PM=allow), as an administrator whose NIC
# idlecfg cannot judge would write. Per suite:
#   1. record boot, QEMU's e1000e as it is: idlecfg's plan skips its runtime
#      PM for want of PME (its PM capability in config space lists none);
#   2. record boot with the test module and the entry: the plan (powersave:
#      [pci] runtime_pm = auto) writes auto for the NIC;
#   then install --root under that recording and its steps in a chroot;
#   3. link boot, the module loaded: tests/vm/nic-guest.sh (unit
#      idlecfg-vm-nic.service) reads the NIC's power/control as the installed
#      rules left it, brings the interface up and polls carrier and
#      runtime_status while tests/vm/nic-qmp.py turns the link off for
#      $vm_nic_down s and on. The NIC must be runtime-suspended within
#      $vm_nic_limit s of the carrier going down (IDLECFG_VM_NIC_LIMIT), and
#      active with its carrier back within $vm_nic_limit s of the module's PME.

vm_nic_npoints=8
vm_nic_limit=${IDLECFG_VM_NIC_LIMIT:-10}
vm_nic_down=${IDLECFG_VM_NIC_DOWN:-20}
vm_nic_profile=powersave

# vm_nic_pmc RECORDING DEVPATH: the PMC word of DEVPATH's PM capability, from
# the config space umockdev recorded (H: config=HEX), or "none"
vm_nic_pmc() {
        python3 - "$1" "$2" <<'PY'
import sys
dev, cfg = None, None
for line in open(sys.argv[1], errors="replace"):
    if line.startswith("P: "):
        dev = line[3:].strip()
    elif dev == sys.argv[2] and line.startswith("H: config="):
        cfg = bytes.fromhex(line[len("H: config="):].strip())
if not cfg or len(cfg) < 0x40:
    sys.exit("no config space recorded for %s" % sys.argv[2])
p, n = cfg[0x34] & ~3, 0
while 0x40 <= p < len(cfg) - 3 and n < 48:
    if cfg[p] == 1:
        print("0x%04x" % (cfg[p + 2] | cfg[p + 3] << 8))
        sys.exit(0)
    p, n = cfg[p + 1] & ~3, n + 1
print("none")
PY
}

# the facts file of the link boot: KEY<TAB>VALUE
vm_nic_fact() { awk -F'\t' -v k="$1" '$1 == k { print $2; exit }' "$vn_out/nic.facts" 2>/dev/null; }

# vm_nic_record NAME: a record boot of $vn_root with the NIC; sets vn_rec
# (its output), vn_dev (the e1000e function's devpath), vn_pmc, vn_wake
vm_nic_record() {
        touch "$vn_root/etc/idlecfg-vm/record"
        boot_nic=1
        boot "$1" "$vn_root"
        vr_rc=$?
        boot_nic=
        vn_rec=$mw/$1/out
        vn_dev=$(awk '/^P: / { p = $2 } p != "" && /^E: DRIVER=e1000e$/ { print p; exit }' "$vn_rec/vm.umockdev" 2>/dev/null)
        [ "$vr_rc" -eq 0 ] && [ -n "$vn_dev" ] || return 1
        vn_pmc=$(vm_nic_pmc "$vn_rec/vm.umockdev" "$vn_dev" 2>"$vn/pmc.err") || vn_pmc="unknown ($(cat "$vn/pmc.err"))"
        vn_wake=absent
        awk -v d="$vn_dev" '/^P: / { p = $2 } p == d && /^A: power\/wakeup=/ { f = 1 } END { exit !f }' \
                "$vn_rec/vm.umockdev" && vn_wake=present
        machine_dir "$vn_rec" "$vn/machine-$1"
}

# vm_nic_plan NAME: the NIC's pci.runtime_pm row of the plan under the
# recording of boot NAME: "skipped REASON" or "planned VALUE REASON"
vm_nic_plan() {
        "$top_srcdir/tests/run-machine" "$vn/machine-$1" "$IDLECFG" plan --json --root "$vn_root" --kernel "$kver" \
                --profile "$vm_nic_profile" >"$vn/plan-$1.json" 2>"$vn/plan-$1.err" &&
                python3 -c 'import json, sys
for s in json.load(open(sys.argv[1]))["settings"]:
    if s["knob"] == "pci.runtime_pm" and s["devpath"] == sys.argv[2]:
        print("skipped " + s["reason"] if s["skipped"] else "planned %s %s" % (s["value"], s["reason"]))' \
                "$vn/plan-$1.json" "$vn_dev"
}

vm_nic_run() {
        vn_root=$vn/root
        unpack_root "$vn_root" || { vnfail "unpack $tarball"; return 1; }
        kver=$(ls "$vn_root/lib/modules")
        echo 0 >"$vn_root/etc/idlecfg-vm/idle"
        # the package and systemd's hwdb, for the plans
        if [ "$pkg_rc" -ne 0 ] || ! make -s -C "$pkg" install DESTDIR="$vn_root" >"$vn/make-install.log" 2>&1 ||
           ! root_inih "$vn_root" ||
           ! env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin $chroot_cmd "$vn_root" systemd-hwdb --usr update >>"$vn/make-install.log" 2>&1; then
                vnfail "the package into the root (make install DESTDIR)"
                diag "$(tail -n 20 "$pkg/build.log" "$vn/make-install.log" 2>/dev/null)"
                return 1
        fi
        # 1. QEMU's e1000e as it is
        if vm_nic_record nic-record; then
                vnpass "record boot: QEMU's e1000e at $vn_dev, bound to e1000e; PMC $vn_pmc, power/wakeup $vn_wake ($boot_secs s)"
        else
                vnfail "record boot: an e1000e-bound function in the guest's recording"
                return 1
        fi
        vn_row=$(vm_nic_plan nic-record)
        case $vn_row in
        "skipped skipped: Ethernet controller (e1000e) that cannot signal PME"*)
                vnpass "plan --profile $vm_nic_profile under that recording: ${vn_row#skipped }" ;;
        *)
                vnfail "plan --profile $vm_nic_profile under that recording skips the NIC for want of PME (got: ${vn_row:-no row; $(cat "$vn/plan-nic-record.err")})" ;;
        esac
        # 2. with the test module: the PME a real 82574L has
        mkdir -p "$vn_root/etc/udev/hwdb.d"
        cat >"$vn_root/etc/udev/hwdb.d/99-idlecfg-vm-pme.hwdb" <<'EOF'
# make check-vm's nic flow (tests/vm/nic.sh): QEMU's e1000e (8086:10d3), given
# the PME of a real 82574L by the test module tests/vm/idlecfg_test_pme.c
pci:v00008086d000010D3*
 IDLECFG_PCI_RUNTIME_PM=allow
 IDLECFG_PCI_RUNTIME_PM_REASON=check-vm: PME from the test module idlecfg_test_pme
EOF
        if vm_test_module idlecfg_test_pme "$kver" && mkdir -p "$vn_root/lib/modules/$kver/updates" &&
           cp "$vm_ko" "$vn_root/lib/modules/$kver/updates/idlecfg_test_pme.ko" &&
           echo idlecfg_test_pme >"$vn_root/etc/modules-load.d/idlecfg-vm-pme.conf" &&
           depmod -b "$vn_root" "$kver"; then
                vnpass "test module idlecfg_test_pme for $kver ($vm_ko_source), loaded at boot"
        else
                vnfail "test module idlecfg_test_pme for $kver: ${vm_ko_why:-depmod failed}"
                return 1
        fi
        if vm_nic_record nic-record-pme &&
           vn_row=$(vm_nic_plan nic-record-pme) && case $vn_row in "planned auto "*"99-idlecfg-vm-pme.hwdb:"*" (check-vm: PME from the test module idlecfg_test_pme)"*) true ;; *) false ;; esac; then
                vnpass "record boot with the module: power/wakeup $vn_wake, PMC $vn_pmc; plan --profile $vm_nic_profile with the local entry: the NIC ${vn_row#planned } ($boot_secs s)"
        else
                vnfail "record boot with the module: the NIC planned auto by the local entry (got: ${vn_row:-no row})"
                return 1
        fi
        rm -f "$vn_root/etc/idlecfg-vm/record" "$vn_root/etc/systemd/system/multi-user.target.wants/idlecfg-vm-snapshot.service"
        "$top_srcdir/tests/run-machine" "$vn/machine-nic-record-pme" "$IDLECFG" install --root "$vn_root" --kernel "$kver" \
                --profile "$vm_nic_profile" >"$vn/install.out" 2>&1
        vn_irc=$?
        vn_rules=$vn_root/etc/udev/rules.d/70-idlecfg.rules
        if { [ $vn_irc -eq 0 ] || [ $vn_irc -eq 4 ]; } && vm_power_steps "$vn/install.out" "$vn_root" >"$vn/steps.log" 2>&1 &&
           grep -q "^# pci.runtime_pm on ${vn_dev##*/}:" "$vn_rules"; then
                vnpass "idlecfg install --root ROOT --profile $vm_nic_profile under that recording (exit $vn_irc) and its steps in a chroot: 70-idlecfg.rules writes the NIC's power/control"
        else
                vnfail "idlecfg install --root ROOT --profile $vm_nic_profile, its steps, a rule for the NIC (exit $vn_irc)"
                diag "$(tail -n 20 "$vn/install.out" "$vn/steps.log")"
                return 1
        fi

        # 3. the link off and on
        install -m 755 "$vmdir/nic-guest.sh" "$vn_root/usr/local/sbin/idlecfg-vm-nic"
        install -m 644 "$vmdir/idlecfg-vm-nic.service" "$vn_root/etc/systemd/system/"
        ln -sf /etc/systemd/system/idlecfg-vm-nic.service "$vn_root/etc/systemd/system/multi-user.target.wants/"
        mkdir -p "$mw/nic-link"
        rm -f "$mw/nic-link/qmp.sock" "$mw/nic-link/console.log"
        python3 "$vmdir/nic-qmp.py" "$mw/nic-link/qmp.sock" "$mw/nic-link/console.log" "$vn/qmp.log" "$vm_nic_down" &
        vn_qmp=$!
        boot_nic=1
        boot nic-link "$vn_root"
        vn_rc=$?
        boot_nic=
        wait "$vn_qmp"
        vn_qrc=$?
        vn_out=$mw/nic-link/out
        if [ "$vn_rc" -eq 0 ] && [ "$vn_qrc" -eq 0 ] && [ -s "$vn_out/nic.facts" ] && [ ! -s "$vn_out/nic.err" ] &&
           [ "$(vm_nic_fact control_boot)" = auto ]; then
                vnpass "link boot: the installed rule left the NIC's power/control auto, no daemon running; power/wakeup $(vm_nic_fact wakeup); the host turned the link off and on through QMP ($boot_secs s)"
        else
                vnfail "link boot: the guest's steps, QMP set_link off and on (qemu $vn_rc, qmp $vn_qrc), the NIC's power/control auto after boot (got $(vm_nic_fact control_boot))"
                diag "$(cat "$vn/qmp.log" "$vn_out/nic.err" 2>/dev/null)"
                return 1
        fi
        # carrier down: the first sample suspended; the PME (the module's
        # dmesg line), then the first sample active with carrier 1
        vn_res=$(awk -F'\t' -v d="$(vm_nic_fact down_at)" -v u="$(vm_nic_fact up_at)" '
                d != "-" && $1 >= d && (u == "-" || $1 < u) { if ($4 == "suspended" && s == "") s = $1; if (s != "" && $4 == "suspended") last = $1 }
                END { printf "%s %s\n", (s == "" ? "-" : s - d), (s == "" ? "-" : last - s) }' "$vn_out/nic.log")
        set -- $vn_res
        if [ "$1" != - ] && awk -v t="$1" -v l="$vm_nic_limit" 'BEGIN { exit !(t <= l) }'; then
                vnpass "link off: runtime-suspended $1 s after the carrier went down (limit $vm_nic_limit s), and stayed so for $2 s while the link was down"
        else
                vnfail "link off: runtime-suspended within $vm_nic_limit s of the carrier going down (got: $1)"
                diag "$(head -n 60 "$vn_out/nic.log")"
        fi
        vn_pme=$(sed -n 's/^\[ *\([0-9.]*\)\].*idlecfg_test_pme: link up while runtime-suspended: PME.*/\1/p' "$vn_out/nic.dmesg" | head -n 1)
        vn_back=$(awk -F'\t' -v p="${vn_pme:-x}" 'p != "x" && $1 >= p && $2 == "1" && $4 == "active" { print $1 - p; exit }' "$vn_out/nic.log")
        if [ -n "$vn_pme" ] && [ -n "$vn_back" ] && awk -v t="$vn_back" -v l="$vm_nic_limit" 'BEGIN { exit !(t <= l) }'; then
                vnpass "link on: the module's PME at $vn_pme s of uptime, then active with carrier 1 $vn_back s later (limit $vm_nic_limit s); PMEs signalled: $(vm_nic_fact pme_count), runtime_suspended_time $(vm_nic_fact runtime_suspended_time) ms"
        else
                vnfail "link on: a PME, then active with carrier 1 within $vm_nic_limit s (PME at ${vn_pme:-none}, back after ${vn_back:-never})"
                diag "$(cat "$vn_out/nic.dmesg" 2>/dev/null | tail -n 15)" "$(tail -n 30 "$vn_out/nic.log")"
        fi
        rm -rf "$vn_root"
}

vm_nic_flow() {
        vn=$mw/nic
        rm -rf "$vn"
        mkdir -p "$vn"
        vn_left=$vm_nic_npoints
        vnpass() { vn_left=$((vn_left - 1)); pass "nic: $*"; }
        vnfail() { vn_left=$((vn_left - 1)); fail "nic: $*"; }
        vm_nic_run || true
        while [ $vn_left -gt 0 ]; do
                vnfail "(not reached: an earlier step failed)"
        done
}
