#!/bin/sh
# tests/firstboot.sh: what runs at every boot and every verify of a machine
# installed from an image, under a recorded machine (commands logged, never
# run): the verdict on the initramfs kept in /var/lib/idlecfg/initramfs.cache
# (lsinitramfs run again only when the kernel, the initramfs or the modules
# changed; a damaged cache survived and rewritten), and the stamp of
# idlecfg-firstboot.service with its ExecCondition= (refresh --image
# --condition: 0 runs the unit, 1 skips it): written once the boot steps
# handed to idlecfg-boot-steps.service (refresh --image --boot-steps) are
# done, with a key of the hardware. rollback removes both.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}"
PATH=$PATH:/sbin:/usr/sbin
if [ -z "${IDLECFG_IN_MACHINE:-}" ]; then
        rm -rf "$tmp"
        IDLECFG_IN_MACHINE=1 exec "$top_srcdir/tests/run-machine" "$TESTS_DATA/machines/intel-laptop" sh "$0" "$@"
fi
plan 32

root=$tmp/root
state=$root/var/lib/idlecfg
cache=$state/initramfs.cache
stamp=$state/firstboot.stamp
id1=0123456789abcdef0123456789abcdef
id2=fedcba9876543210fedcba9876543210
mkroot_installed "$TESTS_DATA/machines/intel-laptop" "$root" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$root/var/lib" "$root/etc/kernel" "$root/boot"
printf 'root=UUID=0b5b5f4e-5d0e-4e4b-9d62-3f9d2b2a5c11 ro quiet\n' >"$root/etc/kernel/cmdline"
echo initramfs >"$root/boot/initrd.img-$KVER"
touch -d 2000-01-01 "$root/boot/initrd.img-$KVER"
echo $id1 >"$root/etc/machine-id"
cp -a "$root" "$tmp/orig"
ic() { "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }
tree() { (cd "$1" && find . -printf '%p %y %m %l\n' | sort && find . -type f -exec sha256sum {} + | sort -k2); }
tree "$tmp/orig" >"$tmp/orig.tree"
same_as_orig() { tree "$root" >"$tmp/now.tree" && diff "$tmp/orig.tree" "$tmp/now.tree"; }
# the commands of refresh --image and the lister go to this log instead of
# running (lib.sh: take_logger); the lister prints $TAKE_LIST (an initramfs
# without snd_hda_intel)
take_logger "$tmp/log-cmd"
printf '%s\n' . usr/lib/modules/$KVER/kernel/drivers/ata/ahci.ko.xz \
        usr/lib/modules/$KVER/kernel/sound/pci/hda/snd-hda-codec.ko.zst >"$tmp/list"
export TAKE_LIST="$tmp/list" TAKE_LOG="$tmp/take.log" TAKE_ROOT="$root"
take() { IDLECFG_TEST_TAKE_EFFECT=$tmp/log-cmd ic "$@"; }
# the number of listings since the last call
listed() { _c=$(grep -c '/lsinitramfs ' "$TAKE_LOG" 2>/dev/null); rm -f "$TAKE_LOG"; echo "${_c:-0}"; }
cond() { ic refresh --image --condition -v >"$tmp/cond.out" 2>&1; echo $?; }

# ---- the first boot ----
ic install --image >"$tmp/i1" 2>&1; rc=$?
check "install --image: exit 0, no stamp and no cache in the image" sh -c "
        test $rc -eq 0 && test -f '$state/manifest' && test ! -e '$stamp' && test ! -e '$cache'"
# (with the lock of another instance held: --condition does not wait for it)
mkdir -p "$root/run" && : >"$root/run/idlecfg.lock"
rc=$(flock "$root/run/idlecfg.lock" sh -c "'$IDLECFG' --root '$root' --wait 0 refresh --image --condition -v >'$tmp/cond.out' 2>&1; echo \$?")
rm -rf "$root/run"
check "refresh --image --condition without a stamp: exit 0 (the unit runs), without taking the lock" sh -c "
        test $rc -eq 0 && grep -q 'firstboot.stamp: none' '$tmp/cond.out'"
take refresh --image >"$tmp/r1" 2>&1; rc=$?
cp "$TAKE_LOG" "$tmp/take1.log"
n=$(listed)
check "refresh --image on the running system: installs, lists the initramfs once, keeps its verdict" sh -c "
        test $n -eq 1 && grep -q 'holds none of them' '$tmp/r1' &&
        grep -qx 'verdict lacks' '$cache' && grep -qx 'kernel $KVER' '$cache'"
check "  the boot entry left: exit 4, not run there but handed to idlecfg-boot-steps.service (--no-block), no stamp yet" sh -c "
        test $rc -eq 4 && ! grep -q '^kernel-install' '$tmp/take1.log' &&
        grep -qx '/usr/bin/systemctl start --no-block idlecfg-boot-steps.service' '$tmp/take1.log' &&
        grep -q 'kernel-install add $KVER' '$tmp/r1' && test ! -e '$stamp'" || diag "exit $rc" "$(cat "$tmp/r1")"
rc=$(cond)
check "  so the next boot runs the unit again (a first boot cut short before the steps)" test "$rc" -eq 0
take refresh --image --boot-steps >"$tmp/b1" 2>&1; rc=$?
cp "$TAKE_LOG" "$tmp/take2.log"
n=$(listed)
check "refresh --image --boot-steps (idlecfg-boot-steps.service): runs kernel-install, exit 0" sh -c "
        test $rc -eq 0 && grep -q 'kernel-install add $KVER /boot/vmlinuz-$KVER\$' '$tmp/take2.log'" ||
        diag "exit $rc" "$(cat "$tmp/b1")"
check "  and writes the stamp: /usr's mtime in ns, the machine ID, the hardware's key" sh -c "
        grep -qx 'MACHINE_ID=$id1' '$stamp' && grep -Eqx 'HARDWARE=(uuid:[0-9a-f-]{36}|dmi-pci:[0-9a-f]{16})' '$stamp' &&
        grep -qx \"USR_TIMESTAMP_NSEC=\$(stat -c %.9Y '$root/usr' | tr -d .)\" '$stamp'"

# ---- the boots after it ----
rc=$(cond)
check "refresh --image --condition with a stamp of this /usr and machine ID: exit 1 (the unit is skipped)" sh -c "
        test $rc -eq 1 && grep -q 'nothing to do' '$tmp/cond.out'"
take verify >"$tmp/v1" 2>&1; vrc=$?
n=$(listed)
check "verify after it: the initramfs not listed again, no update-initramfs step" sh -c "
        test $vrc -eq 1 && test $n -eq 0 && grep -q 'modprobe (installed' '$tmp/v1' && ! grep -q 'update-initramfs' '$tmp/v1'"
take refresh >"$tmp/r2" 2>&1; rc=$?
n=$(listed)
check "a plain refresh: up to date, not listed again, no boot step left" sh -c "
        test $rc -eq 0 && test $n -eq 0 && ! grep -q 'update-initramfs' '$tmp/r2' && ! grep -q 'kernel-install add' '$tmp/r2'"

# ---- what makes it list again ----
touch -d 2001-01-01 "$root/boot/initrd.img-$KVER"
take verify >"$tmp/v2" 2>&1
n=$(listed)
take verify >/dev/null 2>&1
n2=$(listed)
check "an initramfs with another mtime: listed again once, then kept" sh -c "
        test $n -eq 1 && test $n2 -eq 0 && ! grep -q 'update-initramfs' '$tmp/v2' &&
        grep -qx \"mtime \$(stat -c %Y '$root/boot/initrd.img-$KVER').000000000\" '$cache'"
cp "$root/etc/modprobe.d/idlecfg.conf" "$tmp/modprobe.conf"
echo 'options ahci mobile_lpm_policy=3' >>"$root/etc/modprobe.d/idlecfg.conf"
touch -d 2002-01-01 "$root/etc/modprobe.d/idlecfg.conf"
take verify >"$tmp/v3" 2>&1
n=$(listed)
check "another module in the options (ahci, in the initramfs): listed again, update-initramfs is a step" sh -c "
        test $n -eq 1 && grep -q 'update-initramfs -u -k $KVER' '$tmp/v3' && grep -qx 'verdict holds' '$cache' &&
        grep -qx 'names ahci' '$cache'"
cp -p "$tmp/modprobe.conf" "$root/etc/modprobe.d/idlecfg.conf"
take verify >/dev/null 2>&1
n=$(listed)
check "  the options as they were: listed again (the key is the module set)" test "$n" -eq 1
printf 'garbage\n' >"$cache"
take verify >"$tmp/v4" 2>&1; rc=$?
n=$(listed)
check "a garbage cache: verify as before (listed again, no step), the cache rewritten" sh -c "
        test $rc -eq $vrc && test $n -eq 1 && ! grep -q 'update-initramfs' '$tmp/v4' &&
        head -n 1 '$cache' | grep -qx 'idlecfg-initramfs-cache 1' && grep -qx 'verdict lacks' '$cache'"
head -c 150 "$cache" >"$tmp/cut" && cp "$tmp/cut" "$cache"
take verify >"$tmp/v5" 2>&1; rc=$?
n=$(listed)
check "a cache cut short: listed again, rewritten whole" sh -c "
        test $rc -eq $vrc && test $n -eq 1 && grep -qx 'verdict lacks' '$cache' && ! grep -q 'update-initramfs' '$tmp/v5'"
sed 's/^verdict lacks$/verdict maybe/' "$cache" >"$tmp/bad" && cp "$tmp/bad" "$cache"
take verify >"$tmp/v6" 2>&1; rc=$?
n=$(listed)
check "a cache of the right key with a verdict it does not know: listed again" sh -c "
        test $rc -eq $vrc && test $n -eq 1 && grep -qx 'verdict lacks' '$cache'"
rm -f "$cache"
take refresh --dry-run >/dev/null 2>&1
n=$(listed)
check "refresh --dry-run: lists, writes no cache" sh -c "test $n -eq 1 && test ! -e '$cache'"

# ---- the stamp against this boot ----
touch -r "$root/usr" "$tmp/usr.mtime"
touch "$root/usr"
rc=$(cond)
touch -r "$tmp/usr.mtime" "$root/usr"
check "/usr updated since the stamp: exit 0" sh -c "test $rc -eq 0 && grep -q '/usr changed' '$tmp/cond.out'"
echo $id2 >"$root/etc/machine-id"
rc=$(cond)
check "another machine ID (a cloned image): exit 0" sh -c "test $rc -eq 0 && grep -q 'another machine ID' '$tmp/cond.out'"
echo $id1 >"$root/etc/machine-id"
cp "$stamp" "$tmp/stamp.hw"
sed 's/^HARDWARE=.*/HARDWARE=dmi-pci:0123456789abcdef/' "$tmp/stamp.hw" >"$stamp"
rc=$(cond)
sed '/^HARDWARE=/d' "$tmp/stamp.hw" >"$stamp"
rc2=$(cond)
cp "$tmp/stamp.hw" "$stamp"
check "the same machine ID on other hardware (a disk cloned or moved with it), or a stamp without the key: exit 0" sh -c "
        test $rc -eq 0 && test $rc2 -eq 0 && grep -q 'other hardware' '$tmp/cond.out'"
echo uninitialized >"$root/etc/machine-id"
rc=$(cond)
check "/etc/machine-id uninitialized (a first boot): exit 0" test "$rc" -eq 0
echo $id1 >"$root/etc/machine-id"
cp "$stamp" "$tmp/stamp.good"
sed 's/^MACHINE_ID=.*/MACHINE_ID=xyz/' "$tmp/stamp.good" >"$stamp"
rc=$(cond)
check "a damaged stamp: exit 0, a warning naming the file and line" sh -c "
        test $rc -eq 0 && grep -q 'warning: $stamp:[0-9]*: not a stamp of idlecfg-firstboot.service' '$tmp/cond.out'"
take refresh --image >/dev/null 2>&1; rc=$?
rc2=$(cond)
check "  the next refresh --image writes it again: exit 1 then" sh -c "test $rc -eq 0 && test $rc2 -eq 1 && cmp '$stamp' '$tmp/stamp.good'"
"$IDLECFG" --root "$root" refresh --condition >"$tmp/u1" 2>&1; rc=$?
check "--condition without --image: usage error, exit 2" sh -c "test $rc -eq 2 && grep -q 'goes with refresh --image' '$tmp/u1'"
unit=$top_builddir/src/units/idlecfg-firstboot.service
check "the unit: ExecCondition= refresh --image --condition, before ExecStartPre= (no settle when skipped)" sh -c "
        grep -q '^ExecCondition=/.*/idlecfg refresh --image --condition\$' '$unit' &&
        test \$(grep -n '^ExecCondition=' '$unit' | cut -d: -f1) -lt \$(grep -n '^ExecStartPre=' '$unit' | cut -d: -f1)"
# systemd's own check of the unit, in a root holding it and idlecfg where
# the unit names it: no unknown key, no bad value, no missing command
if command -v systemd-analyze >/dev/null 2>&1; then
        sa=$tmp/sa-root
        bin=$(sed -n 's|^ExecStart=\(/[^ ]*\) .*|\1|p' "$unit")
        mkdir -p "$sa/usr/lib/systemd/system" "$sa${bin%/*}"
        cp "$unit" "$top_builddir/src/units/idlecfg-boot-steps.service" "$sa/usr/lib/systemd/system/"
        # (the boot-steps unit has the default dependencies: the targets they
        # name, this machine's, where it has them)
        for d in /usr/lib/systemd/system /lib/systemd/system; do
                ls "$d"/*.target >/dev/null 2>&1 && cp -n "$d"/*.target "$sa/usr/lib/systemd/system/" 2>/dev/null
        done
        cp "$IDLECFG" "$sa$bin"
        systemd-analyze verify --man=no --root="$sa" /usr/lib/systemd/system/idlecfg-firstboot.service \
                /usr/lib/systemd/system/idlecfg-boot-steps.service >"$tmp/sa.out" 2>&1; rc=$?
        check "systemd-analyze verify of the unit and of idlecfg-boot-steps.service: clean" sh -c "test $rc -eq 0 && ! test -s '$tmp/sa.out'" ||
                diag "$(cat "$tmp/sa.out")"
else
        skip "systemd-analyze verify of the unit" "no systemd-analyze"
fi
# off the boot's critical path (#32): pulled in by sysinit.target, ordered
# before nothing that sysinit.target waits for, following the Before= and
# After= of this machine's systemd units (and systemd-update-done.service's
# Before=sysinit.target: Debian 12 does not ship it, 13 does); no systemd condition (its
# ExecCondition= decides at every boot: ConditionNeedsUpdate= would need the
# order before systemd-update-done.service)
if command -v python3 >/dev/null 2>&1; then
        check "the unit is off sysinit.target's critical path (ordered before first-boot-complete.target and shutdown.target, nothing of sysinit.target's), no Condition*=" \
                python3 - "$unit" /usr/lib/systemd/system /lib/systemd/system <<'EOF'
import os, re, sys
unit, dirs = sys.argv[1], sys.argv[2:]
def deps(path):
    d = {"Before": set(), "After": set(), "WantedBy": set(), "DefaultDependencies": set(), "Condition": set()}
    for line in open(path, errors="replace"):
        m = re.match(r"(\w+)=(.*)", line.strip())
        if not m:
            continue
        k, v = m.groups()
        if k.startswith("Condition"):
            d["Condition"].add(k)
        elif k in d:
            d[k].update(v.split())
    return d
ours = deps(unit)
before = {}                     # unit -> the units it is ordered before
def edge(a, b):
    before.setdefault(a, set()).add(b)
edge("systemd-update-done.service", "sysinit.target")   # systemd's units/systemd-update-done.service
for d in dirs:
    for n in os.listdir(d) if os.path.isdir(d) else []:
        f = os.path.join(d, n)
        if n == "idlecfg-firstboot.service" or not os.path.isfile(f):
            continue
        u = deps(f)
        for b in u["Before"]:
            edge(n, b)
        for a in u["After"]:
            edge(a, n)
for b in ours["Before"]:
    edge("idlecfg-firstboot.service", b)
todo, path = ["idlecfg-firstboot.service"], {"idlecfg-firstboot.service": None}
while todo:
    n = todo.pop()
    for b in before.get(n, ()):
        if b not in path:
            path[b] = n
            todo.append(b)
bad = []
if "sysinit.target" in path:
    chain, n = [], "sysinit.target"
    while n:
        chain.append(n)
        n = path[n]
    bad.append("sysinit.target waits for it: " + " <- ".join(chain))
if ours["DefaultDependencies"] != {"no"}:
    bad.append("DefaultDependencies=no missing (the defaults order it after sysinit.target)")
if "sysinit.target" not in ours["WantedBy"]:
    bad.append("not WantedBy=sysinit.target")
if ours["Before"] != {"first-boot-complete.target", "shutdown.target"}:
    bad.append("Before=%s" % " ".join(sorted(ours["Before"])))
if ours["Condition"]:
    bad.append("systemd conditions: %s" % " ".join(sorted(ours["Condition"])))
print("\n".join(bad) or "ordered before: %s" % " ".join(sorted(ours["Before"])))
sys.exit(1 if bad else 0)
EOF
else
        skip "the unit is off sysinit.target's critical path" "no python3"
fi

# ---- an image made of a configured root, and rollback ----
ic install --image >"$tmp/i2" 2>&1; rc=$?
# (exit 4: the modprobe.d file it removed leaves the initramfs to be made again)
check "install --image over a root with a stamp: the stamp goes (never in an image)" sh -c "
        test $rc -eq 4 && test ! -e '$stamp' && grep -q 'update-initramfs' '$tmp/i2'"
check "  and it warns that /etc/machine-id holds an ID (every machine of the image would share it)" \
        grep -q "warning: $root/etc/machine-id holds a machine ID" "$tmp/i2"
take refresh --image >/dev/null 2>&1
test -f "$stamp" && test -f "$cache" || diag "no stamp or no cache before rollback"
# (the boot entry the test's kernel-install made is not idlecfg's to undo)
rm -rf "$root/boot/loader"
cp -a "$root" "$tmp/configured"
ic rollback >/dev/null 2>&1; rc=$?
rm -rf "$root/run" "$TAKE_LOG"
check "rollback: exit 0, the cache and the stamp gone with the state directory" sh -c "test $rc -eq 0 && test ! -e '$state'"
check "  (the root as it was: the trees compared)" same_as_orig
# a rollback killed at each of its unlinks (the stamp's and the cache's
# among them), then run again: nothing of either left
n=0 bad=0
while [ $n -lt 200 ]; do
        n=$((n + 1))
        rm -rf "$root" && cp -a "$tmp/configured" "$root"
        IDLECFG_FAULT=kill:$n:EIO:unlink ic rollback >"$tmp/k.run" 2>&1
        grep -q 'injected' "$tmp/k.run" || break
        ic rollback >"$tmp/k.rb" 2>&1 || { bad=$((bad + 1)); diag "kill:$n: rollback again failed" "$(cat "$tmp/k.rb")"; }
        rm -rf "$root/run"
        same_as_orig >"$tmp/k.diff" || { bad=$((bad + 1)); diag "kill:$n: the tree differs" "$(head -5 "$tmp/k.diff")"; }
done
check "rollback killed at each of its $((n - 1)) unlinks, then again: the root as it was each time" sh -c "
        test $n -gt 3 && test $bad -eq 0"
done_testing
