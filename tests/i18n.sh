#!/bin/sh
# tests/i18n.sh: the de and fr catalogues are used, and machine-readable
# output (version, JSON keys) is never translated.
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
plan 9

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
check "German help keeps option names and alignment" \
        grep -q '^  -r, --root DIR        auf dem System' "$tmp/help.de"
check "French help keeps option names and alignment" \
        grep -q '^      --profiles-dir DIR  chercher' "$tmp/help.fr"

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
done_testing
