#!/bin/sh
# tests/vm/snapshot.sh: runs in the test VM (idlecfg-vm-snapshot.service) once the
# boot has settled: idles the seconds /etc/idlecfg-vm/idle names, lists the
# runtime PM state of every device (idle.txt), then writes the live power
# attributes, the module parameters and, on the baseline boot, an umockdev
# recording of /sys as a tar onto the output disk, then powers off. Only attributes that hold a setting are listed:
# runtime_status, counters and timestamps change by themselves and have no place
# in a before/after comparison.
set -u
out=/dev/disk/by-id/ata-QEMU_HARDDISK_IDLECFG-OUT
work=/run/idlecfg-vm
mkdir -p "$work"
cd "$work" || exit 1
# the unit starts after udev-settle; settle again for the uevents of devices
# that drivers add asynchronously (HDA codecs, usb-storage's SCSI disk)
udevadm settle --timeout=120
cut -d' ' -f1 /proc/uptime >settled

# idle, then what the kernel holds runtime-suspended: path, runtime_status,
# driver, subsystem and, for a USB device, its interfaces' classes (hex); one
# perl process, nothing else touches a device meanwhile
idle=$(cat /etc/idlecfg-vm/idle 2>/dev/null || echo 0)
# where the harness put one: `idlecfg measure --json` over the last seconds of
# the idle time (/etc/idlecfg-vm/measure runs it), its runtime_status then
# compared with the kernel's right after
if [ -x /etc/idlecfg-vm/measure ]; then
        m=$(cat /etc/idlecfg-vm/measure-seconds)
        [ "$idle" -gt "$m" ] && sleep $((idle - m))
        /etc/idlecfg-vm/measure --json >measure.json 2>measure.err
        echo $? >measure.rc
else
        sleep "$idle"
fi
cut -d' ' -f1 /proc/uptime >sampled
find /sys/devices -path '*/power/runtime_status' -type f | perl -e '
        sub slurp { my ($f) = @_; open(my $h, "<", $f) or return undef; my $v = <$h>;
                    return undef unless defined $v; chomp $v; return $v; }
        sub base { my ($l) = @_; my $t = readlink($l); return "-" unless defined $t; $t =~ s{.*/}{}; return $t; }
        while (my $f = <STDIN>) {
                chomp $f;
                (my $d = $f) =~ s{/power/runtime_status$}{};
                my $st = slurp($f);
                $st = "<unreadable>" unless defined $st;
                my @cls;
                if (-e "$d/bDeviceClass") {
                        for my $i (sort glob("$d/*:*/bInterfaceClass")) { my $c = slurp($i); push @cls, $c if defined $c; }
                }
                printf "%s\t%s\t%s\t%s\t%s\n", $d, $st, base("$d/driver"), base("$d/subsystem"), @cls ? join(",", @cls) : "-";
        }' | LC_ALL=C sort >idle.txt
# the same measurement as text, once more after the sample (idlecfg(8)'s
# example is taken from it)
[ -x /etc/idlecfg-vm/measure ] && /etc/idlecfg-vm/measure >measure.txt 2>&1

# path<TAB>value, one read() each as idlecfg reads them (perl: one process, not
# one cat per file, which costs a minute under TCG); a file that cannot be read
# says so, since that can change too
{
        find /sys/devices \( -path '*/power/control' -o -path '*/power/autosuspend_delay_ms' \
                -o -path '*/power/wakeup' -o -path '*/power/persist' -o -path '*/power/usb*_hardware_lpm*' \
                -o -name link_power_management_policy -o -name d3cold_allowed \
                -o -path '*/link/*aspm' -o -path '*/link/clkpm' -o -path '*/link/*pcipm' \) -type f
        find /sys/module/*/parameters -type f -perm -0444
        printf '%s\n' /sys/power/mem_sleep /sys/power/resume /proc/sys/kernel/nmi_watchdog \
                /proc/sys/vm/dirty_writeback_centisecs
} | perl -e '
        while (my $f = <STDIN>) {
                chomp $f;
                my ($h, $buf, $v);
                if (open($h, "<", $f) && defined(sysread($h, $buf, 65536))) {
                        $buf =~ s/\n\z//;
                        $buf =~ s/\n/\\n/g;
                        $v = $buf;
                } else {
                        $v = "<unreadable>";
                }
                print "$f\t$v\n";
        }' | LC_ALL=C sort >snapshot.txt

cat /proc/cmdline >cmdline
uname -r >kernel
cut -d' ' -f1 /proc/modules | LC_ALL=C sort >modules
systemctl --failed --no-legend --plain >failed-units 2>&1
journalctl -b -o short-monotonic --no-pager >journal.txt 2>&1
journalctl -b -p warning -o cat --no-pager >warnings.txt 2>&1
files="settled sampled idle.txt snapshot.txt cmdline kernel modules failed-units journal.txt warnings.txt"
[ -e measure.rc ] && files="$files measure.json measure.err measure.rc measure.txt"
# the peer's unit, on the powertop boot
if [ -e /etc/systemd/system/idlecfg-vm-powertop.service ]; then
        systemctl show -p Result -p ExecMainStatus idlecfg-vm-powertop.service >tune-result 2>&1
        journalctl -b -u idlecfg-vm-powertop.service -o cat --no-pager >tune.log 2>&1
        files="$files tune-result tune.log"
fi
# the image flow (image-flow.sh): idlecfg's first-boot unit, whether it ran
if [ -e /etc/idlecfg-vm/firstboot ]; then
        systemctl show -p Result -p ExecMainStatus -p ConditionResult -p ActiveState idlecfg-firstboot.service \
                >firstboot-result 2>&1
        journalctl -b -u idlecfg-firstboot.service -o cat --no-pager >firstboot.log 2>&1
        # whether sysinit.target waited for it (image-flow.sh): when each was
        # reached (µs since the kernel started), what sysinit.target is ordered
        # after and the chain systemd says it waited for (systemd 252 gives none
        # while the boot, this unit of it included, has not finished)
        { systemctl show -p InactiveExitTimestampMonotonic -p ActiveEnterTimestampMonotonic \
                -p ExecMainExitTimestampMonotonic idlecfg-firstboot.service | sed 's/^/unit./'
          systemctl show -p ActiveEnterTimestampMonotonic -p After sysinit.target | sed 's/^/sysinit./'
        } >firstboot-times 2>&1
        systemd-analyze critical-chain --no-pager sysinit.target >critical-chain 2>&1
        files="$files firstboot-result firstboot.log firstboot-times critical-chain"
fi
if [ -e /etc/idlecfg-vm/record ]; then
        umockdev-record --all >vm.umockdev 2>record.err
        files="$files vm.umockdev record.err"
fi
cut -d' ' -f1 /proc/uptime >uptime
tar -cf "$out" $files uptime
sync
systemctl poweroff
