#!/bin/sh
# tests/detect-machines.sh: detect on every recorded machine of tests/data/machines,
# against golden JSON and text (IDLECFG_UPDATE_GOLDEN=1 rewrites them); the
# text wrapped at 80 columns on a terminal, one line a list or note in a file
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}" python3 script

machines=$(cd "$TESTS_DATA/machines" && ls -d */ | tr -d /)
count=$(echo "$machines" | wc -w)
plan $((count * 6 + 2))

for m in $machines; do
        dir=$TESTS_DATA/machines/$m
        root=$tmp/$m-root
        mkroot "$dir" "$root" || { not_ok "$m: root"; continue; }
        run_machine "$dir" "$IDLECFG" detect --json --root "$root" --kernel "$KVER" >"$tmp/$m.json" 2>"$tmp/$m.err"
        rc=$?
        check "$m: detect --json exits 0 with valid JSON" sh -c "test $rc -eq 0 && python3 -m json.tool '$tmp/$m.json' >/dev/null"
        normalize "$root" <"$tmp/$m.json" >"$tmp/$m.norm.json"
        golden "$m: JSON matches expected/detect.json" "$dir/expected/detect.json" "$tmp/$m.norm.json"
        on_tty "$top_srcdir/tests/run-machine" "$dir" "$IDLECFG" detect --root "$root" --kernel "$KVER" | normalize "$root" >"$tmp/$m.txt"
        golden "$m: text on a terminal matches expected/detect.txt" "$dir/expected/detect.txt" "$tmp/$m.txt"
        check "$m: text on a terminal fits 80 columns" awk 'length > 80 { print; bad = 1 } END { exit bad }' "$tmp/$m.txt"
        # in a file: the same words, no line wrapped
        run_machine "$dir" "$IDLECFG" detect --root "$root" --kernel "$KVER" 2>&1 | normalize "$root" >"$tmp/$m.file"
        check "$m: text in a file has the terminal's words, on fewer lines" sh -c "
                test \"\$(tr -s ' \n' '  ' <'$tmp/$m.txt')\" = \"\$(tr -s ' \n' '  ' <'$tmp/$m.file')\" &&
                test \$(wc -l <'$tmp/$m.file') -lt \$(wc -l <'$tmp/$m.txt')"
        check "$m: in a file no platform or storage value is wrapped below itself" sh -c "
                ! grep -n '^                    ' '$tmp/$m.file'"
done

# tests/run-machine's guard of the testbed it shares between the commands
# that only read /sys: one that writes there fails the run (exit 125); the
# same command that only reads passes
cat >"$tmp/writes" <<'SH'
#!/bin/sh
[ "${1:-}" = read ] && exec cat /sys/devices/pci0000:00/0000:00:14.0/power/control
echo on >/sys/devices/pci0000:00/0000:00:14.0/power/control
SH
chmod +x "$tmp/writes"
IDLECFG=$tmp/writes run_machine "$TESTS_DATA/machines/intel-laptop" "$tmp/writes" plan >"$tmp/guard.out" 2>&1; rc=$?
check "run-machine: a command in the shared testbed that writes to /sys fails the run, exit 125, naming the file [$rc]" \
        sh -c "test $rc -eq 125 && grep -q 'changed the testbed.*0000:00:14.0/power/control' '$tmp/guard.out'"
IDLECFG=$tmp/writes run_machine "$TESTS_DATA/machines/intel-laptop" "$tmp/writes" read plan >"$tmp/guard2.out" 2>&1; rc=$?
check "run-machine: ... one that only reads there passes [$rc]" test $rc -eq 0
done_testing
