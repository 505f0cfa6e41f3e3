#!/bin/sh
# tests/refresh-once.sh: refresh detects once and loads the module index once
# per run, also when it re-installs. An LD_PRELOAD library built here
# (tests/count-calls.c, loaded after umockdev's) counts the calls into
# libudev (udev_enumerate_scan_devices: detect's enumerations of block
# devices; it lists the other devices from /sys itself, src/root/sysfs.c) and
# libkmod (kmod_new, kmod_load_resources) of each run; detect alone gives the
# number of enumerations one detection makes. Made to detect twice, the
# re-installing refreshes fail here (8 enumerations for 4, two indexes).
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}"
# under AddressSanitizer its runtime resolves its interceptors through dlsym(),
# which the counting library wraps: the two spin on each other
ldd "$IDLECFG" 2>/dev/null | grep -q 'libasan' && skip_all "the counting library's dlsym() wrapper cannot run under AddressSanitizer"
plan 8

${CC:-cc} -shared -fPIC -o "$tmp/count-calls.so" "$top_srcdir/tests/count-calls.c" -ldl >"$tmp/cc.log" 2>&1 ||
        { echo "Bail out! cannot build the counting library: $(cat "$tmp/cc.log")"; exit 1; }

root=$tmp/root
mkroot_installed "$TESTS_DATA/machines/intel-laptop" "$root" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$root/var/lib" "$root/run" "$root/etc/kernel"
printf 'root=/dev/nvme0n1p2 ro\n' >"$root/etc/kernel/cmdline"
# the boot entry kernel-install makes from /etc/kernel/cmdline once balanced's
# word is there (and powersave's, the profile the test switches to): the
# boot configuration lacks nothing (no exit 4)
mkdir -p "$root/boot/loader/entries"
printf 'version %s\noptions root=/dev/nvme0n1p2 ro pcie_aspm.policy=default pcie_aspm.policy=powersupersave\n' "$KVER" >"$root/boot/loader/entries/test.conf"

# each step's calls, one line per call, in $out.NAME.calls; the paths of the
# root it read (IDLECFG_TRACE_READS) in $out.NAME.reads; its output in $out.NAME
cat >"$tmp/steps.sh" <<'SH'
step() {
        _n=$1
        shift
        : >"$out.$_n.calls"
        : >"$out.$_n.reads"
        LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$shim" IDLECFG_COUNT_CALLS=$out.$_n.calls IDLECFG_TRACE_READS=$out.$_n.reads \
                "$IDLECFG" --root "$root" --kernel "$KVER" "$@" >"$out.$_n" 2>&1
        echo "rc=$?" >>"$out.$_n"
}
case $1 in
intel)
        step detect detect
        step install install
        step same refresh
        # the profile's bytes change (a new file, as a package upgrade
        # writes it: /usr's files are compared by name and inode): re-installed, the same files
        cp "$root/usr/share/idlecfg/profiles/balanced.profile" "$root/usr/share/idlecfg/profiles/balanced.new" &&
                printf '\n# edited\n' >>"$root/usr/share/idlecfg/profiles/balanced.new" &&
                mv "$root/usr/share/idlecfg/profiles/balanced.new" "$root/usr/share/idlecfg/profiles/balanced.profile"
        step edited refresh
        # another profile chosen by idlecfg.conf: re-installed, other files
        mkdir -p "$root/etc/idlecfg"
        printf '[main]\nprofile = powersave\n' >"$root/etc/idlecfg/idlecfg.conf"
        step conf refresh
        step again refresh
        ;;
amd)
        step detect-amd detect
        step machine refresh
        ;;
esac
SH
out=$tmp/out
for m in intel amd-laptop; do
        case $m in intel) dir=intel-laptop arg=intel ;; *) dir=$m arg=amd ;; esac
        run_machine "$TESTS_DATA/machines/$dir" env IDLECFG="$IDLECFG" root="$root" KVER="$KVER" out="$out" \
                shim="$tmp/count-calls.so" sh "$tmp/steps.sh" $arg >>"$tmp/session.log" 2>&1
done

# calls STEP NAME: how many calls of NAME step STEP made
calls() { grep -cx "$2" "$out.$1.calls"; }
enums=$(calls detect udev_enumerate_scan_devices)
enums_amd=$(calls detect-amd udev_enumerate_scan_devices)
diag "one detection enumerates block devices $enums times through libudev ($enums_amd on the AMD laptop)"
kmods="$(calls install kmod_new) $(calls install kmod_load_resources)"
diag "install, one run that detects and plans, calls kmod_new and kmod_load_resources: $kmods"
# once STEP: one detection's enumerations, and the module index as often as
# install loads it (once at most), exit 0
once() {
        _e=$enums
        [ "$1" = machine ] && _e=$enums_amd
        _got="enumerations $(calls "$1" udev_enumerate_scan_devices), module index $(calls "$1" kmod_new) $(calls "$1" kmod_load_resources)"
        [ "$_got" = "enumerations $_e, module index $kmods" ] ||
                { echo "$1: $_got; once is: enumerations $_e, module index $kmods"; return 1; }
        grep -qx 'rc=0' "$out.$1"
}
none() {
        _got="$(calls "$1" udev_enumerate_scan_devices) $(calls "$1" kmod_new) $(calls "$1" kmod_load_resources)"
        [ "$_got" = "0 0 0" ] || { echo "$1: enumerations, kmod_new, kmod_load_resources: $_got"; return 1; }
        grep -qx 'rc=0' "$out.$1"
}
seen() { test "$enums" -gt 0 && test "$enums_amd" -gt 0 && test "$kmods" = "1 1"; }
reinstalled() { once "$1" && grep -q "$2" "$out.$1" && grep -q '^Installing profile' "$out.$1"; }

check "the library sees the calls: detect enumerates block devices, install loads the module index once" seen
check "refresh, nothing changed: no detection, no module index" none same
check "refresh after the profile changed: re-installs with one detection and one module index" \
        reinstalled edited 'profiles: files changed'
check "refresh after idlecfg.conf chose another profile: the same, and other files written" sh -c "
        grep -q 'profiles: files changed' '$out.conf' && grep -q '^  updated ' '$out.conf'"
check "... with one detection and one module index" once conf
check "then refresh is quiet again: no detection, no module index" none again
check "refresh on another machine (the device set changed): one detection, one module index" \
        reinstalled machine '^  fingerprint: '

# profile selection: it opens idlecfg.conf (absent here until step conf) and
# the chosen profile, and the plan opens that profile again to load it; the
# digests only stat, list and read them. A refresh that re-installs opens each
# as often as install does, which selects once.
opens() { grep -cx "open $2" "$out.$1.reads"; }
selections() {
        for f in /etc/idlecfg/idlecfg.conf /usr/share/idlecfg/profiles/balanced.profile; do
                [ "$(opens "$1" "$f")" = "$(opens install "$f")" ] ||
                        { echo "$1 opens $f $(opens "$1" "$f") times, install $(opens install "$f")"; return 1; }
        done
        test "$(opens install /etc/idlecfg/idlecfg.conf)" -gt 0
}
check "refresh that re-installs selects the profile once: it opens idlecfg.conf and the profile as often as install ($(opens install /etc/idlecfg/idlecfg.conf 2>/dev/null) and $(opens install /usr/share/idlecfg/profiles/balanced.profile 2>/dev/null) times)" selections edited
done_testing
