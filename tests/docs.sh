#!/bin/sh
# tests/docs.sh: every file with translatable messages is in po/POTFILES.in,
# and the man pages render without warnings
. "$top_srcdir/tests/lib.sh"
plan 3

missing=
for f in $(cd "$top_srcdir" && grep -l '_("' src/*.c src/knobs/*.c); do
        grep -qx "$f" "$top_srcdir/po/POTFILES.in" || missing="$missing $f"
done
check "po/POTFILES.in lists every file with _() messages${missing:+ (missing:$missing)}" test -z "$missing"

stale=
for f in $(grep -v '^#' "$top_srcdir/po/POTFILES.in"); do
        [ -f "$top_srcdir/$f" ] || stale="$stale $f"
done
check "po/POTFILES.in names no missing file${stale:+ ($stale)}" test -z "$stale"

if command -v man >/dev/null 2>&1; then
        for page in "$top_srcdir"/src/*.[1-8]; do
                MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null
        done >"$tmp/man.err"
        check "man pages render without warnings" test ! -s "$tmp/man.err"
        [ -s "$tmp/man.err" ] && diag "$(cat "$tmp/man.err")"
else
        skip "man not installed"
fi
done_testing
