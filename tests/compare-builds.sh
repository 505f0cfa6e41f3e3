#!/bin/sh
# tests/compare-builds.sh OLD NEW: run two builds of idlecfg over every recorded
# machine (tests/data/machines, under umockdev) and compare their output byte
# for byte: plan and plan --json for every profile; verify as text, --json,
# --format=prometheus and --nagios, before and after apply; measure --seconds 1,
# text and JSON. For a change that must not change behaviour (a refactoring):
# build the old commit in a scratch worktree, then
#   sh tests/compare-builds.sh /tmp/old/_build/src/idlecfg _build/src/idlecfg
# Exit 0 when everything is the same, 1 with the differences shown.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 OLD-IDLECFG NEW-IDLECFG" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
old=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
new=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
export top_srcdir=$top IDLECFG=$new
. "$top/tests/lib.sh"
profiles="balanced powersave performance desktop server"

cat >"$tmp/inner.sh" <<'SH'
# inside the testbed: $BIN on $ROOT, every output into $OUT.*
ic() { "$BIN" --root "$ROOT" --kernel "$KVER" "$@"; }
for p in $PROFILES; do
        ic plan --profile "$p" >"$OUT.plan-$p" 2>&1 || echo "rc $?" >>"$OUT.plan-$p"
        ic plan --json --profile "$p" >"$OUT.plan-$p.json" 2>&1 || echo "rc $?" >>"$OUT.plan-$p.json"
done
verify_all() {
        ic --profile "$1" verify >"$OUT.$2-$1" 2>&1 || echo "rc $?" >>"$OUT.$2-$1"
        ic --profile "$1" verify --json >"$OUT.$2-$1.json" 2>&1 || echo "rc $?" >>"$OUT.$2-$1.json"
        ic --profile "$1" verify --format=prometheus >"$OUT.$2-$1.prom" 2>&1 || echo "rc $?" >>"$OUT.$2-$1.prom"
        ic --profile "$1" verify --nagios >"$OUT.$2-$1.nagios" 2>&1 || echo "rc $?" >>"$OUT.$2-$1.nagios"
}
ic measure --seconds 1 >"$OUT.measure" 2>&1 || echo "rc $?" >>"$OUT.measure"
ic measure --seconds 1 --json >"$OUT.measure.json" 2>&1 || echo "rc $?" >>"$OUT.measure.json"
for p in powersave balanced; do
        verify_all "$p" verify
        ic --profile "$p" apply >"$OUT.apply-$p" 2>&1 || echo "rc $?" >>"$OUT.apply-$p"
        verify_all "$p" verify-applied
        ic --profile "$p" measure --seconds 1 --json >"$OUT.measure-applied-$p.json" 2>&1 ||
                echo "rc $?" >>"$OUT.measure-applied-$p.json"
        ic --profile "$p" rollback >"$OUT.rollback-$p" 2>&1 || echo "rc $?" >>"$OUT.rollback-$p"
done
SH

for m in $(cd "$TESTS_DATA/machines" && ls -d */ | tr -d /); do
        for which in old new; do
                eval bin=\$$which
                root=$tmp/root-$m-$which
                mkroot_installed "$TESTS_DATA/machines/$m" "$root"
                mkdir -p "$root/run" "$root/var/lib" "$tmp/$which" "$tmp/proc-$m-$which"
                # /proc is the host's: an empty one keeps measure's counters out
                IDLECFG_TEST_PROC=$tmp/proc-$m-$which BIN=$bin ROOT=$root KVER=$KVER PROFILES=$profiles \
                        OUT=$tmp/$which/$m run_machine "$TESTS_DATA/machines/$m" sh "$tmp/inner.sh"
                # the temporary root, the version, measure's own timing and verify's
                # wall-clock gauge (the Prometheus last success) differ by design
                for f in "$tmp/$which/$m".*; do
                        sed -i -e "s|$root|@ROOT@|g" -e "s|$tmp/proc-$m-$which|@PROC@|g" \
                                -e 's|"version": "[^"]*"|"version": "@VERSION@"|' \
                                -e 's|idlecfg [0-9][^ ]* for profile|idlecfg @VERSION@ for profile|' \
                                -e 's|"interval_us": [0-9]*|"interval_us": @US@|' \
                                -e 's|^Measured [0-9.]* s\.|Measured @S@ s.|' \
                                -e 's|^idlecfg_last_success_timestamp_seconds [0-9]*$|idlecfg_last_success_timestamp_seconds @TIME@|' "$f"
                done
        done
done
n=$(ls "$tmp/new" | wc -l)
if diff -r "$tmp/old" "$tmp/new" >"$tmp/diff"; then
        echo "compare-builds: $n outputs over $(ls "$TESTS_DATA/machines" | wc -l) machines, all the same"
else
        cat "$tmp/diff"
        echo "compare-builds: the outputs above differ" >&2
        exit 1
fi
