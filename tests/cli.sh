#!/bin/sh
# tests/cli.sh: usage errors, exit codes, help and version
. "$top_srcdir/tests/lib.sh"
plan 21

"$IDLECFG" >/dev/null 2>"$tmp/err"; rc=$?
check "no verb: exit 2" test "$rc" -eq 2
check "no verb: says so" grep -q "no verb given" "$tmp/err"

"$IDLECFG" detcet >/dev/null 2>"$tmp/err"; rc=$?
check "unknown verb: exit 2" test "$rc" -eq 2
check "unknown verb: did you mean" grep -q "Did you mean 'detect'" "$tmp/err"

"$IDLECFG" --frobnicate detect >/dev/null 2>"$tmp/err"; rc=$?
check "unknown option: exit 2 and Try --help" sh -c "test $rc -eq 2 && grep -q -- '--help' '$tmp/err'"

"$IDLECFG" detect extra >/dev/null 2>"$tmp/err"; rc=$?
check "too many arguments: exit 2" test "$rc" -eq 2

"$IDLECFG" --root /nonexistent/dir detect >/dev/null 2>"$tmp/err"; rc=$?
check "--root that is not a directory: exit 2, named" sh -c "test $rc -eq 2 && grep -q '/nonexistent/dir' '$tmp/err'"

"$IDLECFG" --kernel ../../etc detect >/dev/null 2>"$tmp/err"; rc=$?
check "--kernel with a slash is refused" test "$rc" -eq 2

"$IDLECFG" --frobnicate detect >/dev/null 2>"$tmp/err"
"$IDLECFG" detect --root >/dev/null 2>"$tmp/err2"; rc=$?
check "getopt's errors are idlecfg's own: unknown option, missing argument" sh -c "
        grep -qx \"idlecfg: unknown option '--frobnicate'\" '$tmp/err' &&
        grep -qx \"idlecfg: option '--root' needs an argument\" '$tmp/err2' && test $rc -eq 2 &&
        ! grep -q 'unrecognized\\|requires an argument' '$tmp/err' '$tmp/err2'"
"$IDLECFG" detect --force >/dev/null 2>"$tmp/err"; rc=$?
check "an option the verb does not take: exit 2, names the verb and the option" sh -c "
        test $rc -eq 2 && grep -q '^idlecfg: detect does not take --force' '$tmp/err'"
"$IDLECFG" plan --json --format=udev >/dev/null 2>"$tmp/err"; rc=$?
check "--json with --format: exit 2" sh -c "test $rc -eq 2 && grep -q -- '--json and --format' '$tmp/err'"
"$IDLECFG" explain >/dev/null 2>"$tmp/err"; rc=$?
check "explain without a device: exit 2, its usage" sh -c "
        test $rc -eq 2 && grep -q 'needs the argument DEVICE' '$tmp/err' && grep -q '^Usage: idlecfg explain \[OPTIONS\] DEVICE' '$tmp/err'"
"$IDLECFG" plan extra >/dev/null 2>"$tmp/err"; rc=$?
check "plan with an argument: exit 2, its usage" sh -c "
        test $rc -eq 2 && grep -q \"plan takes no arguments, 'extra' given\" '$tmp/err' && grep -q '^Usage: idlecfg plan' '$tmp/err'"
"$IDLECFG" help install >"$tmp/h1"; rc=$?
"$IDLECFG" install --help >"$tmp/h2"
check "help VERB and VERB --help: the same usage, the verb's options only" sh -c "
        test $rc -eq 0 && cmp '$tmp/h1' '$tmp/h2' && grep -q -- '--refuse-conflicts' '$tmp/h1' &&
        ! grep -q -- '--keep-going' '$tmp/h1' && grep -q '^Usage: idlecfg install' '$tmp/h1'"
"$IDLECFG" help frob >/dev/null 2>"$tmp/err"; rc=$?
check "help of an unknown verb: exit 2" sh -c "test $rc -eq 2 && grep -q \"unknown verb 'frob'\" '$tmp/err'"
"$IDLECFG" help help >"$tmp/h1" 2>"$tmp/err"; rc=$?
check "help help: --help lists help among the verbs, so its own usage, exit 0" sh -c "
        test $rc -eq 0 && ! test -s '$tmp/err' && grep -qx 'Usage: idlecfg help \[OPTIONS\] \[VERB\]' '$tmp/h1' &&
        grep -qx 'Show the usage of one verb: help VERB.' '$tmp/h1'"
"$IDLECFG" help --help >"$tmp/h2" 2>"$tmp/err"; rc=$?
"$IDLECFG" --help help >"$tmp/h3" 2>>"$tmp/err"; rc2=$?
check "help --help and --help help: help's own usage too, as VERB --help (exit $rc, $rc2)" sh -c "
        test $rc -eq 0 && test $rc2 -eq 0 && ! test -s '$tmp/err' && cmp '$tmp/h1' '$tmp/h2' && cmp '$tmp/h1' '$tmp/h3'"
"$IDLECFG" --root /nonexistent/dir detect >/dev/null 2>"$tmp/err"
: >"$tmp/file"
"$IDLECFG" --root "$tmp/file" detect >/dev/null 2>"$tmp/err2"
check "--root to a missing directory says so; to a file, not a directory" sh -c "
        grep -qx 'idlecfg: --root /nonexistent/dir: no such directory' '$tmp/err' &&
        grep -q 'not a directory' '$tmp/err2'"
"$IDLECFG" measure --measure 5 >/dev/null 2>"$tmp/err"; rc=$?
check "measure --measure: exit 2, points at --seconds" sh -c "test $rc -eq 2 && grep -q 'measure takes --seconds' '$tmp/err'"
"$IDLECFG" apply --json >/dev/null 2>"$tmp/err"; rc=$?
check "apply --json without --measure: exit 2" sh -c "test $rc -eq 2 && grep -q 'only with --measure' '$tmp/err'"
check "--help lists every verb and option" sh -c "'$IDLECFG' --help | grep -q detect && '$IDLECFG' --help | grep -q -- --kernel && '$IDLECFG' --version | grep -q '^idlecfg '"
done_testing
