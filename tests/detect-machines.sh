#!/bin/sh
# tests/detect-machines.sh: detect on every recorded machine of tests/data/machines,
# against golden JSON and text (IDLECFG_UPDATE_GOLDEN=1 rewrites them)
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}" python3

machines=$(cd "$TESTS_DATA/machines" && ls -d */ | tr -d /)
count=$(echo "$machines" | wc -w)
plan $((count * 4))

for m in $machines; do
        dir=$TESTS_DATA/machines/$m
        root=$tmp/$m-root
        mkroot "$dir" "$root" || { not_ok "$m: root"; continue; }
        run_machine "$dir" "$IDLECFG" detect --json --root "$root" --kernel "$KVER" >"$tmp/$m.json" 2>"$tmp/$m.err"
        rc=$?
        check "$m: detect --json exits 0 with valid JSON" sh -c "test $rc -eq 0 && python3 -m json.tool '$tmp/$m.json' >/dev/null"
        normalize "$root" <"$tmp/$m.json" >"$tmp/$m.norm.json"
        golden "$m: JSON matches expected/detect.json" "$dir/expected/detect.json" "$tmp/$m.norm.json"
        run_machine "$dir" "$IDLECFG" detect --root "$root" --kernel "$KVER" 2>&1 | normalize "$root" >"$tmp/$m.txt"
        golden "$m: text matches expected/detect.txt" "$dir/expected/detect.txt" "$tmp/$m.txt"
        check "$m: text fits 80 columns" awk 'length > 80 { print; bad = 1 } END { exit bad }' "$tmp/$m.txt"
done
done_testing
