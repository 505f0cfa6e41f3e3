#!/bin/sh
# tests/vm/power-guest.sh: runs in the test VM of the power flow
# (tests/vm/power-source.sh; unit idlecfg-vm-power.service) once udev has
# settled. The AC adapter and the battery are tests/vm/idlecfg_test_power.c's;
# its parameter ac_online is the plug. /etc/idlecfg-vm/power-expect lists
# what must be in effect, one setting a line:
#   PATH<TAB>AC value<TAB>battery value<TAB>late|-
# ("late": the path appears when snd_hda_intel loads, which is blacklisted at
# boot). /etc/idlecfg-vm/power-steps names the steps of this boot, in order:
#   boot-ac | boot-battery   the values of the source the guest booted on
#   capture                  the values now, for rollback
#   plug | unplug            ac_online written, then that source's values
#   late-module              modprobe snd_hda_intel, then the current source's
#                            values, its parameters and devices included
#   suspend                  rtcwake -m freeze -s 5, then the current values
#   rollback                 idlecfg rollback, then the captured values
# Each step writes one line to results: STEP<TAB>ok|bad|skip<TAB>seconds from
# the change to the first poll that found every value right (polled every
# 0.1 s for up to 10 s)<TAB>detail; a bad step lists what was wrong in
# STEP.bad. Everything goes to the output disk as a tar, then the guest powers
# off (the harness's boot() wants snapshot.txt, cmdline, settled, uptime).
set -u
out=/dev/disk/by-id/ata-QEMU_HARDDISK_IDLECFG-OUT
param=/sys/module/idlecfg_test_power/parameters/ac_online
expect=/etc/idlecfg-vm/power-expect
work=/run/idlecfg-vm
mkdir -p "$work"
cd "$work" || exit 1
udevadm settle --timeout=120
cut -d' ' -f1 /proc/uptime >settled
: >results
late_loaded=false
source=ac

# perl, one process for a whole poll (a shell forks per value, which under
# TCG takes longer than the switch): "poll STEP T0 FILE SOURCE" reads every
# PATH<TAB>wanted line of FILE every 0.1 s until all hold or 10 s have
# passed since T0 (uptime), and appends STEP<TAB>ok|bad<TAB>seconds<TAB>
# detail to results (the seconds since T0 at which the switch's state file
# said SOURCE, in the detail); "values FILE" prints PATH<TAB>live value. A
# value is what the file says, the [selected] word of a list; Y/N stand for
# 1/0.
poll_pl='
use strict;
sub uptime { open(my $h, "<", "/proc/uptime") or return 0; my $l = <$h>; return (split(/ /, $l))[0]; }
sub live {
        my ($f) = @_;
        return "<absent>" unless -e $f;
        my ($h, $buf);
        open($h, "<", $f) or return "<unreadable>";
        defined(sysread($h, $buf, 65536)) or return "<unreadable>";
        $buf =~ s/\n.*//s;
        $buf = $1 if $buf =~ /\[([^\]]*)\]/;
        return $buf;
}
sub same { my ($l, $w) = @_; return 1 if $l eq $w; return 1 if $l eq "Y" && $w =~ /^(1|y|Y)$/;
           return 1 if $l eq "N" && $w =~ /^(0|n|N)$/; return 0; }
sub lines { my ($f) = @_; open(my $h, "<", $f) or die "$f: $!"; my @l; while (<$h>) { chomp; push @l, [split(/\t/)]; } return @l; }
my $mode = shift;
if ($mode eq "values") {
        print "$_->[0]\t" . live($_->[0]) . "\n" for lines(shift);
        exit 0;
}
my ($step, $t0, $file, $source) = @ARGV;
my @want = lines($file);
my $state;
while (1) {
        my $now = uptime();
        if (!defined $state) {
                my $s = live("/run/idlecfg/power-source");
                $state = $now - $t0 if $s =~ /^\Q$source\E\b/;
        }
        my @bad = grep { !same(live($_->[0]), $_->[1]) } @want;
        my $dt = $now - $t0;
        my $st = defined $state ? sprintf("; the switch state said %s at %.2f s", $source, $state) : "";
        open(my $r, ">>", "results") or die;
        if (!@bad) {
                printf $r "%s\tok\t%.2f\t%d values%s\n", $step, $dt, scalar(@want), $st;
                exit 0;
        }
        if ($dt >= 10) {
                printf $r "%s\tbad\t%.2f\t%d of %d values wrong after 10 s%s\n", $step, $dt, scalar(@bad), scalar(@want), $st;
                open(my $b, ">", "$step.bad") or die;
                printf $b "%s: %s, wanted %s\n", $_->[0], live($_->[0]), $_->[1] for @bad;
                exit 1;
        }
        close($r);
        select(undef, undef, undef, 0.1);
}
'
poll() {
        perl -e "$poll_pl" poll "$@"
}
t0() {
        read -r t0 _ </proc/uptime
}
# the files there are so far, as a tar on the output disk
save_out() {
        cut -d' ' -f1 /proc/uptime >uptime
        # shellcheck disable=SC2046 # the names have no blanks; the optional ones that exist
        tar -cf "$out" settled uptime results $(ls sampled snapshot.txt cmdline modules journal.txt power-source.log \
                failed-units ./*.bad ./*.uptime captured rollback.out rollback.rc rtcwake.out modprobe.err 2>/dev/null)
        sync
}

# wanted SOURCE: PATH<TAB>value of that source for each expected setting (a
# late one only once snd_hda_intel is loaded); a PATH may be a glob (SCSI
# host numbers), its first match counts
wanted() {
        while IFS='	' read -r _p _a _b _late; do
                [ "$_late" = late ] && ! $late_loaded && continue
                for _x in $_p; do break; done
                if [ "$1" = battery ]; then echo "$_x	$_b"; else echo "$_x	$_a"; fi
        done <"$expect"
}

for step in $(cat /etc/idlecfg-vm/power-steps); do
        case $step in
        boot-ac|boot-battery)
                source=${step#boot-}
                wanted "$source" >"$work/want"
                # the boot: from the moment udev settled
                t0
                poll "$step" "$t0" "$work/want" "$source"
                ;;
        capture)
                wanted ac >"$work/want"
                perl -e "$poll_pl" values "$work/want" >captured
                ;;
        plug|unplug)
                if [ "$step" = plug ]; then source=ac; else source=battery; fi
                wanted "$source" >"$work/want"
                t0
                if [ "$step" = plug ]; then echo 1 >"$param"; else echo 0 >"$param"; fi
                poll "$step" "$t0" "$work/want" "$source"
                ;;
        late-module)
                late_loaded=true
                wanted "$source" >"$work/want"
                # the change: the module is there (modprobe returned; its
                # add event and the codec's bind follow); modprobe's own time
                # under TCG is not the switch's
                read -r m0 _ </proc/uptime
                if modprobe snd_hda_intel 2>modprobe.err; then
                        t0
                        echo "$m0 $t0" >modprobe.uptime
                        poll "$step" "$t0" "$work/want" none
                else
                        printf '%s\tbad\t-\tmodprobe snd_hda_intel: %s\n' "$step" "$(cat modprobe.err)" >>results
                fi
                ;;
        suspend)
                wanted "$source" >"$work/want"
                # the results so far on the output disk first: a guest that
                # does not wake leaves them to the host. s2idle (rtcwake -m
                # freeze) never woke on QEMU's q35 under TCG (the guest sat
                # frozen, its CPU time still, until the boot's timeout): no
                # interrupt the RTC alarm raises is a wakeup there. S3 does
                # wake: QEMU's RTC requests the wakeup itself, SeaBIOS resumes.
                save_out
                if ! grep -qw deep /sys/power/mem_sleep 2>/dev/null; then
                        printf '%s\tskip\t-\tno S3 (/sys/power/mem_sleep: %s), and s2idle has no RTC wakeup on QEMU\n' \
                                "$step" "$(cat /sys/power/mem_sleep 2>&1)" >>results
                elif rtcwake -m mem -s 5 >rtcwake.out 2>&1; then
                        t0
                        poll "$step" "$t0" "$work/want" none
                else
                        printf '%s\tskip\t-\trtcwake -m mem -s 5 failed: %s\n' "$step" \
                                "$(tr '\n' ' ' <rtcwake.out)" >>results
                fi
                ;;
        rollback)
                t0
                idlecfg rollback >rollback.out 2>&1
                echo $? >rollback.rc
                poll "$step" "$t0" captured none
                ;;
        *)
                printf '%s\tbad\t-\tunknown step\n' "$step" >>results
                ;;
        esac
        cut -d' ' -f1 /proc/uptime >"$step.uptime"
done

# what boot() of check-vm.sh wants, and the switch's own words
cut -d' ' -f1 /proc/uptime >sampled
late_loaded=true
wanted ac >"$work/want"
perl -e "$poll_pl" values "$work/want" >snapshot.txt
cat /proc/cmdline >cmdline
cut -d' ' -f1 /proc/modules | LC_ALL=C sort >modules
journalctl -b -o short-monotonic --no-pager >journal.txt 2>&1
grep -E ' (idlecfg|systemd-run)\[[0-9]+\]: |idlecfg-power-source' journal.txt >power-source.log
systemctl --failed --no-legend --plain >failed-units 2>&1
save_out
systemctl poweroff
