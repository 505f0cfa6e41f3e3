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
tmp=$(mktemp -d "${TMPDIR:-/tmp}/idlecfg-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

plan() { echo "1..$1"; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
ok() { _n=$((_n + 1)); echo "ok $_n - $*"; }
not_ok() { _n=$((_n + 1)); _failed=$((_failed + 1)); echo "not ok $_n - $*"; }
skip() { _n=$((_n + 1)); echo "ok $_n - $* # SKIP"; }
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
# check DESCRIPTION CMD...: one test point from a command's exit status
check() {
        _d=$1
        shift
        if "$@" >"$tmp/check.out" 2>&1; then ok "$_d"; else not_ok "$_d"; diag "$(cat "$tmp/check.out")"; fi
}
done_testing() { [ "$_failed" -eq 0 ]; exit $?; }

need() {
        for _c in "$@"; do
                command -v "$_c" >/dev/null 2>&1 || PATH=$PATH:/sbin:/usr/sbin command -v "$_c" >/dev/null 2>&1 ||
                        skip_all "$_c not installed"
        done
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

# an installed target: mkroot plus idlecfg's profiles and hwdb, and systemd's
# autosuspend hwdb files from the shared fixtures (udev 252) when present
mkroot_installed() {
        mkroot "$1" "$2" || return 1
        mkdir -p "$2/usr/share/idlecfg/profiles" "$2/usr/lib/udev/hwdb.d"
        cp "$top_srcdir"/profiles/*.profile "$2/usr/share/idlecfg/profiles/"
        cp "$top_srcdir"/hwdb/*.hwdb "$2/usr/lib/udev/hwdb.d/" 2>/dev/null || true
        if [ -d "$FIXTURES/hwdb" ]; then
                cp "$FIXTURES"/hwdb/60-*.hwdb "$2/usr/lib/udev/hwdb.d/"
        fi
}

# replace what differs between runs: the temporary root, the version
normalize() {
        sed -e "s|$1|@ROOT@|g" -e 's|"version": "[^"]*"|"version": "@VERSION@"|'
}

run_machine() {
        "$top_srcdir/tests/run-machine" "$@"
}
