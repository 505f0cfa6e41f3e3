#!/bin/sh
# tests/valgrind.sh: idlecfg detect --json and plan --json on every recorded machine under
# valgrind: no memory error, no definite leak (umockdev's preload reaches the client through valgrind)
. "$top_srcdir/tests/lib.sh"
need valgrind umockdev-run depmod python3
# valgrind cannot run a binary built with AddressSanitizer (.ci/run's second build)
if grep -q __asan_init "$IDLECFG" 2>/dev/null; then
        skip_all "$IDLECFG is built with AddressSanitizer"
fi

machines=$(cd "$TESTS_DATA/machines" && ls -d */ | tr -d /)
count=$(echo "$machines" | wc -w)
plan $((count * 2))

for m in $machines; do
        dir=$TESTS_DATA/machines/$m
        root=$tmp/$m-root
        mkroot_installed "$dir" "$root" || { echo "Bail out! cannot build the root of $m"; exit 1; }
        # both verbs in one testbed: umockdev takes seconds to build one on a disk /tmp
        start=$(date +%s)
        run_machine "$dir" sh -c '
                for verb in detect plan; do
                        valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 \
                                --log-file="$1.$verb.valgrind" "$2" $verb --json --root "$3" --kernel "$4" \
                                >"$1.$verb.json" 2>"$1.$verb.err"
                        echo $? >"$1.$verb.rc"
                done' sh "$tmp/$m" "$IDLECFG" "$root" "$KVER"
        secs=$(($(date +%s) - start))
        for verb in detect plan; do
                rc=$(cat "$tmp/$m.$verb.rc" 2>/dev/null || echo "none")
                # the recording's fingerprint: the preload reached the tool through valgrind
                if [ "$rc" = 0 ] && grep -q 'ERROR SUMMARY: 0 errors' "$tmp/$m.$verb.valgrind" &&
                        python3 -c 'import json, sys
assert json.load(open(sys.argv[1]))["fingerprint"] == json.load(open(sys.argv[2]))["fingerprint"]' \
                                "$tmp/$m.$verb.json" "$dir/expected/detect.json" 2>/dev/null; then
                        ok "$m: $verb --json under valgrind: no error, no definite leak"
                else
                        not_ok "$m: $verb --json under valgrind (exit $rc; 99 is valgrind's)"
                        diag "$(cat "$tmp/$m.$verb.err" 2>/dev/null)" \
                                "$(grep -v '^==[0-9]*== *$' "$tmp/$m.$verb.valgrind" 2>/dev/null | head -n 80)"
                fi
        done
        diag "$m: ${secs} s for both"
done
done_testing
