#!/bin/sh
# tests/vm/nic-guest.sh: runs in the test VM of the nic flow (tests/vm/nic.sh;
# unit idlecfg-vm-nic.service) once udev has settled. The guest has QEMU's
# e1000e on a user-mode network; the host turns its link off and on through
# QMP (tests/vm/nic-qmp.py) once this script says "ready" on the console;
# tests/vm/idlecfg_test_pme.c, loaded at boot, gives the NIC the PME QEMU's
# lacks. No daemon runs: what acts is the kernel and idlecfg's installed rules.
#   1. the NIC's power/control as the boot left it (idlecfg's installed rules
#      and the kernel), its power/wakeup, its PM capability (PMC, config space)
#   2. the interface up (sysfs flags), as any network configuration does
#   3. "ready" to /dev/kmsg (the console); then carrier, operstate and
#      runtime_status every 0.25 s (read by the shell: a process per file
#      costs more than that under TCG) into nic.log, until the carrier has
#      gone down (the host keeps it down 20 s), come back and stayed up 5 s,
#      or 150 s have passed
# Everything goes to the output disk as a tar, then the guest powers off
# (the harness's boot() wants snapshot.txt, cmdline, settled, uptime).
set -u
out=/dev/disk/by-id/ata-QEMU_HARDDISK_IDLECFG-OUT
work=/run/idlecfg-vm

mkdir -p "$work"
cd "$work" || exit 1
udevadm settle --timeout=120
cut -d' ' -f1 /proc/uptime >settled
: >snapshot.txt
: >nic.log

save_out() {
        cat /proc/cmdline >cmdline
        cut -d' ' -f1 /proc/modules | LC_ALL=C sort >modules
        journalctl -b -o short-monotonic --no-pager >journal.txt 2>&1
        cut -d' ' -f1 /proc/uptime >sampled
        cut -d' ' -f1 /proc/uptime >uptime
        # shellcheck disable=SC2046 # the names have no blanks
        tar -cf "$out" settled sampled uptime snapshot.txt cmdline modules journal.txt nic.log \
                $(ls nic.facts nic.err nic.dmesg 2>/dev/null)
        sync
}

dev=
for d in /sys/bus/pci/drivers/e1000e/0000:*; do
        [ -e "$d/net" ] && dev=$(cd "$d" && pwd -P) && break
done
if [ -z "$dev" ]; then
        echo "no PCI function bound to e1000e with a network interface" >nic.err
        save_out
        systemctl poweroff
        exit 0
fi
ifname=$(ls "$dev/net" | head -n 1)
net=/sys/class/net/$ifname
# PMC: the PM capability's word at +2, from the config space (root reads
# 256 bytes); perl-base is in every root, mawk has no strtonum
pmc=$(perl -e 'open(my $h, "<", $ARGV[0]) or exit; binmode $h; read($h, my $c, 256); my @b = unpack("C*", $c);
        my $p = $b[0x34] // 0; my $n = 0;
        while ($p >= 0x40 && $n++ < 48) { if ($b[$p] == 1) { printf "0x%04x\n", $b[$p + 2] + 256 * $b[$p + 3]; exit } $p = $b[$p + 1]; }
        print "none\n";' "$dev/config")
read -r control_boot <"$dev/power/control"
wakeup=absent
[ -e "$dev/power/wakeup" ] && read -r wakeup <"$dev/power/wakeup"
{
        printf 'devpath\t%s\n' "${dev#/sys}"
        printf 'ifname\t%s\n' "$ifname"
        printf 'control_boot\t%s\n' "$control_boot"
        printf 'wakeup\t%s\n' "$wakeup"
        printf 'pmc\t%s\n' "$pmc"
} >nic.facts
printf '/sys%s/power/control\t%s\n' "${dev#/sys}" "$control_boot" >snapshot.txt

# IFF_UP (0x1): the driver opens the NIC and reports its carrier
read -r flags <"$net/flags"
printf '0x%x\n' $((flags | 1)) >"$net/flags" 2>>nic.err
echo "idlecfg-vm-nic: ready ($ifname, ${dev#/sys})" >/dev/kmsg

# centiseconds of uptime, shell arithmetic only
cs() { _f=${1#*.}; _f=${_f#0}; echo $((${1%.*} * 100 + _f)); }
read -r up _ <settled
t_end=$(($(cs "$up") + 15000))
# the poll: uptime carrier operstate runtime_status
phase=wait-down
t_down= t_up=
while :; do
        read -r up _ </proc/uptime
        now=$(($(cs "$up")))
        c=-
        read -r c <"$net/carrier" 2>/dev/null
        read -r o <"$net/operstate"
        read -r r <"$dev/power/runtime_status"
        printf '%s\t%s\t%s\t%s\n' "$up" "$c" "$o" "$r" >>nic.log
        case $phase in
        wait-down)
                if [ "$c" = 0 ]; then phase=down t_down=$up; echo "idlecfg-vm-nic: carrier 0 at $up" >/dev/kmsg; fi ;;
        down)
                if [ "$c" = 1 ]; then phase=up t_up=$up; echo "idlecfg-vm-nic: carrier 1 at $up" >/dev/kmsg; fi ;;
        up)
                [ $((now - $(cs "$t_up"))) -ge 500 ] && break ;;
        esac
        [ "$now" -ge "$t_end" ] && { echo "timeout in phase $phase" >>nic.err; break; }
        sleep 0.25
done
read -r active_ms <"$dev/power/runtime_active_time"
read -r suspended_ms <"$dev/power/runtime_suspended_time"
printf 'runtime_active_time\t%s\nruntime_suspended_time\t%s\n' "$active_ms" "$suspended_ms" >>nic.facts
printf 'down_at\t%s\nup_at\t%s\n' "${t_down:--}" "${t_up:--}" >>nic.facts
pme=-
[ -r /sys/module/idlecfg_test_pme/parameters/pme_count ] && read -r pme </sys/module/idlecfg_test_pme/parameters/pme_count
printf 'pme_count\t%s\n' "$pme" >>nic.facts
# the module's PME and the driver's words, with their uptime
dmesg 2>/dev/null | grep -E 'idlecfg_test_pme|e1000e' >nic.dmesg
save_out
systemctl poweroff
