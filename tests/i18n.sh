#!/bin/sh
# tests/i18n.sh: the de and fr catalogues are used and complete, and
# machine-readable output (version, JSON keys) and what idlecfg writes into
# files (configuration files, manifest, journal) are never translated.
# The catalogues are compiled from po/*.po into $tmp/locale; the binary is
# pointed at them with IDLECFG_LOCALEDIR (the compiled-in LOCALEDIR is the
# installed one). glibc ignores LANGUAGE when LC_MESSAGES is C/POSIX, so the
# runs use C.UTF-8.
. "$top_srcdir/tests/lib.sh"

need msgfmt
if [ -n "${top_builddir:-}" ] && [ -f "$top_builddir/config.h" ] &&
        ! grep -q '^#define ENABLE_NLS 1' "$top_builddir/config.h"; then
        skip_all "built without NLS"
fi
locale -a 2>/dev/null | grep -qi '^C\.utf-\{0,1\}8$' || skip_all "no C.UTF-8 locale"
plan 18

for l in de fr; do
        mkdir -p "$tmp/locale/$l/LC_MESSAGES"
        msgfmt -o "$tmp/locale/$l/LC_MESSAGES/idlecfg.mo" "$top_srcdir/po/$l.po" || exit 1
done

# run LANG ARGS...: idlecfg in language LANG (C: untranslated)
run() {
        _lang=$1
        shift
        IDLECFG_LOCALEDIR=$tmp/locale LC_ALL=C.UTF-8 LANGUAGE=$_lang "$IDLECFG" "$@"
}

run de --help >"$tmp/help.de" 2>&1
run fr --help >"$tmp/help.fr" 2>&1
run C --help >"$tmp/help.c" 2>&1
check "--help in German" grep -q 'Energieverwaltung' "$tmp/help.de"
check "--help in French" grep -q "gestion de l'énergie" "$tmp/help.fr"
check "--help without LANGUAGE stays English" grep -q 'power management' "$tmp/help.c"
# the C locale but for its character set, named by LANG alone: no locale is
# loaded (src/cli/idlecfg.c), unless LANGUAGE asks for a language
env -i PATH="$PATH" IDLECFG_LOCALEDIR="$tmp/locale" LANG=C.UTF-8 LANGUAGE=fr "$IDLECFG" --help >"$tmp/help.lang-fr" 2>&1
env -i PATH="$PATH" IDLECFG_LOCALEDIR="$tmp/locale" LANG=C.UTF-8 "$IDLECFG" --help >"$tmp/help.lang" 2>&1
check "LANG=C.UTF-8: French under LANGUAGE=fr, English without it" sh -c "
        grep -q \"gestion de l'énergie\" '$tmp/help.lang-fr' && grep -q 'power management' '$tmp/help.lang'"
check "German help keeps option names and alignment" \
        grep -q '^  -r, --root DIR        auf dem System' "$tmp/help.de"
check "French help keeps option names and alignment (a long one on a line of its own)" sh -c "
        grep -A1 -x '      --profiles-dir DIR' '$tmp/help.fr' | grep -q '^                        chercher'"

run de nosuchverb >/dev/null 2>"$tmp/err.de"
check "errors in German, verb name kept" grep -q "unbekanntes Verb 'nosuchverb'" "$tmp/err.de"

check "--version is not translated" sh -c \
        "test \"\$(IDLECFG_LOCALEDIR='$tmp/locale' LC_ALL=C.UTF-8 LANGUAGE=de '$IDLECFG' --version)\" = \"\$(LC_ALL=C '$IDLECFG' --version)\""

# an empty root: detect still prints its JSON document
mkdir -p "$tmp/root"
run de --root "$tmp/root" detect --json >"$tmp/detect.de" 2>/dev/null
run C --root "$tmp/root" detect --json >"$tmp/detect.c" 2>/dev/null
check "JSON keys stay English under LANGUAGE=de" grep -q '"fingerprint":' "$tmp/detect.de"
grep -o '"[A-Za-z_]*":' "$tmp/detect.c" >"$tmp/keys.c"
grep -o '"[A-Za-z_]*":' "$tmp/detect.de" >"$tmp/keys.de"
check "JSON keys identical to the untranslated run" sh -c "test -s '$tmp/keys.c' && cmp '$tmp/keys.c' '$tmp/keys.de'"

# ---- completeness: every message of the sources as they are now ----
# The template is made here, as po/Makefile makes it (po/Makevars'
# XGETTEXT_OPTIONS over po/POTFILES.in, from the top source directory), and
# each catalogue is merged with it: a message added or changed since the
# catalogue was last merged shows up untranslated or fuzzy.
# msgids LANG: the first few untranslated or fuzzy msgids of $tmp/LANG.po
msgids() {
        { msgattrib --untranslated --no-obsolete "$tmp/$1.po"; msgattrib --only-fuzzy --no-obsolete "$tmp/$1.po"; } |
        awk '/^msgid /      { s = substr($0, 8, length($0) - 8); m = 1; next }
             m && /^"/      { s = s substr($0, 2, length($0) - 2); next }
             m              { if (s != "") print "  \"" s "\""; m = 0 }' | head -n 8
}
if command -v xgettext >/dev/null 2>&1 && command -v msgmerge >/dev/null 2>&1 &&
        command -v msgattrib >/dev/null 2>&1; then
        xopts=$(sed -n 's/^XGETTEXT_OPTIONS[[:space:]]*=[[:space:]]*//p' "$top_srcdir/po/Makevars")
        grep -v '^[[:space:]]*#' "$top_srcdir/po/POTFILES.in" | grep . >"$tmp/potfiles"
        # shellcheck disable=SC2086 # the options are words, as po/Makefile uses them
        (cd "$top_srcdir" && xgettext --default-domain=idlecfg $xopts -o "$tmp/idlecfg.pot" -f "$tmp/potfiles") \
                >"$tmp/xgettext.log" 2>&1 || { cat "$tmp/xgettext.log" >&2; echo "Bail out! xgettext failed"; exit 1; }
        for l in de fr; do
                if ! msgmerge --quiet -o "$tmp/$l.po" "$top_srcdir/po/$l.po" "$tmp/idlecfg.pot" >"$tmp/msgmerge.log" 2>&1; then
                        not_ok "$l.po merges with a template of the current sources"
                        diag "$(cat "$tmp/msgmerge.log")"
                        continue
                fi
                stats=$(msgfmt -c --statistics -o /dev/null "$tmp/$l.po" 2>&1)
                stats=${stats%.}
                bad=$(msgids "$l")
                if [ -z "$bad" ] && msgfmt -c -o /dev/null "$tmp/$l.po" >/dev/null 2>&1; then
                        ok "$l.po translates every message of the current sources, none fuzzy ($stats)"
                else
                        not_ok "$l.po translates every message of the current sources, none fuzzy"
                        diag "$stats" "untranslated or fuzzy (the first few):" "$bad" \
                                "run make -C po update-po in the build directory, then translate them in po/$l.po"
                fi
        done
else
        skip "de.po complete (xgettext, msgmerge or msgattrib not installed)"
        skip "fr.po complete (xgettext, msgmerge or msgattrib not installed)"
fi

# ---- a message of a new verb ----
# rollback in an empty root: nothing to do, which it says in the user's language
mkdir -p "$tmp/empty"
run de --root "$tmp/empty" rollback >"$tmp/rollback.de" 2>&1
check "rollback in German" grep -q '^Nichts rückgängig zu machen: kein Journal von apply und kein Manifest von install in ' \
        "$tmp/rollback.de"
run fr --root "$tmp/empty" rollback >"$tmp/rollback.fr" 2>&1
check "rollback in French" grep -q "^Rien à annuler : aucun journal d'apply ni manifeste d'install dans " "$tmp/rollback.fr"

# ---- what idlecfg writes into files stays English ----
# On a recorded machine under umockdev, in one target root: install
# --dry-run, install, apply and rollback with LANGUAGE=de, then the same with
# LANGUAGE=C (rollback restores the root in between). The diff, every file in
# the root (configuration files, backups), the manifest and the journal must
# be byte for byte the same, but for the time of the run and the manifest's
# digests of file metadata; only the reports on stdout differ.
if command -v umockdev-run >/dev/null 2>&1 && PATH=$PATH:/sbin:/usr/sbin command -v depmod >/dev/null 2>&1 &&
        command -v "${CC:-cc}" >/dev/null 2>&1; then
        m=desktop-sata
        root=$tmp/$m-root
        mkroot_installed "$TESTS_DATA/machines/$m" "$root" || { echo "Bail out! no root for $m"; exit 1; }
        mkdir -p "$root/run" "$root/var/lib" "$root/etc/kernel"
        printf 'root=/dev/sda2 ro quiet\n' >"$root/etc/kernel/cmdline"
        cat >"$tmp/files.sh" <<'SH'
l=$LANG_RUN
ic() { IDLECFG_LOCALEDIR=$T/locale LC_ALL=C.UTF-8 LANGUAGE=$l "$IDLECFG" --root "$ROOT" --kernel "$KVER" --profile powersave "$@"; }
ic install --dry-run >"$T/dry.$l" 2>&1
ic install --dry-run --json >"$T/dryjson.$l" 2>/dev/null
# exit 4: done, the boot entry is still to be made from /etc/kernel/cmdline
ic install >"$T/install.$l" 2>&1 || [ $? -eq 4 ] || { echo "install $l failed:"; cat "$T/install.$l"; } >>"$T/files.err"
# the status file holds the run's time: compared without its times
(cd "$ROOT" && find . -type f ! -path ./run/idlecfg.lock ! -path ./var/lib/idlecfg/manifest \
        ! -path ./var/lib/idlecfg/status.json -exec sha256sum {} + | sort -k2 &&
        grep -v '"time\|"compared"' var/lib/idlecfg/status.json) >"$T/tree.$l"
# the input lines digest the size, mtime and inode of files (rollback rewrites
# /etc/kernel/cmdline): their names are compared, not their values
# (and the end record, whose checksum covers them)
sed -e 's/^\(input [^ ]*\) .*/\1/' -e 's/^\(end [0-9]*\) .*/\1/' "$ROOT/var/lib/idlecfg/manifest" >"$T/manifest.$l" ||
        echo "no manifest after install $l" >>"$T/files.err"
ic apply >"$T/apply.$l" 2>&1 || { echo "apply $l failed:"; cat "$T/apply.$l"; } >>"$T/files.err"
# the second field of a run line is the time of the run
sed -e 's/^run \([0-9]*\) [0-9]* /run \1 TIME /' -e 's/^\(end [0-9]*\) .*/\1/' "$ROOT/var/lib/idlecfg/apply.journal" >"$T/journal.$l" ||
        echo "no journal after apply $l" >>"$T/files.err"
ic rollback >"$T/rollback.$l" 2>&1 || { echo "rollback $l failed:"; cat "$T/rollback.$l"; } >>"$T/files.err"
SH
        : >"$tmp/files.err"
        # a session each: rollback puts back a module parameter's selected word,
        # not the list the recorded machine shows, so apply's old values differ
        for l in de C; do
                LANG_RUN=$l T=$tmp ROOT=$root KVER=$KVER run_machine "$TESTS_DATA/machines/$m" sh "$tmp/files.sh" \
                        >>"$tmp/files.log" 2>&1 || echo "run-machine failed ($l)" >>"$tmp/files.err"
        done
        [ -s "$tmp/files.err" ] && diag "$(cat "$tmp/files.err" "$tmp/files.log")"
        grep -E '^(--- |\+\+\+ |@@ |[-+ ])' "$tmp/dry.de" >"$tmp/diff.de" 2>/dev/null
        grep -E '^(--- |\+\+\+ |@@ |[-+ ])' "$tmp/dry.C" >"$tmp/diff.C" 2>/dev/null
        check "install --dry-run under LANGUAGE=de: the same diff as untranslated" sh -c "
                test ! -s '$tmp/files.err' && grep -q '^+++ b/etc/udev/rules.d/70-idlecfg.rules' '$tmp/diff.C' &&
                diff -u '$tmp/diff.C' '$tmp/diff.de'"
        # every value a script matches is the same in German: all but the
        # messages for people (and the diff, compared above)
        check "install --dry-run --json under LANGUAGE=de: the same keys and values (ids, argv, codes, why) but the messages" \
                python3 -c '
import json, sys
def strip(d):
    d.pop("messages", None); d.pop("diff", None)
    for w in d.get("warnings", []): w.pop("message")
    return d
c, de = (strip(json.load(open(f))) for f in sys.argv[1:3])
assert c["next_steps"] and c["warnings"], c
assert c == de, (c, de)' "$tmp/dryjson.C" "$tmp/dryjson.de"
        check "install under LANGUAGE=de reports in German and writes the same files and manifest as untranslated" sh -c "
                grep -q ' geschrieben (udev-Regeln, [0-9]* Einstellungen)' '$tmp/install.de' &&
                grep -q ' wrote .* (udev rules, [0-9]* settings)' '$tmp/install.C' &&
                diff -u '$tmp/manifest.C' '$tmp/manifest.de' && diff -u '$tmp/tree.C' '$tmp/tree.de'"
        check "apply under LANGUAGE=de reports in German and writes the same journal as untranslated" sh -c "
                grep -q '^Profil powersave wird auf das laufende System angewendet:' '$tmp/apply.de' &&
                grep -q '^run 1 TIME powersave' '$tmp/journal.C' && grep -q '^set /sys/' '$tmp/journal.C' &&
                diff -u '$tmp/journal.C' '$tmp/journal.de'"
else
        skip "install --dry-run diff untranslated (umockdev-run, depmod or ${CC:-cc} not installed)"
        skip "install --dry-run --json values untranslated (umockdev-run, depmod or ${CC:-cc} not installed)"
        skip "installed files and manifest untranslated (umockdev-run, depmod or ${CC:-cc} not installed)"
        skip "apply journal untranslated (umockdev-run, depmod or ${CC:-cc} not installed)"
fi
done_testing
