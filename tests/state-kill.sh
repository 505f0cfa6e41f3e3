#!/bin/sh
# tests/state-kill.sh: every change of state is a transaction. On a systemd-boot
# root (/etc/kernel/cmdline), a GRUB root and a root with NetworkManager and a
# systemd 99-default.link: install --profile balanced, then a re-install with
# --profile powersave or a refresh to it killed (SIGKILL) at each of its fault
# points. After a killed refresh (and on the systemd-boot root after a killed
# re-install too), rollback alone restores the root before the first install
# exactly, without --force; after a killed re-install, install runs again,
# finds no file of its own taken for the administrator's, leaves no temporary
# file, and rollback is exact after it too. (refresh is install_run() behind
# its look at the inputs: the orders are covered on each root in less time.)
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}"
PATH=$PATH:/sbin:/usr/sbin
plan 14
# the sweeps run idlecfg some 1,500 times, each write fsynced: on a tmpfs
# (/dev/shm) when there is one, where fsync costs nothing. Reached through a
# link in $tmp: umockdev redirects paths that start with /dev/.
work=$tmp
if [ -d /dev/shm ] && [ -w /dev/shm ] && w=$(mktemp -d /dev/shm/idlecfg-state-kill.XXXXXX 2>/dev/null); then
        trap 'rm -rf "$tmp" "$w"' EXIT
        ln -s "$w" "$tmp/shm" && work=$tmp/shm
fi

# the sweep, inside one umockdev session: MODE ROOT ORIG OUT
cat >"$tmp/sweep.sh" <<'SH'
mode=$1 root=$2 orig=$3 out=$4
ic() { "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }
# what install and rollback may change: etc, var, boot, usr/lib/systemd (the
# power-source switch's system-sleep hook) and the top directory (lib and the
# rest of usr are the fixture trees, only read); every path, type, mode, content
dirs() { (cd "$1" && for d in etc var boot usr/lib/systemd; do [ ! -e "$d" ] || echo "$d"; done); }
tree() {
        (cd "$1" && find . -maxdepth 1 -printf '%p %y %m\n' | LC_ALL=C sort &&
                find $(dirs .) ! -path ./run/idlecfg.lock -printf '%p %y %m %l\n' | LC_ALL=C sort &&
                find $(dirs .) -type f -exec sha256sum {} + | LC_ALL=C sort -k2)
}
# copy the state dirs of $1 to $2
savestate() { for d in $(dirs "$1"); do mkdir -p "$2/$(dirname "$d")" && cp -a "$1/$d" "$2/$d" || return 1; done; }
# put the state dirs of $1 into $root
restore() { rm -rf "$root/etc" "$root/var" "$root/boot" "$root/usr/lib/systemd" "$root/run/idlecfg" && savestate "$1" "$root"; }
temps() { find "$root" -name '.#*' | grep . && return 1; return 0; }
# the administrator's word after install (undo): rollback keeps it
admin() { sed -i 's/$/ mitigations=off/' "$1/etc/kernel/cmdline"; }
# bls: grubby --args / --remove-args=WORDS as grubby does them, on every entry's options
entries() { find "$root/boot/loader/entries" -name '*.conf'; }
grubby_args() { for e in $(entries); do sed -i "s|^options .*|& $1|" "$e"; done; }
grubby_remove() {
        for w in $1; do for e in $(entries); do sed -i "/^options /s/ $w\( \|\$\)/\1/" "$e"; done; done
}
# the words of the last grubby --remove-args= step named in FILE (quotes off)
removed() { sed -n "s/.*grubby --update-kernel=ALL --remove-args=//p" "$1" | tail -n 1 | tr -d "'\""; }
PS=pcie_aspm.policy=powersupersave
if [ $mode = undo ]; then
        rm -rf "$out.want" && cp -a "$orig" "$out.want" && admin "$out.want" && tree "$out.want" >"$out.orig"
else
        tree "$orig" >"$out.orig"
fi
rm -rf "$root" && cp -a "$orig" "$root"
# install did its part; 4: the boot configuration still lacks a step (kernel-install,
# update-grub, the words of /etc/idlecfg/cmdline), which no sweep runs
# (image: the killed run is the first install)
# (bls: powersave, its grubby step run; the killed run switches to balanced)
first=balanced
[ $mode != bls ] || first=powersave
[ $mode = image ] || ic --profile $first install >"$out.first" 2>&1 || [ $? -eq 4 ] ||
        { echo "first install failed"; cat "$out.first"; echo "0 1 0"; exit 0; }
[ $mode != bls ] || grubby_args "$(cat "$root/etc/idlecfg/cmdline")"
[ $mode != undo ] || admin "$root"
rm -rf "$out.installed" && mkdir -p "$out.installed" && savestate "$root" "$out.installed"
n=0 bad=0 hit=0
while [ $n -lt 400 ]; do
        n=$((n + 1))
        case $mode in
        reinstall) thens=install ;;
        reinstall-both) thens="rollback install" ;;
        refresh | restat | undo | image) thens=rollback ;;
        bls) thens="rollback install" ;;
        esac
        for then in $thens; do
                restore "$out.installed"
                case $mode in
                reinstall*) IDLECFG_FAULT=kill:$n ic --profile powersave install >"$out.run" 2>&1 ;;
                refresh) IDLECFG_FAULT=kill:$n ic --profile powersave refresh >"$out.run" 2>&1 ;;
                # only stat data changed: refresh records it (its one write)
                restat) touch "$root/lib/modules/$KVER/modules.alias"
                        IDLECFG_FAULT=kill:$n ic --profile balanced refresh >"$out.run" 2>&1 ;;
                # the word-by-word undo of a command line the administrator added to
                undo) IDLECFG_FAULT=kill:$n ic rollback >"$out.run" 2>&1 ;;
                # a first install --image into a root without /var
                image) IDLECFG_FAULT=kill:$n ic --profile balanced install --image >"$out.run" 2>&1 ;;
                # the profile switch on GRUB with BLS entries (dropped-words)
                bls) IDLECFG_FAULT=kill:$n ic --profile balanced install >"$out.run" 2>&1 ;;
                esac
                grep -q 'injected' "$out.run" || break 2
                [ $then = "${thens%% *}" ] && hit=$((hit + 1))
                if [ $mode = restat ]; then
                        ic --profile balanced refresh >"$out.again" 2>&1
                        rc=$?
                        if { [ $rc -ne 0 ] && [ $rc -ne 4 ]; } || grep -q 'Changed since\|cut short' "$out.again"; then
                                bad=$((bad + 1)); echo "kill:$n: the next refresh is not quiet:"; cat "$out.again"
                        fi
                        temps || { bad=$((bad + 1)); echo "kill:$n: temporary files after the next refresh"; }
                fi
                if [ $then = install ]; then
                        ic --profile powersave install >"$out.again" 2>&1 || [ $? -eq 4 ] ||
                                { bad=$((bad + 1)); echo "kill:$n: install again failed:"; cat "$out.again"; }
                        if grep -q 'idlecfg-new\|changed since\|deleted since\|left alone' "$out.again"; then
                                bad=$((bad + 1)); echo "kill:$n: install again took its own file for the administrator's:"
                                cat "$out.again"
                        fi
                        temps || { bad=$((bad + 1)); echo "kill:$n: temporary files after install again"; }
                fi
                if [ $mode = bls ]; then
                        : >"$out.again"
                        if [ $then = install ]; then
                                ic --profile balanced install >"$out.again" 2>&1; rc=$?
                                { [ $rc -eq 0 ] || [ $rc -eq 4 ]; } && ! grep -q 'idlecfg-new\|changed since\|deleted since\|left alone' "$out.again" ||
                                        { bad=$((bad + 1)); echo "kill:$n: install again (exit $rc):"; cat "$out.again"; }
                                grep -q "^dropped-words .*$PS" "$root/var/lib/idlecfg/manifest" && removed "$out.again" | grep -qw "$PS" ||
                                        { bad=$((bad + 1)); echo "kill:$n: install again: $PS not kept in dropped-words or not named:"; cat "$out.again"; }
                        fi
                        ic rollback >"$out.rb" 2>&1; rc=$?
                        [ $rc -eq 0 ] || [ $rc -eq 4 ] || { bad=$((bad + 1)); echo "kill:$n then $then: rollback failed:"; cat "$out.rb"; }
                        removed "$out.rb" | grep -qw "$PS" ||
                                { bad=$((bad + 1)); echo "kill:$n then $then: rollback does not name $PS:"; cat "$out.rb"; }
                        ! grep -q "remove-args=.*$ADMIN" "$out.again" "$out.rb" ||
                                { bad=$((bad + 1)); echo "kill:$n then $then: the administrator's $ADMIN named for removal"; }
                        # the step done, then rollback finds nothing of it left
                        grubby_remove "$(removed "$out.rb")"
                        ic rollback >"$out.rb2" 2>&1 ||
                                { bad=$((bad + 1)); echo "kill:$n then $then: rollback after the step:"; cat "$out.rb2"; }
                else
                        ic rollback >"$out.rb" 2>&1 || { bad=$((bad + 1)); echo "kill:$n then $then: rollback failed:"; cat "$out.rb"; }
                fi
                temps || { bad=$((bad + 1)); echo "kill:$n then $then: temporary files after rollback"; }
                [ ! -e "$root/run/idlecfg" ] || { bad=$((bad + 1)); echo "kill:$n then $then: $(find "$root/run/idlecfg") after rollback"; }
                tree "$root" | diff "$out.orig" - >"$out.diff" ||
                        { bad=$((bad + 1)); echo "kill:$n then $then: the tree differs:"; head -20 "$out.diff"; }
        done
done
# the fault points a full run has (kill:N beyond them injects nothing)
echo "$hit $bad $n"
SH
export KVER

# ---- roots of the desktop recording: systemd-boot, GRUB ----
m=$TESTS_DATA/machines/desktop-sata
sdboot=$work/sdboot-orig
mkroot_installed "$m" "$sdboot" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$sdboot/var/lib" "$sdboot/run" "$sdboot/etc/kernel" "$sdboot/boot"
printf 'root=UUID=0b5b5f4e-5d0e-4e4b-9d62-3f9d2b2a5c11 ro quiet\n' >"$sdboot/etc/kernel/cmdline"
chmod 0600 "$sdboot/etc/kernel/cmdline"
grub=$work/grub-orig
mkroot_installed "$m" "$grub" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$grub/var/lib" "$grub/run" "$grub/etc/default" "$grub/boot/grub"
printf 'GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT="quiet"\nGRUB_CMDLINE_LINUX=""\n' >"$grub/etc/default/grub"
# ---- the network recording: NetworkManager and systemd-networkd's 99-default.link ----
net=$work/net-orig
mkroot_installed /dev/null "$net" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$net/var/lib" "$net/run" "$net/usr/sbin" "$net/etc/NetworkManager/conf.d" \
        "$net/usr/lib/systemd/network" "$net/usr/lib/x86_64-linux-gnu/systemd"
: >"$net/usr/sbin/NetworkManager"
chmod 755 "$net/usr/sbin/NetworkManager"
printf '[connection]\nwifi.powersave = 3\n' >"$net/etc/NetworkManager/conf.d/default-wifi-powersave-on.conf"
printf '[Match]\nOriginalName=*\n\n[Link]\nNamePolicy=keep kernel database onboard slot path\n' \
        >"$net/usr/lib/systemd/network/99-default.link"
: >"$net/usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared-252.so"

start=$(date +%s)
for kind in ${SK_KINDS:-sdboot grub net}; do
        case $kind in
        net) rec=$TESTS_DATA/net/wifi-ether.umockdev ;;
        *) rec=$m ;;
        esac
        # on the systemd-boot root also rollback right after each killed re-install
        re=reinstall
        [ $kind = sdboot ] && re=reinstall-both
        run_machine "$rec" sh -c '
                sh "$1" "$5" "$2" "$3" "$4.re" >"$4.re.log" 2>&1
                sh "$1" refresh "$2" "$3" "$4.rf" >"$4.rf.log" 2>&1
                [ "$6" != sdboot ] || sh "$1" restat "$2" "$3" "$4.rs" >"$4.rs.log" 2>&1' sh \
                "$tmp/sweep.sh" "$work/$kind-root" "$work/$kind-orig" "$work/$kind" "$re" "$kind"
        for mode in re rf; do
                cp "$work/$kind.$mode.log" "$tmp/$kind.$mode.log"
                set -- $(tail -n 1 "$tmp/$kind.$mode.log")
                what=$([ $mode = re ] && echo "a re-install (balanced, then powersave)" || echo "a refresh to powersave")
                then=rollback
                [ $mode = re ] && then="install again, then rollback"
                [ $mode = re ] && [ $kind = sdboot ] && then="rollback; or install again, then rollback"
                check "$kind root: $what killed at each of its ${1:-?} fault points; $then: the root before the first install exactly" \
                        sh -c "test '${2:-x}' = 0 && test ${1:-0} -gt 20 && test ${3:-0} -lt 400"
                [ "${2:-x}" = 0 ] || diag "$(head -40 "$tmp/$kind.$mode.log")"
        done
done
# the quiet refresh's one write: the stat data of touched files (sdboot root)
if [ -f "$work/sdboot.rs.log" ]; then
        cp "$work/sdboot.rs.log" "$tmp/sdboot.rs.log"
        set -- $(tail -n 1 "$tmp/sdboot.rs.log")
        check "sdboot root: a refresh that records touched files' stat data killed at each of its ${1:-?} fault points; the next refresh quiet, then rollback: the root before the first install exactly" \
                sh -c "test '${2:-x}' = 0 && test ${1:-0} -ge 3 && test ${3:-0} -lt 400"
        [ "${2:-x}" = 0 ] || diag "$(head -40 "$tmp/sdboot.rs.log")"
else
        skip "sdboot root: the sweep of the refresh that records stat data (SK_KINDS without sdboot)"
fi
# ---- the new write paths of a rollback and of a first install ----
# the word-by-word undo (an /etc/kernel/cmdline the administrator added a word
# to) killed at each point, then rollback: their word kept, idlecfg's gone,
# exit 0; install --image into a root without /var killed at each point
# (before its manifest too), then rollback: no /var left behind
img=$work/img-orig
rm -rf "$img" && cp -a "$sdboot" "$img" && rm -rf "$img/var"
# GRUB with BLS entries (grubby), an entry holding the administrator's own
# words: the profile switch powersave -> balanced killed at each point, then
# rollback, or install again then rollback: exit 0 or 4, the old profile's
# word named for grubby --remove-args (kept in dropped-words), theirs never;
# the step done as grubby does it, rollback again: the root as before
bls=$work/bls-orig
mkroot_installed "$m" "$bls" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$bls/var/lib" "$bls/run" "$bls/etc/default" "$bls/usr/sbin" "$bls/boot/loader/entries"
printf 'GRUB_TIMEOUT=5\nGRUB_ENABLE_BLSCFG=true\n' >"$bls/etc/default/grub"
: >"$bls/usr/sbin/grub2-mkconfig"
printf 'CONFIG_PCIEASPM=y\nCONFIG_PCIEASPM_DEFAULT=y\n' >"$bls/boot/config-$KVER"
ADMIN=nmi_watchdog=0
export ADMIN
printf 'title Fedora\nversion %s\nlinux /vmlinuz-%s\noptions root=UUID=1 ro quiet %s\n' "$KVER" "$KVER" "$ADMIN" \
        >"$bls/boot/loader/entries/abc-$KVER.conf"
for kind in ${SK_NEW:-undo image bls}; do
        case $kind in undo) o=$sdboot ;; image) o=$img ;; bls) o=$bls ;; esac
        run_machine "$m" sh "$tmp/sweep.sh" $kind "$work/$kind-root" "$o" "$work/$kind" >"$tmp/$kind.log" 2>&1
        set -- $(tail -n 1 "$tmp/$kind.log")
        case $kind in
        undo) what="a rollback taking idlecfg's words out of an edited /etc/kernel/cmdline"
              want="the root as before with the administrator's word" ;;
        image) what="a first install --image into a root without /var"; want="the root as before, no /var" ;;
        bls) what="a profile switch (powersave, its grubby step run, then balanced) on GRUB with BLS entries"
             want="the old profile's word named for removal, the administrator's never; the step done: the root as before" ;;
        esac
        check "$what killed at each of its ${1:-?} fault points, then rollback: exit 0, $want" \
                sh -c "test '${2:-x}' = 0 && test ${1:-0} -gt 10 && test ${3:-0} -lt 400"
        [ "${2:-x}" = 0 ] || diag "$(head -40 "$tmp/$kind.log")"
        diag "$kind: ${1:-?} fault points, ${2:-?} bad"
done
# what the sweeps rewrote: on each root kind the files a profile change touches
check "sdboot root: /etc/kernel/cmdline is one of the files the sweeps rewrote" \
        grep -q '^file /etc/kernel/cmdline ' "$work/sdboot.re.installed/var/lib/idlecfg/manifest"
check "grub root: the command line went to the GRUB snippet" \
        grep -q 'etc/default/grub.d/idlecfg.cfg' "$work/grub.re.installed/var/lib/idlecfg/manifest"
check "net root: NetworkManager conf.d and sysctl.d are among the files" \
        sh -c "grep -q 'NetworkManager/conf.d/idlecfg.conf' '$work/net.re.installed/var/lib/idlecfg/manifest' &&
               grep -q 'sysctl.d/90-idlecfg.conf' '$work/net.re.installed/var/lib/idlecfg/manifest'"
diag "sweeps: $(($(date +%s) - start)) s"

# ---- leftovers of an older kind: a killed write's temporary file goes at the next run ----
r=$tmp/left
rm -rf "$r" && cp -a "$sdboot" "$r"
run_machine "$m" sh -c '
        "$IDLECFG" --root "$1" --kernel "$KVER" --profile balanced install >/dev/null 2>&1
        printf x >"$1/etc/modprobe.d/.#idlecfg.conf.AbCdEf"
        printf x >"$1/var/lib/idlecfg/.#manifest.AbCdEf"
        "$IDLECFG" --root "$1" --kernel "$KVER" --profile balanced install >/dev/null 2>&1' sh "$r"
check "temporary files a killed run left are removed by the next install" \
        sh -c "test -z \"\$(find '$r' -name '.#*')\""
done_testing
