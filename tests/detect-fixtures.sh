#!/bin/sh
# tests/detect-fixtures.sh: detect on the real recordings of ../shared/fixtures,
# against golden JSON kept in tests/data/fixtures-expected (the recordings
# themselves are not copied into the project). Without the fixtures (a fresh
# clone outside the workspace) each recording's points are skipped, one by one
# and saying why, and only its golden file is checked.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}" python3
expected=$TESTS_DATA/fixtures-expected

valid_json() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["schema"] == 1 and "devices" in d' "$1"; }

if [ ! -d "$FIXTURES/recordings" ]; then
        why="no shared fixtures at $FIXTURES: the recordings are not part of the project"
        goldens=$(cd "$expected" && ls *.json | LC_ALL=C sort)
        plan $(($(echo "$goldens" | wc -l) * 2 + 3))
        for g in $goldens; do
                check "$g: the golden file is detect JSON" valid_json "$expected/$g"
                skip "detect on the recording of $g" "$why"
        done
        skip "T60p: four AHCI hosts, one medium_power and three max_performance" "$why"
        skip "T60p: old USB PM API read, optical drive found" "$why"
        skip "every golden file has its recording" "$why"
        done_testing
fi

recs=$(cd "$FIXTURES/recordings" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
count=$(echo "$recs" | wc -l)
plan $((count * 2 + 3))

mkdir -p "$tmp/root/etc"
mkmodroot "$tmp/root" || { echo "Bail out! cannot build the module tree"; exit 1; }
: >"$tmp/names"
for r in $recs; do
        name=$(echo "$r" | sed 's|/|__|g; s|\.umockdev$||')
        echo "$name.json" >>"$tmp/names"
        run_machine "$FIXTURES/recordings/$r" "$IDLECFG" detect --json --root "$tmp/root" --kernel "$KVER" \
                >"$tmp/out.json" 2>"$tmp/err"
        rc=$?
        check "$r: exit 0, valid JSON" sh -c "test $rc -eq 0 && python3 -m json.tool '$tmp/out.json' >/dev/null"
        normalize "$tmp/root" <"$tmp/out.json" >"$tmp/norm.json"
        golden "$r: JSON matches" "$expected/$name.json" "$tmp/norm.json"
done

# facts of the ThinkPad T60p recording (kernel 2.6.2x: no power/control)
t60=$FIXTURES/recordings/systemd-sys-script/thinkpad-t60p-sys-script.umockdev
run_machine "$t60" "$IDLECFG" detect --json --root "$tmp/root" --kernel "$KVER" >"$tmp/t60.json" 2>&1
check "T60p: four AHCI hosts, one medium_power and three max_performance" sh -c "
        test \$(grep -c '\"link_power_management_policy\": \"max_performance\"' '$tmp/t60.json') -eq 3 &&
        test \$(grep -c '\"link_power_management_policy\": \"medium_power\"' '$tmp/t60.json') -eq 1"
check "T60p: old USB PM API read, optical drive found" sh -c "
        grep -q '\"power/level\"' '$tmp/t60.json' && grep -q '\"kind\": \"optical\"' '$tmp/t60.json' &&
        grep -q '\"product_version\": \"ThinkPad T60p\"' '$tmp/t60.json'"
# the list the fresh-clone run goes by: no golden file without its recording
(cd "$expected" && ls *.json) | LC_ALL=C sort >"$tmp/goldens"
LC_ALL=C sort "$tmp/names" >"$tmp/names.sorted"
check "every golden file has its recording" sh -c "comm -23 '$tmp/goldens' '$tmp/names.sorted' | { ! grep .; }"
done_testing
