#!/bin/sh
# tests/cli.sh: usage errors, exit codes, help and version
. "$top_srcdir/tests/lib.sh"
plan 9

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

check "--help lists every verb and option" sh -c "'$IDLECFG' --help | grep -q detect && '$IDLECFG' --help | grep -q -- --kernel && '$IDLECFG' --version | grep -q '^idlecfg '"
done_testing
