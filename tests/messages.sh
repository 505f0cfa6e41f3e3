#!/bin/sh
# tests/messages.sh: what an administrator, an installer's log and a newcomer
# read: the order of a log that takes both streams, one line a message in
# files, the ways out of the common mistakes (profiles, options given twice,
# a damaged manifest), each in de and fr too.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}" script
# one umockdev session of a recorded machine for the whole script
if [ -z "${IDLECFG_IN_MACHINE:-}" ]; then
        rm -rf "$tmp"
        IDLECFG_IN_MACHINE=1 exec "$top_srcdir/tests/run-machine" "$TESTS_DATA/machines/desktop-sata" sh "$0" "$@"
fi
plan 33

dir=$TESTS_DATA/machines/desktop-sata
root=$tmp/root
mkroot_installed "$dir" "$root" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$root/var/lib" "$root/run"
cp -a "$root" "$tmp/orig"
ic() { "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }
# the de and fr catalogues, compiled as tests/i18n.sh does; in_lang LANG CMD...:
# CMD in that language (C: untranslated)
i18n=no
if command -v msgfmt >/dev/null 2>&1 && locale -a 2>/dev/null | grep -qi '^C\.utf-\{0,1\}8$' &&
        grep -q '^#define ENABLE_NLS 1' "$top_builddir/config.h" 2>/dev/null; then
        i18n=yes
        for l in de fr; do
                mkdir -p "$tmp/locale/$l/LC_MESSAGES"
                msgfmt -o "$tmp/locale/$l/LC_MESSAGES/idlecfg.mo" "$top_srcdir/po/$l.po" || i18n=no
        done
fi
in_lang() {
        _lang=$1
        shift
        IDLECFG_LOCALEDIR=$tmp/locale LC_ALL=C.UTF-8 LANGUAGE=$_lang "$@"
}
# check_i18n DESCRIPTION CMD...: a point that needs the catalogues
check_i18n() {
        if [ $i18n = yes ]; then check "$@"; else skip "$1" "no msgfmt, C.UTF-8 or NLS"; fi
}
reset_root() { rm -rf "$root" && cp -a "$tmp/orig" "$root"; }

# ---- a log of both streams (>>log 2>&1, as the installers' hooks write it) ----
# A warning about the root comes at the end of the run (src/cli/run.c
# run_done()), after the header stdout printed first: in that order in the
# log, stdout written a line at a time
printf 'UUID=0b5b5f4e / ext4 defaults 0 1\nnot-an-fstab-line\n' >"$root/etc/fstab"
ic install --profile balanced >>"$tmp/log" 2>&1
check "combined log: the run's header comes before the warning said after it" awk '
        /^Installing profile balanced/ { head = NR }
        /not an fstab entry/ { warn = NR }
        END { exit !(head && warn && head < warn) }' "$tmp/log"
reset_root

# ---- one line a message in files and pipes, wrapped on a terminal ----
ic plan --profile balanced >"$tmp/plan.file" 2>&1
check "plan in a file: a reason over 80 columns stays one line" sh -c "
        awk 'length > 80 { long = 1 } END { exit !long }' '$tmp/plan.file' &&
        grep -q '^Boot scheme none: no GRUB, kernel-install layout, systemd-boot, bootc or OSTree is there\$' '$tmp/plan.file'"
on_tty "$IDLECFG" --root "$root" --kernel "$KVER" plan --profile balanced >"$tmp/plan.tty"
check "plan on a terminal: the reasons wrapped at 80 columns, the same words" sh -c "
        awk '/^    / && length > 80 { print; bad = 1 } END { exit bad }' '$tmp/plan.tty' &&
        test \"\$(tr -s ' \n' '  ' <'$tmp/plan.tty')\" = \"\$(tr -s ' \n' '  ' <'$tmp/plan.file')\""
ic plan --profile balanced 2>&1 | cat >"$tmp/plan.pipe"
check "plan in a pipe: as in a file" cmp "$tmp/plan.file" "$tmp/plan.pipe"

# ---- a damaged manifest is no root without one ----
ic install --profile balanced >/dev/null 2>&1
sed -i 's/^fingerprint .*/fingerprint/' "$root/var/lib/idlecfg/manifest"
l=$(grep -n '^fingerprint$' "$root/var/lib/idlecfg/manifest" | cut -d: -f1)
ic install --profile balanced >"$tmp/damaged" 2>&1; rc=$?
check "damaged manifest: install exits 2 naming the file, the line and the damage, and nothing else about it" sh -c "
        test $rc -eq 2 && grep -q 'var/lib/idlecfg/manifest:$l: \"fingerprint\" takes one value' '$tmp/damaged' &&
        ! grep -q 'holds no manifest' '$tmp/damaged'"
for lang in de fr; do
        in_lang $lang "$IDLECFG" --root "$root" --kernel "$KVER" install --profile balanced >"$tmp/damaged.$lang" 2>&1
done
check_i18n "damaged manifest, in de and fr: the damage named, the root not called empty" sh -c "
        grep -q 'manifest:$l: .*fingerprint.* genau einen Wert' '$tmp/damaged.de' &&
        grep -q 'manifest:$l : .*fingerprint.* une seule valeur' '$tmp/damaged.fr' &&
        ! grep -q 'kein Manifest dieses Rechners' '$tmp/damaged.de' &&
        ! grep -q 'aucun manifeste de cette machine' '$tmp/damaged.fr'"
reset_root

# ---- profiles: the ways out of the first mistakes ----
mkdir -p "$tmp/bare" "$tmp/noprofiles"
"$IDLECFG" --root "$tmp/bare" --kernel "$KVER" plan >"$tmp/bare.out" 2>&1; rc=$?
check "a root without the package: said so, with the way out" sh -c "test $rc -ne 0 &&
        grep -q \"profile '[a-z]*' not found: $tmp/bare holds no profile (searched: $tmp/bare/etc/idlecfg/profiles, \" '$tmp/bare.out' &&
        grep -q \"install idlecfg's package in the root, or give --profiles-dir DIR\" '$tmp/bare.out' &&
        ! grep -q 'available: none' '$tmp/bare.out'"
"$IDLECFG" plan --kernel "$KVER" >"$tmp/host.out" 2>&1
if grep -q 'available: ' "$tmp/host.out" && ! grep -q 'available: none' "$tmp/host.out"; then
        skip "uninstalled: the build tree's run names --profiles-dir" "idlecfg's profiles are installed here"
else
        check "uninstalled: the build tree's run names --profiles-dir" sh -c "
                grep -q \"profile '[a-z]*' not found: no profile is installed (searched: \" '$tmp/host.out' &&
                grep -q 'give --profiles-dir with the source tree.s profiles/ directory' '$tmp/host.out'"
fi
ic plan --profiles-dir "$tmp/nonexistent" >"$tmp/nodir.out" 2>&1; rc=$?
check "a --profiles-dir that does not exist: exit 2, told apart from a root without profiles" sh -c "test $rc -eq 2 &&
        grep -qx 'idlecfg: --profiles-dir $tmp/nonexistent: no such directory; give the directory that holds the NAME.profile files (the source tree.s profiles/)' '$tmp/nodir.out'"
"$IDLECFG" --root "$tmp/bare" --kernel "$KVER" plan --profiles-dir "$tmp/noprofiles" >"$tmp/empty.out" 2>&1
check "an empty --profiles-dir is named" \
        grep -q "not found: --profiles-dir $tmp/noprofiles holds no profile (NAME.profile), nor does any other place" "$tmp/empty.out"
cd "$top_srcdir" || exit 1
ic plan --profile ./profiles/powersave.profile >"$tmp/path.out" 2>&1; rc=$?
check "--profile with a file: exit 2 and the options that name it" sh -c "test $rc -eq 2 &&
        grep -qx 'idlecfg: --profile takes a profile.s name, not a file: for ./profiles/powersave.profile give --profiles-dir ./profiles --profile powersave' '$tmp/path.out'"
check "... and those options plan it" sh -c "
        '$IDLECFG' --root '$tmp/bare' --kernel $KVER plan --profiles-dir ./profiles --profile powersave | grep -q '^Profile powersave (--profile)'"
cd "$tmp" || exit 1

# ---- an option given twice (#44 N34) ----
ic --root "$tmp/bare" plan >"$tmp/twice.out" 2>&1; rc=$?
check "a second --root: exit 2, no plan" sh -c "test $rc -eq 2 &&
        grep -qx \"idlecfg: --root given twice (the second time '$tmp/bare'): it takes one value; give it once\" '$tmp/twice.out'"
ic plan --profiles-dir "$top_srcdir/profiles" --profiles-dir "$tmp/noprofiles" >"$tmp/twice.out" 2>&1; rc=$?
check "--profiles-dir A --profiles-dir B: exit 2" sh -c "test $rc -eq 2 && grep -q '^idlecfg: --profiles-dir given twice' '$tmp/twice.out'"
ic plan -p balanced --profile=powersave >"$tmp/twice.out" 2>&1; rc=$?
check "-p and --profile: one option, given twice" sh -c "test $rc -eq 2 && grep -q '^idlecfg: --profile given twice' '$tmp/twice.out'"
ic -v -v plan --profile balanced >/dev/null 2>&1; rc=$?
check "-v may be repeated" test $rc -eq 0
for lang in de fr; do
        in_lang $lang "$IDLECFG" --root "$tmp/bare" --kernel "$KVER" plan >"$tmp/bare.$lang" 2>&1
        in_lang $lang "$IDLECFG" plan --profiles-dir "$tmp/nonexistent" >"$tmp/nodir.$lang" 2>&1
        in_lang $lang "$IDLECFG" plan --profile ./powersave.profile >"$tmp/path.$lang" 2>&1
        in_lang $lang "$IDLECFG" -r / -r / plan >"$tmp/twice.$lang" 2>&1
done
check_i18n "profiles and options given twice, in German" sh -c "
        grep -q \"Paket von idlecfg im Wurzelverzeichnis installieren oder --profiles-dir VERZ\" '$tmp/bare.de' &&
        grep -q 'kein solches Verzeichnis; das Verzeichnis mit den Dateien NAME.profile angeben' '$tmp/nodir.de' &&
        grep -q 'keine Datei: für ./powersave.profile --profiles-dir . --profile powersave angeben' '$tmp/path.de' &&
        grep -q \"^idlecfg: --root zweimal angegeben (beim zweiten Mal '/')\" '$tmp/twice.de'"
check_i18n "profiles and options given twice, in French" sh -c "
        grep -q \"installez le paquet d'idlecfg dans la racine, ou donnez --profiles-dir RÉP\" '$tmp/bare.fr' &&
        grep -q 'aucun répertoire de ce nom ; donnez le répertoire qui contient les fichiers NAME.profile' '$tmp/nodir.fr' &&
        grep -q 'pas un fichier : pour ./powersave.profile, donnez --profiles-dir . --profile powersave' '$tmp/path.fr' &&
        grep -q \"^idlecfg : --root donné deux fois (la seconde fois '/')\" '$tmp/twice.fr'"

# ---- a command-line setting a later grub.d file drops: what happened, what to do ----
g=$tmp/grub
mkroot_installed "$dir" "$g" || exit 1
mkdir -p "$g/var/lib" "$g/run" "$g/boot/grub" "$g/etc/default/grub.d"
printf 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"\n' >"$g/etc/default/grub"
printf 'linux /vmlinuz root=/dev/sda1 quiet\n' >"$g/boot/grub/grub.cfg"
"$IDLECFG" --root "$g" --kernel "$KVER" install --profile balanced >/dev/null 2>&1
printf 'GRUB_CMDLINE_LINUX_DEFAULT="quiet splash"\n' >"$g/etc/default/grub.d/zz-admin.cfg"
# the live parameter unreadable: the setting is counted by its boot configuration alone
rm -rf "$UMOCKDEV_DIR/sys/module/pcie_aspm"
"$IDLECFG" --root "$g" --kernel "$KVER" verify >"$tmp/dropped.out" 2>/dev/null
check "verify: a command-line setting a later grub.d file drops names the file and the way out" sh -c "
        grep -qx '  missing pcie_aspm.policy pcie_aspm policy: cmdline: never at a boot: $g/etc/default/grub.d/zz-admin.cfg, read after idlecfg.s file, sets GRUB.s kernel command line without its words; make that file keep them (or remove it), then update-grub' '$tmp/dropped.out' &&
        ! grep -q 'the attribute is gone' '$tmp/dropped.out'"
"$IDLECFG" --root "$g" --kernel "$KVER" verify --json >"$tmp/dropped.json" 2>/dev/null
"$IDLECFG" --root "$root" --kernel "$KVER" verify --json >"$tmp/kept.json" 2>/dev/null
check "verify --json: grub_dropped_by names that file; null where nothing drops the words" python3 -c "
import json, sys
d = json.load(open('$tmp/dropped.json'))
k = json.load(open('$tmp/kept.json'))
assert d['grub_dropped_by'] == '$g/etc/default/grub.d/zz-admin.cfg', d.get('grub_dropped_by', 'no key')
assert [s['state'] for s in d['settings'] if s['mechanism'] == 'cmdline'] == ['missing'], d['settings']
assert 'grub_dropped_by' in k and k['grub_dropped_by'] is None, k.get('grub_dropped_by', 'no key')
"
for lang in de fr; do
        in_lang $lang "$IDLECFG" --root "$g" --kernel "$KVER" verify >"$tmp/dropped.$lang" 2>/dev/null
done
check_i18n "... in de and fr" sh -c "
        grep -q 'cmdline: bei keinem Start: $g/etc/default/grub.d/zz-admin.cfg, nach der Datei von idlecfg gelesen' '$tmp/dropped.de' &&
        grep -q 'cmdline : à aucun démarrage : $g/etc/default/grub.d/zz-admin.cfg, lu après le fichier' '$tmp/dropped.fr'"

# ---- the usage ----
"$IDLECFG" --help >"$tmp/help.out"
check "--help: every verb's text in one column, power-source's too" sh -c "
        sed -n '/^Verbs:/,/^\$/p' '$tmp/help.out' | grep '^  [a-z]' >'$tmp/verbs' &&
        test \$(awk '{ print index(substr(\$0, 3), \" \" \$2) }' '$tmp/verbs' | sort -u | wc -l) -eq 1 &&
        grep -q '^  power-source Write' '$tmp/verbs'"
# each verb's usage says what its options do there, not the others' texts
for v in detect plan explain install apply rollback verify refresh measure power-source; do
        "$IDLECFG" help $v >"$tmp/help.$v"
done
# columns LANG: --help and every verb's usage in LANG: no line over 80
# columns; the verbs' and the options' texts each start in one column (an
# option too long for it alone on its line, its text below)
columns() {
        for _v in '' $("$IDLECFG" --help | sed -n '/^Verbs:/,/^$/s/^  \([a-z-]*\) .*/\1/p'); do
                if [ -z "$_v" ]; then in_lang "$1" "$IDLECFG" --help; else in_lang "$1" "$IDLECFG" help "$_v"; fi ||
                        return 1
        done >"$tmp/usage.$1" 2>&1
        python3 - "$tmp/usage.$1" <<'PY'
import re, sys
bad, part, verbcol = [], None, set()
for line in open(sys.argv[1], encoding='utf-8').read().split('\n'):
    if len(line) > 80:
        bad.append('over 80: ' + line)
    if line.endswith(':') and not line.startswith(' '):
        part = line
        continue
    if not line.strip() or part is None or not line.startswith('  '):
        part = None if not line.strip() else part
        continue
    if part.startswith(('Options', 'Optionen')):
        m = re.match(r'^  (-\w, |    )--\S+( \S+)?(  +(\S)|$)', line)
        if m:
            if m.group(4) and m.start(4) != 24:
                bad.append('text not at column 24: ' + line)
        elif not re.match(r'^ {24}\S', line):
            bad.append('not in the column: ' + line)
    else:
        m = re.match(r'^  [a-z-]+ +(\S)', line) or re.match(r'^ +(\S)', line)
        verbcol.add(m.start(1))
if len(verbcol) > 1:
    bad.append('verbs in columns %s' % sorted(verbcol))
print('\n'.join(bad))
sys.exit(1 if bad or not verbcol else 0)
PY
}
check "--help and each verb's usage: no line over 80 columns, each text in its column" columns C
columns_de_fr() { columns de && columns fr; }
check_i18n "... in de and fr" columns_de_fr
# widows LANG: in the usages columns LANG wrote, no wrapped text leaves its
# last word alone on a line ("10)" of --wait's "(default 10)" under it)
widows() {
        python3 - "$tmp/usage.$1" <<'PY'
import re, sys
bad, prev = [], ''
for line in open(sys.argv[1], encoding='utf-8').read().split('\n'):
    if (line.strip() and ' ' not in line.strip() and prev.strip() and not prev.endswith(':') and
            not re.match(r'^  (-\w, |    )--', line)):
        bad.append('alone on a continuation line: ' + line)
    prev = line
print('\n'.join(bad))
sys.exit(1 if bad else 0)
PY
}
check "--help and each verb's usage: no word alone on a wrapped text's last line" widows C
widows_de_fr() { widows de && widows fr; }
check_i18n "... in de and fr" widows_de_fr
check "per-verb help: no option line names another verb's use" sh -c "
        for v in detect plan explain install apply rollback verify refresh measure power-source; do
                sed -n '/^Options:/,/^\$/p' \"$tmp/help.\$v\" |
                grep -E '(plan|install|apply|rollback|verify|refresh|measure|power-source)(, [a-z-]+)*: ' && exit 1
        done; exit 0"
check "per-verb help: --dry-run and --format as each verb does them" sh -c "
        grep -qx '  -n, --dry-run         print the diff of what would change; write nothing' '$tmp/help.install' &&
        grep -qx '  -n, --dry-run         print what would be set; write nothing' '$tmp/help.apply' &&
        grep -qx '  -f, --format salt     the result as a Salt state.s JSON' '$tmp/help.install' &&
        grep -qx '  -f, --format FORMAT   text, json or prometheus' '$tmp/help.verify'"
in_lang de "$IDLECFG" help install >"$tmp/help.install.de" 2>&1
in_lang fr "$IDLECFG" help install >"$tmp/help.install.fr" 2>&1
check_i18n "per-verb help in de and fr" sh -c "
        grep -q '^  -n, --dry-run         den Diff dessen ausgeben' '$tmp/help.install.de' &&
        grep -q '^  -n, --dry-run         afficher le diff de ce qui changerait' '$tmp/help.install.fr'"
for lang in de fr; do
        in_lang $lang "$IDLECFG" help help >"$tmp/help.help.$lang" 2>&1 || echo "exit $?" >>"$tmp/help.help.$lang"
done
check_i18n "help help: help's own usage, exit 0, in de and fr" sh -c "
        grep -qx 'Aufruf: idlecfg help \[OPTIONEN\] \[VERB\]' '$tmp/help.help.de' &&
        grep -qx 'Den Aufruf eines Verbs anzeigen: help VERB.' '$tmp/help.help.de' &&
        grep -qx 'Utilisation : idlecfg help \[OPTIONS\] \[VERB\]' '$tmp/help.help.fr' &&
        grep -qx \"Afficher l'utilisation d'un verbe : help VERB.\" '$tmp/help.help.fr' &&
        ! grep -q '^exit\\|unknown\\|unbekannt\\|inconnu' '$tmp/help.help.de' '$tmp/help.help.fr'"
"$IDLECFG" rollback apply install >"$tmp/args.out" 2>&1
check "too many arguments: counted in words, with the ones it takes" \
        grep -qx 'idlecfg: rollback takes at most 1 argument (\[apply|install|all\]), 2 given' "$tmp/args.out"
for lang in de fr; do
        in_lang $lang "$IDLECFG" rollback apply install >"$tmp/args.$lang" 2>&1
done
check_i18n "too many arguments, in de and fr" sh -c "
        grep -q 'nimmt höchstens 1 Argument an (\[apply|install|all\]), erhalten: 2' '$tmp/args.de' &&
        grep -q 'accepte au plus 1 argument (\[apply|install|all\]), il en a reçu 2' '$tmp/args.fr'"
"$IDLECFG" verify --nagios --format=prometheus >"$tmp/nagios.out" 2>/dev/null; rc=$?
check "verify --nagios --format=prometheus: refused, the status line alone on stdout" sh -c "test $rc -eq 3 &&
        test \$(wc -l <'$tmp/nagios.out') -eq 1 && grep -q '^IDLECFG UNKNOWN - --nagios prints the plugin' '$tmp/nagios.out'"

done_testing
