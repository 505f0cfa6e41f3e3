#!/bin/sh
# tests/sysfs-list.sh: detect lists its devices straight from /sys
# (src/root/sysfs.c) instead of by libudev's enumeration; it must see the same
# devices in the same order as libudev's enumeration, on every recorded
# machine, on the shared fixtures, on a generated machine, and where
# libudev's order is not the order of the paths (md and dm block devices
# after all others). A sound card's control device (controlC) is left out
# of the order compared: libudev after 252 moves it after its card's other
# devices, 252 does not (src/root/sysfs.c); detect does not depend on it.
. "$top_srcdir/tests/lib.sh"
need umockdev-run
# one point per recorded machine, then 7
plan $(($(ls -d "$TESTS_DATA"/machines/*/ | wc -l) + 7))
LIST=${SYSFS_LIST:-$top_builddir/tests/sysfs-list}

# compare: the two halves of $tmp/out hold the same devices, in the same
# order but for control devices; EMPTY=1: both may be empty
compare() {
        sed '/^--$/,$d' "$tmp/out" >"$tmp/udev"
        sed '1,/^--$/d' "$tmp/out" >"$tmp/ours"
        [ -s "$tmp/udev" ] || [ "${EMPTY:-}" = 1 ] || { echo "# libudev enumerated nothing"; return 1; }
        LC_ALL=C sort "$tmp/udev" >"$tmp/udev.set"
        LC_ALL=C sort "$tmp/ours" >"$tmp/ours.set"
        diff -u "$tmp/udev.set" "$tmp/ours.set" | sed 's/^/# /' | head -40
        cmp -s "$tmp/udev.set" "$tmp/ours.set" || return 1
        grep -v '/sound/card[0-9]*/controlC' "$tmp/udev" >"$tmp/udev.order"
        grep -v '/sound/card[0-9]*/controlC' "$tmp/ours" >"$tmp/ours.order"
        diff -u "$tmp/udev.order" "$tmp/ours.order" | sed 's/^/# /' | head -40
        cmp -s "$tmp/udev.order" "$tmp/ours.order"
}
# same REC [SUBSYSTEM...]: under umockdev with REC
same() {
        _rec=$1
        shift
        "$top_srcdir/tests/run-machine" "$_rec" "$LIST" "$@" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; return 1; }
        compare
}
# live [SUBSYSTEM...]: on the running kernel's /sys, read only
live() {
        "$LIST" "$@" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; return 1; }
        compare
}

for m in "$TESTS_DATA"/machines/*/; do
        name=$(basename "$m")
        check "$name: the devices detect lists are libudev's, in its order ($(grep -c '^P:' "$m/machine.umockdev") recorded)" same "$m"
done

if [ -d "$FIXTURES/recordings" ]; then
        bad=
        for r in $(cd "$FIXTURES/recordings" && find . -type f -name '*.umockdev' | LC_ALL=C sort); do
                EMPTY=1 same "$FIXTURES/recordings/$r" || bad="$bad $r"
        done
        if [ -z "$bad" ]; then ok "the shared fixtures' recordings: the same devices in the same order"
        else not_ok "the shared fixtures' recordings differ:$bad"; fi
else
        skip "the shared fixtures' recordings: the same devices in the same order" "no shared fixtures at $FIXTURES"
fi

sh "$top_srcdir/tests/bench/gen-machine.sh" 250 >"$tmp/gen.umockdev"
check "a generated machine of 250 devices: the same" same "$tmp/gen.umockdev"

# sound cards: the same devices; the order by path, the control device
# where its name puts it (libudev 252's order)
for d in card0 card0/controlC0 card0/hwC0D0 card0/pcmC0D0p card0/pcmC0D0c card1 card1/controlC1 card1/pcmC1D3p; do
        printf 'P: /devices/pci0000:00/0000:00:1f.3/sound/%s\nE: SUBSYSTEM=sound\n\n' "$d"
done >"$tmp/sound.umockdev"
check "sound cards: the same devices as libudev" same "$tmp/sound.umockdev" sound
ours_order() { sed -n 's|.*/sound/||p' "$tmp/ours" | tr '\n' ' '; }
check "... in the order of their paths: card0 controlC0 hwC0D0 pcmC0D0c pcmC0D0p, then card1's" \
        test "$(ours_order)" = "card0 card0/controlC0 card0/hwC0D0 card0/pcmC0D0c card0/pcmC0D0p card1 card1/controlC1 card1/pcmC1D3p "

# md and dm block devices after all others, whatever their paths
cat >"$tmp/block.umockdev" <<'REC'
P: /devices/virtual/block/dm-0
E: SUBSYSTEM=block
E: DEVTYPE=disk

P: /devices/virtual/block/md127
E: SUBSYSTEM=block
E: DEVTYPE=disk

P: /devices/virtual/block/loop0
E: SUBSYSTEM=block
E: DEVTYPE=disk

P: /devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda
E: SUBSYSTEM=block
E: DEVTYPE=disk

P: /devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda/sda1
E: SUBSYSTEM=block
E: DEVTYPE=partition
REC
check "md and dm block devices after all others, as libudev" same "$tmp/block.umockdev" block
check "... sda sda1 loop0, then dm-0 md127" \
        test "$(sed 's|.*/||' "$tmp/ours" | tr '\n' ' ')" = "sda sda1 loop0 dm-0 md127 "
# the running kernel's /sys: real links, real class directories
if [ -d /sys/bus ] && [ -d /sys/class ]; then
        check "this machine's /sys (read only): the same devices in the same order for detect's subsystems, block, tty, misc and mem" \
                live pci usb scsi_host nvme sound scsi hdaudio drm i2c net block tty misc mem
else
        skip "this machine's /sys (read only): the same devices in the same order" "no /sys here"
fi
done_testing
