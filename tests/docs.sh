#!/bin/sh
# tests/docs.sh: every file with translatable messages is in po/POTFILES.in,
# and the man pages render without warnings
. "$top_srcdir/tests/lib.sh"
pages=$(cd "$top_srcdir" && ls src/man/*.[1-8])
plan $((2 + 3 * $(echo "$pages" | wc -l)))

missing=
for f in $(cd "$top_srcdir" && grep -l '_("' src/*/*.c); do
        grep -qx "$f" "$top_srcdir/po/POTFILES.in" || missing="$missing $f"
done
check "po/POTFILES.in lists every file with _() messages${missing:+ (missing:$missing)}" test -z "$missing"

stale=
for f in $(grep -v '^#' "$top_srcdir/po/POTFILES.in"); do
        [ -f "$top_srcdir/$f" ] || stale="$stale $f"
done
check "po/POTFILES.in names no missing file${stale:+ ($stale)}" test -z "$stale"

for page in $pages; do
        if command -v man >/dev/null 2>&1; then
                MANWIDTH=80 man --warnings -l "$top_srcdir/$page" 2>"$tmp/man.err" >"$tmp/man.out"
                check "$page renders without warnings" sh -c "test -s '$tmp/man.out' && test ! -s '$tmp/man.err'"
                [ -s "$tmp/man.err" ] && diag "$(cat "$tmp/man.err")"
                # a roman word after .BR's bold one, and no space: "(with
                # --root)ajournalofliveval..." in EXIT STATUS once
                check "$page: no words run together after a parenthesis" sh -c "
                        ! grep -nE '[A-Za-z]\)[a-z]{2,}' '$tmp/man.out'"
        else
                skip "$page renders without warnings: man not installed"
                skip "$page: no words run together after a parenthesis" "man not installed"
        fi
        # each variable of ENVIRONMENT once (IDLECFG_TEST_CHROOT was twice)
        sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' "$top_srcdir/$page" | sed -n '/^\.TP/{n;p;}' | sort | uniq -d >"$tmp/dup"
        check "$page: ENVIRONMENT names each variable once" sh -c "cat '$tmp/dup'; test ! -s '$tmp/dup'"
done
done_testing
