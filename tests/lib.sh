# tests/lib.sh: TAP helpers for the shell tests (sourced)
# Environment (set by the Makefile): IDLECFG, top_srcdir, top_builddir.
set -u
: "${IDLECFG:?IDLECFG must point at the built binary}"
: "${top_srcdir:?}"
export LC_ALL=C LANGUAGE=
TESTS_DATA=$top_srcdir/tests/data
FIXTURES=${IDLECFG_FIXTURES:-$top_srcdir/../shared/fixtures}
KVER=6.1.0-18-amd64

_n=0
_failed=0

# make check is the suite a package build affords, so it samples the
# exhaustive loops: a kill sweep visits every SWEEP_STEP-th fault point (1,
# 1+STEP, 1+2*STEP, ... until one is not reached) and a loop that repeats one
# thing runs a share of its rounds. IDLECFG_TEST_SWEEPS=full (.ci/run sets
# it; or "make check IDLECFG_TEST_SWEEPS=full") visits every one.
case ${IDLECFG_TEST_SWEEPS:-} in
full) SWEEP_STEP=1 SWEEP_NOTE= ;;
'') SWEEP_STEP=3 SWEEP_NOTE=" [sampled: the points counted are every 3rd; IDLECFG_TEST_SWEEPS=full visits each]" ;;
*) echo "Bail out! IDLECFG_TEST_SWEEPS=$IDLECFG_TEST_SWEEPS: full, or unset for make check's sample"; exit 1 ;;
esac
export SWEEP_STEP
# sweep_share N: the part of N points or rounds that a sweep visits
sweep_share() { echo $(($1 / SWEEP_STEP)); }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/idlecfg-test.XXXXXX")
# the testbeds tests/run-machine keeps for commands that only read /sys: one
# per recording for the whole test, stopped (and waited for) at its end
RUN_MACHINE_SESSIONS=$tmp/.machines RUN_MACHINE_OWNER=$$
export RUN_MACHINE_SESSIONS RUN_MACHINE_OWNER
stop_machines() {
        for _s in "$RUN_MACHINE_SESSIONS"/*; do
                [ -f "$_s/pid" ] && : >"$_s/stop"
        done
        for _s in "$RUN_MACHINE_SESSIONS"/*; do
                [ -f "$_s/pid" ] || continue
                _i=0
                while kill -0 "$(cat "$_s/pid")" 2>/dev/null && [ $_i -lt 200 ]; do
                        sleep 0.05
                        _i=$((_i + 1))
                done
        done
}
trap 'stop_machines; rm -rf "$tmp"' EXIT

plan() { echo "1..$1"; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
ok() { _n=$((_n + 1)); echo "ok $_n - $*"; }
not_ok() { _n=$((_n + 1)); _failed=$((_failed + 1)); _last_bad=$_n; echo "not ok $_n - $*"; }
# skip DESCRIPTION [REASON]: the reason goes after "# SKIP", where the
# harness shows it on the SKIP line
skip() { _n=$((_n + 1)); echo "ok $_n - $1 # SKIP${2:+ $2}"; }
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
# check DESCRIPTION CMD...: one test point from a command's exit status
check() {
        _d=$1
        shift
        if "$@" >"$tmp/check.out" 2>&1; then ok "$_d"; else not_ok "$_d"; diag "$(cat "$tmp/check.out")"; fi
}
# last_failed: the test point just before failed (check returns 0 either
# way): check DESC CMD...; last_failed && diag MORE...
last_failed() { [ "${_last_bad:-0}" -eq "$_n" ]; }
done_testing() { [ "$_failed" -eq 0 ]; exit $?; }

need() {
        for _c in "$@"; do
                command -v "$_c" >/dev/null 2>&1 || PATH=$PATH:/sbin:/usr/sbin command -v "$_c" >/dev/null 2>&1 ||
                        skip_all "$_c not installed"
        done
}

# The suite runs as distributions build it: as an ordinary user (buildds,
# sbuild), with HOME unset or a directory that does not exist, without
# network, in the source directory. A point that needs root or a mount
# namespace asks these first and skips with the reason they leave in $why.
# is_root: the tests run as root
is_root() {
        [ "$(id -u)" -eq 0 ] || { why="not root"; return 1; }
}
# mount_ns: $us is a command that runs one in a private mount namespace in
# which it may mount (tmpfs, bind mounts): `unshare -m` as root, else `unshare
# -rm` (a user namespace, root in it) where the kernel permits that; 1 with
# the reason in $why when neither can mount. IDLECFG_TEST_NO_NS=1 says
# neither can (the skips a buildd without namespaces takes).
mount_ns() {
        us=
        [ "${IDLECFG_TEST_NO_NS:-0}" != 1 ] || { why="no mount namespace (IDLECFG_TEST_NO_NS=1)"; return 1; }
        command -v unshare >/dev/null 2>&1 || { why="no unshare (util-linux)"; return 1; }
        mkdir -p "$tmp/.mount-ns"
        for us in "unshare -m" "unshare -rm"; do
                $us sh -c 'mount -t tmpfs idlecfg-probe "$1"' sh "$tmp/.mount-ns" 2>/dev/null && return 0
        done
        us= why="no private mount namespace to mount in (unshare -m needs root, unshare -rm a kernel that lets users make namespaces)"
        return 1
}
# root_ns: as mount_ns, as the real root (chroot, mknod, bind mounts over
# the host's files, tmpfs over /proc/sys): `unshare -m` only
root_ns() {
        is_root || { why="not root (needs unshare -m as root)"; return 1; }
        mount_ns || return 1
        [ "$us" = "unshare -m" ] || { why="unshare -m cannot mount here"; return 1; }
}

# compare output with a golden file; IDLECFG_UPDATE_GOLDEN=1 rewrites it
golden() {
        _desc=$1 _expected=$2 _actual=$3
        if [ "${IDLECFG_UPDATE_GOLDEN:-0}" = 1 ]; then
                mkdir -p "$(dirname "$_expected")"
                cp "$_actual" "$_expected"
        fi
        if [ ! -f "$_expected" ]; then
                not_ok "$_desc (no golden file $_expected; run with IDLECFG_UPDATE_GOLDEN=1)"
        elif diff -u "$_expected" "$_actual" >"$tmp/golden.diff"; then
                ok "$_desc"
        else
                not_ok "$_desc"
                diag "$(head -n 80 "$tmp/golden.diff")"
        fi
}

# module tree of the fixture kernel, built once per test into $1
mkmodroot() {
        sh "$top_srcdir/tests/mkmodroot.sh" "$TESTS_DATA/modroot.spec" "$1" "$KVER" >"$tmp/mkmodroot.log" 2>&1 || {
                cat "$tmp/mkmodroot.log" >&2
                return 1
        }
}

# a target root for a recorded machine: its etc/ plus the fixture module tree
mkroot() {
        _machine=$1 _root=$2
        mkdir -p "$_root"
        if [ -d "$_machine/root" ]; then
                cp -R "$_machine/root/." "$_root/"
        fi
        if [ -f "$_machine/links" ]; then
                grep -v '^#' "$_machine/links" | while read -r _path _target; do
                        mkdir -p "$_root$(dirname "$_path")"
                        ln -sf "$_target" "$_root$_path"
                done
        fi
        mkmodroot "$_root"
}

# systemd's autosuspend lists (60-autosuspend*.hwdb) for installed test roots:
# the shared fixtures' copy (udev 252, the one the golden plans were made
# with) when there is one, else the files of this machine's udev package; empty
# when neither exists. AUTOSUSPEND_HWDB_GOLDEN=1 when they are byte for byte
# those of udev 252 (tests/data/autosuspend-hwdb.sha256): then golden plans
# compare exactly, else golden_plan leaves out what systemd's lists decide.
AUTOSUSPEND_HWDB=
for _d in "$FIXTURES/hwdb" /usr/lib/udev/hwdb.d /lib/udev/hwdb.d; do
        if [ -f "$_d/60-autosuspend.hwdb" ]; then
                AUTOSUSPEND_HWDB=$_d
                break
        fi
done
AUTOSUSPEND_HWDB_GOLDEN=0
if [ -n "$AUTOSUSPEND_HWDB" ] &&
        [ "$(cd "$AUTOSUSPEND_HWDB" && ls 60-autosuspend*.hwdb | LC_ALL=C sort | tr '\n' ' ')" = \
          "$(awk '!/^#/ { print $2 }' "$TESTS_DATA/autosuspend-hwdb.sha256" | LC_ALL=C sort | tr '\n' ' ')" ] &&
        grep -v '^#' "$TESTS_DATA/autosuspend-hwdb.sha256" | (cd "$AUTOSUSPEND_HWDB" && sha256sum -c --quiet -) >/dev/null 2>&1; then
        AUTOSUSPEND_HWDB_GOLDEN=1
fi

# an installed target: mkroot plus idlecfg's profiles and hwdb, and systemd's
# autosuspend lists from $AUTOSUSPEND_HWDB
mkroot_installed() {
        mkroot "$1" "$2" || return 1
        mkdir -p "$2/usr/share/idlecfg/profiles" "$2/usr/lib/udev/hwdb.d"
        cp "$top_srcdir"/profiles/*.profile "$2/usr/share/idlecfg/profiles/"
        cp "$top_srcdir"/hwdb/*.hwdb "$2/usr/lib/udev/hwdb.d/" 2>/dev/null || true
        if [ -n "$AUTOSUSPEND_HWDB" ]; then
                cp "$AUTOSUSPEND_HWDB"/60-autosuspend*.hwdb "$2/usr/lib/udev/hwdb.d/"
        fi
}

# golden_plan DESC EXPECTED ACTUAL: a plan JSON against its golden file. With
# udev 252's autosuspend lists, exactly (golden); with other ones (another
# udev version, or none), every setting except those of the devices that
# systemd's lists decide in either plan: their entries and line numbers
# differ between versions. The test point says how many were left out (and
# golden_left holds the number). IDLECFG_UPDATE_GOLDEN=1 rewrites golden plans
# only with udev 252's lists.
golden_plan() {
        if [ "$AUTOSUSPEND_HWDB_GOLDEN" = 1 ]; then
                golden "$@"
                return
        fi
        _desc=$1 _expected=$2 _actual=$3
        if [ ! -f "$_expected" ]; then
                not_ok "$_desc (no golden file $_expected)"
                return
        fi
        if ! _left=$(python3 - "$_expected" "$_actual" "$tmp/golden.a" "$tmp/golden.b" <<'PY'
import json, sys
SYSTEMD = "/udev/hwdb.d/60-autosuspend"
a, b = (json.load(open(f)) for f in sys.argv[1:3])
devices = {s["device"] for d in (a, b) for s in d["settings"] if SYSTEMD in (s.get("reason") or "")}
left = 0
for d, out in ((a, sys.argv[3]), (b, sys.argv[4])):
    n = len(d["settings"])
    d["settings"] = [s for s in d["settings"] if s["device"] not in devices]
    left = max(left, n - len(d["settings"]))
    with open(out, "w") as f:
        json.dump(d, f, indent=2, sort_keys=True)
        f.write("\n")
print(left)
PY
        ); then
                not_ok "$_desc (not JSON)"
                return
        fi
        golden_left=$_left
        _why="systemd's autosuspend lists here are ${AUTOSUSPEND_HWDB:-absent}${AUTOSUSPEND_HWDB:+/60-autosuspend*.hwdb}, not udev 252's"
        if [ "${IDLECFG_UPDATE_GOLDEN:-0}" = 1 ]; then
                _why="$_why; not rewritten"
        fi
        if diff -u "$tmp/golden.a" "$tmp/golden.b" >"$tmp/golden.diff"; then
                ok "$_desc, except $_left settings of devices systemd's lists decide ($_why)"
        else
                not_ok "$_desc, except $_left settings of devices systemd's lists decide ($_why)"
                diag "$(head -n 80 "$tmp/golden.diff")"
        fi
}

# replace what differs between runs: the temporary root, the version; and
# the line numbers of the shipped profiles (profiles/*.profile) in reasons, so
# that a section added to a profile does not rewrite every golden plan (the
# family tests check the lines of their own profiles)
normalize() {
        sed -e "s|$1|@ROOT@|g" -e 's|"version": "[^"]*"|"version": "@VERSION@"|' \
                -e 's|\(/usr/share/idlecfg/profiles/[a-z]*\.profile\):[0-9][0-9]*|\1:@LINE@|g'
}

. "$top_srcdir/tests/snap.sh"

run_machine() {
        "$top_srcdir/tests/run-machine" "$@"
}

# on_tty CMD [ARGS...]: CMD with stdout and stderr on a terminal (script(1)'s
# pseudo-terminal), its output on stdout without the terminal's carriage
# returns, and CMD's exit status: idlecfg wraps its text on a terminal only
# (text_width(), src/cli/run.c)
on_tty() {
        _cmd=
        for _a in "$@"; do
                _cmd="$_cmd '$(printf '%s' "$_a" | sed "s/'/'\\\\''/g")'"
        done
        script -qec "$_cmd" /dev/null </dev/null >"$tmp/on_tty.out"
        _rc=$?
        tr -d '\r' <"$tmp/on_tty.out"
        return $_rc
}

# hwdb answers, for scripts that define q KEY (their systemd-hwdb query):
# has KEY LINE...: the answer for KEY contains each LINE
has() {
        _k=$1
        shift
        q "$_k" >"$tmp/answer"
        for _l in "$@"; do
                grep -qxF -- "$_l" "$tmp/answer" || { printf '%s: no %s in:\n' "$_k" "$_l"; cat "$tmp/answer"; return 1; }
        done
}
# lacks KEY PROPERTY: the answer for KEY does not set PROPERTY
lacks() {
        q "$1" >"$tmp/answer"
        if grep -q "^$2=" "$tmp/answer"; then printf '%s: unexpected %s in:\n' "$1" "$2"; cat "$tmp/answer"; return 1; fi
}

# take_logger FILE: a program for IDLECFG_TEST_TAKE_EFFECT: each command idlecfg
# would run goes to $TAKE_LOG instead (a step for a root that is not "/" is
# "chroot ROOT COMMAND..."); lsinitramfs prints $TAKE_LIST (fails without
# it); kernel-install makes the boot entry of /etc/kernel/cmdline in $TAKE_ROOT
take_logger() {
        cat >"$1" <<'SH'
#!/bin/sh
echo "$*" >>"$TAKE_LOG"
[ "$1" = chroot ] && shift 2
case $1 in
*/lsinitramfs) exec cat "$TAKE_LIST" ;;
kernel-install)
        mkdir -p "$TAKE_ROOT/boot/loader/entries" &&
                printf 'title test\nversion %s\noptions %s\n' "$3" "$(cat "$TAKE_ROOT/etc/kernel/cmdline")" \
                        >"$TAKE_ROOT/boot/loader/entries/test-$3.conf" ;;
esac
SH
        chmod +x "$1"
}

# cached_root DIR SUITE NAME INCLUDE TAG: the root that debootstrap
# --variant=minbase makes of SUITE with INCLUDE, unpacked into DIR, from a
# tarball cached in $IDLECFG_TEST_ROOTS (default /var/cache/idlecfg-test-roots)
# as NAME.tar.zst, keyed by the debootstrap call (NAME.key, with TAG: the
# user); made once (debootstrap from $IDLECFG_TEST_MIRROR) when the cache has
# none. 1 with the reason in $why when it cannot be had (not root, no cache
# and no debootstrap or network).
cached_root() {
        _dr_cache=${IDLECFG_TEST_ROOTS:-/var/cache/idlecfg-test-roots}
        _dr_suite=$2 _dr_name=$3 _dr_include=$4
        _dr_key="debootstrap --variant=minbase --include=$_dr_include $_dr_suite ($5 1)"
        _dr_mirror=${IDLECFG_TEST_MIRROR:-http://deb.debian.org/debian}
        is_root || { why="not root (chroot, dpkg in the root)"; return 1; }
        command -v zstd >/dev/null || { why="no zstd for the cached root"; return 1; }
        mkdir -p "$_dr_cache" 2>/dev/null || { why="cannot make $_dr_cache"; return 1; }
        (
                flock 9
                [ -f "$_dr_cache/$_dr_name.tar.zst" ] && [ "$(cat "$_dr_cache/$_dr_name.key" 2>/dev/null)" = "$_dr_key" ] &&
                        exit 0
                command -v debootstrap >/dev/null || exit 2
                s=$(mktemp -d "$_dr_cache/build.XXXXXX")
                debootstrap --variant=minbase --include="$_dr_include" "$_dr_suite" "$s/root" "$_dr_mirror" >"$s/log" 2>&1 &&
                        rm -f "$s"/root/var/cache/apt/archives/*.deb &&
                        tar -C "$s/root" --numeric-owner -cf - . | zstd -q -T2 -3 -o "$s/root.tar.zst" &&
                        mv "$s/root.tar.zst" "$_dr_cache/$_dr_name.tar.zst" &&
                        echo "$_dr_key" >"$_dr_cache/$_dr_name.key"
                r=$?
                rm -rf "$s"
                exit $((r == 0 ? 0 : 3))
        ) 9>"$_dr_cache/lock"
        case $? in
        0) ;;
        2) why="no cached root in $_dr_cache and no debootstrap"; return 1 ;;
        *) why="no cached root in $_dr_cache, and debootstrap from $_dr_mirror failed (no network?)"; return 1 ;;
        esac
        mkdir -p "$1" && zstd -q -d -c "$_dr_cache/$_dr_name.tar.zst" | tar -C "$1" -xf - ||
                { why="the cached root does not unpack"; return 1; }
}

# debian_root DIR: a Debian 12 root with the libraries idlecfg uses, udev and
# systemd (the packages' tests)
debian_root() {
        cached_root "$1" bookworm bookworm-packages libkmod2,libinih1,libudev1,libblkid1,kmod,udev,systemd packages
}

# udev_sandbox FILE: write the start of a script for `umockdev-run -d REC --
# unshare -m sh FILE OUT HOST-NS RULES`: it checks that it runs in a mount
# namespace of its own under umockdev, puts tmpfs over the real /sys, /run and
# every rules directory (a write the preload missed cannot reach a live
# device, and only RULES is read), and installs RULES; the caller appends its
# udevadm test lines ($out: the output directory)
udev_sandbox() {
        cat >"$1" <<'SH'
set -eu
out=$1 host_ns=$2 rules=$3
test "$(readlink /proc/self/ns/mnt)" != "$host_ns"
test -n "${UMOCKDEV_DIR:-}"
mount -t tmpfs tmpfs /sys
awk '$5 == "/sys" && / - tmpfs / { f = 1 } END { exit !f }' /proc/self/mountinfo
case "$out:$UMOCKDEV_DIR" in /run/*|*:/run/*) ;; *) mount -t tmpfs tmpfs /run ;; esac
for d in /etc/udev/rules.d /usr/local/lib/udev/rules.d /usr/lib/udev/rules.d /lib/udev/rules.d; do
        if [ -d "$d" ]; then mount -t tmpfs tmpfs "$d"; fi
done
test -z "$(ls -A /etc/udev/rules.d)"
cp "$rules" /etc/udev/rules.d/70-idlecfg.rules
SH
}

# root_idlecfg_data ROOT: idlecfg's profiles and hwdb in a root made by
# debootstrap (the package's data, without the package)
root_idlecfg_data() {
        mkdir -p "$1/usr/share/idlecfg/profiles" "$1/usr/lib/udev/hwdb.d"
        cp "$top_srcdir"/profiles/*.profile "$1/usr/share/idlecfg/profiles/"
        cp "$top_srcdir"/hwdb/*.hwdb "$1/usr/lib/udev/hwdb.d/" 2>/dev/null || true
}

# root_uki_layout ROOT LINE: kernel-install makes UKIs with ukify in ROOT
# (install.conf layout=uki, entry token debian), LINE the vendor's command
# line (/usr/lib/kernel/cmdline), no /etc/kernel/cmdline
root_uki_layout() {
        mkdir -p "$1/usr/lib/kernel" "$1/etc/kernel"
        printf 'layout=uki\nuki_generator=ukify\n' >"$1/etc/kernel/install.conf"
        printf 'debian\n' >"$1/etc/kernel/entry-token"
        printf '%s\n' "$2" >"$1/usr/lib/kernel/cmdline"
        rm -f "$1/etc/kernel/cmdline"
}
