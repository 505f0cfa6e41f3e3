#!/bin/sh
# tests/docs-pages.sh: the man pages say what the code does: every profile and
# idlecfg.conf section, key and value the real loader accepts is documented and
# every documented one is accepted; the shipped profiles and the chassis rules
# are described as they are; every hwdb property the code reads is documented
# and every documented one is read; the pages are installed and point at each
# other
. "$top_srcdir/tests/lib.sh"
LOADER=${PROFILE_LOAD:-$top_builddir/tests/profile-load}
REGISTRY=${KNOB_REGISTRY:-$top_builddir/tests/knob-registry}
[ -x "$LOADER" ] || skip_all "$LOADER not built"
[ -x "$REGISTRY" ] || skip_all "$REGISTRY not built"
MAN=$top_srcdir/src/man
PROFILE5=$MAN/idlecfg-profile.5
CONF5=$MAN/idlecfg.conf.5
HWDB7=$MAN/idlecfg-hwdb.7
plan 27

# ---- reading the pages ----

# roff source to plain text: font changes, escapes and quotes gone
plain() {
        sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\&//g' -e "s/\\\\(aq/'/g" -e 's/\\e/\\/g' \
            -e 's/\\(em/--/g' -e 's/\\~/ /g' "$1"
}

# the lines of section SH (a .SH title) of a page, in plain text
section() {
        plain "$1" | awk -v want="$2" '
                /^\.SH / { t = substr($0, 5); gsub(/"/, "", t); in_sh = (t == want); next }
                in_sh'
}

# "SECTION KEY = VALUES" for every key of a KEYS section: a .TP followed by
# "key = values" under a .SS "[section]" heading ("[section ARG]" for one that
# takes an argument: idlecfg.conf's [exclude DEVICE])
doc_keys() {
        section "$1" KEYS | awk '
                /^\.SS / { s = substr($0, 5); gsub(/"/, "", s); sub(/ [A-Z]+\]$/, "]", s); sec = s; next }
                /^\.TP/ { tp = 1; next }
                tp && /^[a-z0-9_]+ = / && sec ~ /^\[[a-z0-9_]+\]$/ {
                        print substr(sec, 2, length(sec) - 2) " " $0
                }
                { tp = 0 }'
}

# a value list in one canonical form: alternatives sorted, " | " between
canon() {
        tr '|' '\n' | sed -e 's/^ *//' -e 's/ *$//' | grep . | LC_ALL=C sort | paste -sd'|' - | sed 's/|/ | /g'
}

# ---- what the loader accepts, asked through its own error messages ----

# write a profile t.profile (or idlecfg.conf) in a fresh root and load it;
# the first line of the answer
proot=$tmp/proot
croot=$tmp/croot
mkdir -p "$proot/etc/idlecfg/profiles" "$croot/etc/idlecfg/profiles"
# a profile to inherit and to name in idlecfg.conf
printf '[usb]\nautosuspend = keep\n' > "$proot/etc/idlecfg/profiles/base.profile"
cp "$proot/etc/idlecfg/profiles/base.profile" "$croot/etc/idlecfg/profiles/"
load_profile() {
        printf "$1" > "$proot/etc/idlecfg/profiles/t.profile"
        "$LOADER" "$proot" t | head -n 1
}
load_conf() {
        printf "$1" > "$croot/etc/idlecfg/idlecfg.conf"
        if "$LOADER" --select "$croot" 10 >"$tmp/conf.out"; then echo ok; else head -n 1 "$tmp/conf.out"; fi
}

# the header of section S: "S ARG" for a section the loader lists as
# "S ARG" (one that takes an argument), with an argument that names a device
hdr() {
        case " $argsecs " in *" $1 "*) echo "$1 0000:00:00.0" ;; *) echo "$1" ;; esac
}
# the sections of kind $load that take an argument, into argsecs
arg_sections() {
        argsecs=$($load '[zz_no_such_section]\n' | sed -n 's/.*unknown section \[zz_no_such_section\]; valid: //p' |
                tr ',' '\n' | sed -n 's/^ *\([a-z0-9_]*\) [A-Z][A-Z]*$/\1/p' | tr '\n' ' ')
}

# KIND (profile or conf) -> "SECTION KEY = VALUES" for every key it accepts
code_keys() {
        load=load_$1
        sections=$($load '[zz_no_such_section]\n' | sed -n 's/.*unknown section \[zz_no_such_section\]; valid: //p')
        [ -n "$sections" ] || { echo "NO-SECTIONS"; return; }
        arg_sections
        sections=$(echo "$sections" | sed 's/ [A-Z][A-Z]*//g')
        for s in $(echo "$sections" | tr -d ,); do
                keys=$($load "[$(hdr "$s")]\nzz_no_such_key = 1\n" | sed -n "s/.*unknown key 'zz_no_such_key' in \[$s\]; valid: //p")
                [ -n "$keys" ] || { echo "$s NO-KEYS"; continue; }
                for k in $(echo "$keys" | tr -d ,); do
                        msg=$($load "[$(hdr "$s")]\n$k = zz no such value\n")
                        case $msg in
                        *"unknown value 'zz no such value'"*"; valid: "*)
                                v=$(echo "$msg" | sed 's/.*; valid: //' | sed 's/, / | /g') ;;
                        *"; valid: keep or an integer "*)
                                v="keep | $(echo "$msg" | sed 's/.*; valid: keep or an integer //')" ;;
                        *"invalid profile name 'zz no such value'"*)
                                v=NAME ;;
                        ok)
                                v=TEXT ;;
                        *)
                                v="UNKNOWN ($msg)" ;;
                        esac
                        echo "$s $k = $v"
                done
        done
}

# "SECTION KEY = canonical values" of a list
canon_keys() {
        while read -r s k eq v; do
                echo "$s $k = $(echo "$v" | canon)"
        done | LC_ALL=C sort
}

# compare two lists; DESC and the lines only in one of them
same_list() {
        _desc=$1 _a=$2 _b=$3 _an=$4 _bn=$5
        LC_ALL=C sort -u "$_a" >"$_a.s"
        LC_ALL=C sort -u "$_b" >"$_b.s"
        if [ -s "$_a.s" ] && cmp -s "$_a.s" "$_b.s"; then
                ok "$_desc"
        else
                not_ok "$_desc"
                [ -s "$_a.s" ] || diag "$_an: nothing found"
                comm -23 "$_a.s" "$_b.s" | sed "s/^/# only in $_an: /"
                comm -13 "$_a.s" "$_b.s" | sed "s/^/# only in $_bn: /"
        fi
}

# feed every documented value of every documented key to the loader: each
# alternative loads; for a range, its ends load and the numbers just outside
# do not
feed() {
        kind=$1 keys=$2
        load=load_$kind
        arg_sections
        while read -r s k eq v; do
                echo "$v" | tr '|' '\n' | sed -e 's/^ *//' -e 's/ *$//' | while read -r alt; do
                        case $alt in
                        NAME) vals=base; bad= ;;
                        TEXT) vals="Some text, with: punctuation (and parentheses)"; bad= ;;
                        *..*)
                                lo=${alt%..*} hi=${alt#*..}
                                vals="$lo
$hi"
                                bad="$((lo - 1))
$((hi + 1))" ;;
                        *) vals=$alt; bad= ;;
                        esac
                        echo "$vals" | while IFS= read -r x; do
                                r=$($load "[$(hdr "$s")]\n$k = $x\n")
                                [ "$r" = ok ] || echo "[$s] $k = $x: refused: $r"
                        done
                        [ -n "$bad" ] && echo "$bad" | while IFS= read -r x; do
                                r=$($load "[$(hdr "$s")]\n$k = $x\n")
                                [ "$r" = ok ] && echo "[$s] $k = $x: accepted, outside the documented $alt"
                        done
                done
        done <"$keys"
}

# ---- 1-5: idlecfg-profile(5) documents exactly the profile schema ----

code_keys profile | canon_keys >"$tmp/profile.code"
doc_keys "$PROFILE5" | canon_keys >"$tmp/profile.doc"
cut -d' ' -f1 "$tmp/profile.code" >"$tmp/profile.code.sec"
cut -d' ' -f1 "$tmp/profile.doc" >"$tmp/profile.doc.sec"
same_list "idlecfg-profile(5) KEYS has a [section] for every profile section the loader accepts, and no other" \
        "$tmp/profile.code.sec" "$tmp/profile.doc.sec" loader page
cut -d' ' -f1-2 "$tmp/profile.code" >"$tmp/profile.code.key"
cut -d' ' -f1-2 "$tmp/profile.doc" >"$tmp/profile.doc.key"
same_list "idlecfg-profile(5) documents every profile key the loader accepts, and no other" \
        "$tmp/profile.code.key" "$tmp/profile.doc.key" loader page
same_list "idlecfg-profile(5) gives every key exactly the values the loader accepts" \
        "$tmp/profile.code" "$tmp/profile.doc" loader page
doc_keys "$PROFILE5" >"$tmp/profile.doc.raw"
feed profile "$tmp/profile.doc.raw" >"$tmp/profile.feed"
check "every key and value idlecfg-profile(5) documents loads, ranges end where documented" \
        sh -c "test -s '$tmp/profile.doc.raw' && test ! -s '$tmp/profile.feed'"
[ -s "$tmp/profile.feed" ] && diag "$(cat "$tmp/profile.feed")"
# no UNKNOWN: every key's value type was recognised from the loader's message
check "the loader's answer for every profile key was understood" sh -c "! grep -e UNKNOWN -e NO- '$tmp/profile.code'"

# ---- 6-8: idlecfg.conf(5) documents exactly idlecfg.conf's schema ----

code_keys conf | canon_keys >"$tmp/conf.code"
doc_keys "$CONF5" | canon_keys >"$tmp/conf.doc"
cut -d' ' -f1-2 "$tmp/conf.code" >"$tmp/conf.code.key"
cut -d' ' -f1-2 "$tmp/conf.doc" >"$tmp/conf.doc.key"
same_list "idlecfg.conf(5) documents every idlecfg.conf section and key the loader accepts, and no other" \
        "$tmp/conf.code.key" "$tmp/conf.doc.key" loader page
same_list "idlecfg.conf(5) gives every key exactly the values the loader accepts" \
        "$tmp/conf.code" "$tmp/conf.doc" loader page
doc_keys "$CONF5" >"$tmp/conf.doc.raw"
feed conf "$tmp/conf.doc.raw" >"$tmp/conf.feed"
check "every key and value idlecfg.conf(5) documents is accepted" \
        sh -c "test -s '$tmp/conf.doc.raw' && test ! -s '$tmp/conf.feed'"
[ -s "$tmp/conf.feed" ] && diag "$(cat "$tmp/conf.feed")"

# ---- 9: idlecfg.conf(5) lists the chassis types of each profile as profile_select() maps them ----

mkdir -p "$tmp/noconf"
t=0
while [ $t -le 40 ]; do
        "$LOADER" --select "$tmp/noconf" $t | awk -F'\t' -v t=$t '
                $2 ~ /^chassis type [0-9]+ \(.*\)$/ && $2 !~ /has no rule/ {
                        n = $2; sub(/^chassis type [0-9]+ \(/, "", n); sub(/\)$/, "", n)
                        print $1 " " t " " n
                }'
        t=$((t + 1))
done >"$tmp/chassis.code"
section "$CONF5" "CHOOSING THE PROFILE" | awk '
        /^\.TP/ { tp = 1; next }
        tp == 1 && /^\.B / { prof = $2; tp = 2; next }
        tp == 2 {
                n = split($0, v, /, /)
                for (i = 1; i <= n; i++) {
                        name = v[i]; num = v[i]
                        sub(/ \([0-9]+\)$/, "", name); sub(/.*\(/, "", num); sub(/\)$/, "", num)
                        print prof " " num " " name
                }
        }
        { tp = 0 }' >"$tmp/chassis.doc"
same_list "idlecfg.conf(5) lists each chassis type under the profile it selects" \
        "$tmp/chassis.code" "$tmp/chassis.doc" code page

# ---- 10-11: SHIPPED PROFILES in idlecfg-profile(5) is what profiles/*.profile set ----

sroot=$tmp/sroot
mkdir -p "$sroot/usr/share/idlecfg/profiles"
cp "$top_srcdir"/profiles/*.profile "$sroot/usr/share/idlecfg/profiles/"
: >"$tmp/shipped.code"
: >"$tmp/inherit.code"
for f in "$top_srcdir"/profiles/*.profile; do
        p=$(basename "$f" .profile)
        "$LOADER" "$sroot" "$p" >"$tmp/shipped.out"
        sed -n 's/^chain [^ ]* *\([^ ]*\).*/\1/p' "$tmp/shipped.out" | sed "s/^\$/nothing/; s/^/$p inherits /" >>"$tmp/inherit.code"
        awk -v p="$p" '$1 == p { $1 = ""; print p $0 }' "$tmp/shipped.out" >>"$tmp/shipped.code"
done
section "$PROFILE5" "SHIPPED PROFILES" | awk '
        /^\.SS / { p = $2; next }
        /^\.nf/ { nf = 1; next }
        /^\.fi/ { nf = 0; next }
        p && /It inherits [a-z0-9_-]+/ { s = $0; sub(/.*It inherits /, "", s); sub(/[^a-z0-9_-].*/, "", s); print p " inherits " s > "/dev/stderr" }
        nf && p {
                line = $0
                if (line ~ /^\[/) { sec = line; sub(/ .*/, "", sec); sub(/^\[[a-z0-9_]+\] */, "", line) }
                else sub(/^ */, "", line)
                n = split(line, kv, /, */)
                for (i = 1; i <= n; i++) if (kv[i] != "") print p " " sec " " kv[i]
        }' >"$tmp/shipped.doc" 2>"$tmp/inherit.doc"
same_list "idlecfg-profile(5) SHIPPED PROFILES lists exactly the keys each shipped file sets, with their values" \
        "$tmp/shipped.code" "$tmp/shipped.doc" profiles page
same_list "idlecfg-profile(5) SHIPPED PROFILES names what each shipped profile inherits" \
        "$tmp/inherit.code" "$tmp/inherit.doc" profiles page

# ---- 12-16: idlecfg-hwdb(7) documents exactly the properties the code reads ----

# the properties of the registry, and those the static udev rules read
{
        "$REGISTRY" | awk '$1 == "property" { print $2 }'
        grep -o 'ENV{\(IDLECFG\|ID\)_[A-Z0-9_]*}' "$top_srcdir"/rules/*.rules | sed 's/.*ENV{//; s/}$//' |
                grep -v -e '_KERNEL$' -e '_REASON$'
} | sort -u >"$tmp/props.code"
# the properties section up to its first subsection: a .TP, then NAME=values
section "$HWDB7" PROPERTIES | awk '
        /^\.SS/ { exit }
        /^\.TP/ { tp = 1; next }
        tp && /^\.BI? (IDLECFG|ID)_[A-Z0-9_]+=/ { s = $2; sub(/=.*/, "", s); print s }
        { tp = 0 }' | sort -u >"$tmp/props.doc"
same_list "idlecfg-hwdb(7) PROPERTIES documents every property of the registry and the rules, and no other" \
        "$tmp/props.code" "$tmp/props.doc" code page
# what the plan functions look up must be declared in the registry
readers=$(cd "$top_srcdir" && grep -l -e 'hwdb_fact\(_undecided\)\? *(' -e 'hwdb_get *(' -e 'hwdb_query *(' src/*/*.c | grep -v '^src/db/hwdb\.c$')
for f in $readers; do
        # (not "IDLECFG_": planner_hwdb_keys holds key prefixes)
        grep -o '"\(IDLECFG\|ID\)_[A-Z0-9_]*"' "$top_srcdir/$f" | tr -d '"' | grep -v '_$'
done | sort -u | grep -v -e '^IDLECFG_FAULT' -e '^IDLECFG_LOCALEDIR$' -e '^IDLECFG_TEST_' >"$tmp/props.read"
"$REGISTRY" | awk '$1 == "property" { print $2 }' | sort -u >"$tmp/props.reg"
same_list "the properties the code looks up are exactly the registry's" "$tmp/props.read" "$tmp/props.reg" code registry
# the values of each property with a word list: page and registry agree
"$REGISTRY" | awk '$1 == "property" && $3 !~ /^list:/ && $3 !~ /\.\./ { print $2, $3 }' | while read -r name words; do
        echo "$name = $(echo "$words" | canon)"
done | sort >"$tmp/values.reg"
section "$HWDB7" PROPERTIES | awk '
        /^\.SS/ { exit }
        /^\.TP/ { tp = 1; next }
        tp && /^\.B (IDLECFG|ID)_[A-Z0-9_]+=/ { s = $0; sub(/^\.B /, "", s); print s }
        { tp = 0 }' | while IFS='=' read -r name values; do
        echo "$name = $(echo "$values" | canon)"
done | sort >"$tmp/values.doc"
same_list "idlecfg-hwdb(7) gives every property the values of the registry" "$tmp/values.reg" "$tmp/values.doc" \
        registry page
# the companions the planner builds ("%s_REASON") and the ones documented
grep -o '"%s_[A-Z_]*"' "$top_srcdir/src/knobs/knob.c" | sed 's/"%s\(_[A-Z_]*\)"/\1/' | sort -u >"$tmp/comp.code"
plain "$HWDB7" | awk '
        /^\.SS Companions/ { on = 1; next }
        /^\.S[SH]/ { on = 0 }
        on && /^\.TP/ { tp = 1; next }
        on && tp && /^\.IB P _[A-Z_]+=/ { print $3 } { tp = 0 }' | sed 's/=.*//' | sort -u >"$tmp/comp.doc"
same_list "idlecfg-hwdb(7) documents the _REASON/_KERNEL/_BIOS_DATE companions the planner looks up, and no other" \
        "$tmp/comp.code" "$tmp/comp.doc" code page
# every property of the shipped database is mentioned, read or not
grep -h '^ [A-Z][A-Z0-9_]*=' "$top_srcdir"/hwdb/*.hwdb | sed 's/^ //; s/=.*//; s/_\(REASON\|KERNEL\|BIOS_DATE\)$//' | sort -u |
        while read -r p; do plain "$HWDB7" | grep -q -- "$p" || echo "$p"; done >"$tmp/props.shipped"
check "idlecfg-hwdb(7) mentions every property of hwdb/*.hwdb" test ! -s "$tmp/props.shipped"
[ -s "$tmp/props.shipped" ] && diag "not in the page: $(cat "$tmp/props.shipped")"
# the keys idlecfg composes itself (no modalias): "usb:v%s...", "idlecfg-ata:%s..."
keys=$(cd "$top_srcdir" && grep -ho 'xasprintf("[a-z][a-z-]*:v\{0,1\}%s' src/*/*.c |
        sed 's/xasprintf("//; s/%s$//' | sort -u)
missing=
for k in $keys; do
        section "$HWDB7" "MATCH KEYS" | grep -q "^\.BI $k" || missing="$missing $k"
done
check "idlecfg-hwdb(7) MATCH KEYS has every key the code composes ($(echo $keys))" \
        sh -c "test -n '$keys' && test -z '$missing'"
[ -n "$missing" ] && diag "missing:$missing"
# the directories the code reads (none found: the code moved, and this check with it)
missing=
hwdb_dirs=$(grep -o '"/[a-z/.]*hwdb\.d"' "$top_srcdir/src/db/hwdb-load.c" | tr -d '"')
profile_files=$(cat "$top_srcdir/src/db/profile-search.c" "$top_srcdir/src/db/profile-select.c" |
        grep -o '"/etc/idlecfg/[a-z.]*"\|"/usr/share/idlecfg/[a-z]*"' | tr -d '"' | sort -u)
for d in $hwdb_dirs; do
        section "$HWDB7" "FILES AND PRIORITY" | grep -q -- "$d" || missing="$missing $d"
done
for d in $profile_files; do
        { plain "$PROFILE5"; plain "$CONF5"; } | grep -q -- "$d" || missing="$missing $d"
done
check "the pages name the directories and files src/db/hwdb-load.c, src/db/profile-search.c and src/db/profile-select.c read" \
        sh -c "test -n '$(echo $hwdb_dirs)' && test -n '$(echo $profile_files)' && test -z '$missing'"
[ -n "$missing" ] && diag "missing:$missing"

# the files install writes (src/engine/install.h) are in idlecfg(8) FILES; the
# sysctl keys the registry lets an emitter write are named in idlecfg-profile(5)
missing=
for f in $(sed -n 's/^#define [A-Z_]*_PATH "\(\/etc\/[^"]*\)"$/\1/p' "$top_srcdir/src/engine/install.h"); do
        section "$MAN/idlecfg.8" FILES | grep -q -- "$f" || missing="$missing $f"
done
keys=$("$REGISTRY" | awk '$1 == "sysctl" { print $2 }')
for k in $keys; do
        section "$PROFILE5" KEYS | grep -q -- "$k" || missing="$missing $k"
done
check "idlecfg(8) FILES names every file install writes; idlecfg-profile(5) every sysctl key ($(echo $keys))" \
        sh -c "test -n '$keys' && test -z '$missing'"
[ -n "$missing" ] && diag "missing:$missing"

# ---- the OPTIONS table of idlecfg(8): a row for every verb of --help, with
# the options 'idlecfg help VERB' lists (besides the four every verb takes) ----
rows=$(section "$MAN/idlecfg.8" OPTIONS | awk '
        /^\.TS/ { ts = 1; next } /^\.TE/ { ts = 0 }
        ts && /\tT\{$/ { v = $0; sub(/\t.*/, "", v); next }
        ts && v != "" && /^T}/ { v = ""; next }
        ts && v != "" { print v " " $0 }')
bad=
for v in $("$IDLECFG" --help | sed -n '/^Verbs:/,/^$/s/^  \([a-z-]*\) .*/\1/p'); do
        [ "$v" = help ] && continue
        want=$("$IDLECFG" help "$v" | sed -n '/^Options:/,/^$/s/^  \(-[a-zA-Z], \|    \)\(--[a-z-]*\).*/\2/p' |
                grep -vx -e --root -e --verbose -e --help -e --version | LC_ALL=C sort | paste -sd' ' -)
        row=$(echo "$rows" | awk -v v="$v" '$1 == v { $1 = ""; print }' | tr ' ' '\n' | grep . | LC_ALL=C sort | paste -sd' ' -)
        echo "$rows" | awk -v v="$v" '$1 == v { f = 1 } END { exit !f }' || { bad="$bad $v(no row)"; continue; }
        [ "$row" = "$want" ] || bad="$bad $v(row: $row; help: $want)"
done
check "idlecfg(8) OPTIONS: a row for every verb, power-source's too, with the options its help lists" \
        sh -c "test -n '$rows' && test -z '$bad'"
[ -n "$bad" ] && diag "$bad"

# ---- idlecfg(8) OTHER POWER TOOLS: a tuned profile that keeps tuned beside
# idlecfg (tuned's plugins for the knobs both set, turned off with
# enabled=false), and the tools for what idlecfg leaves alone ----
opt=$(section "$MAN/idlecfg.8" "OTHER POWER TOOLS")
bad=
for w in '^include=balanced$' '^\[scsi_host\]$' '^\[audio\]$' '^\[usb\]$' '^enabled=false$' 'tuned-adm' \
        '/etc/tuned/ppd.conf' 'governor, energy preference (EPP) and turbo' 'power-profiles-daemon' \
        'START_CHARGE_THRESH_BAT0' 'disk spindown' 'hdparm' 'udisks2'; do
        echo "$opt" | grep -q -- "$w" || bad="$bad $w"
done
[ "$(echo "$opt" | grep -c '^enabled=false$')" -eq 3 ] || bad="$bad enabled=false(3 times)"
check "idlecfg(8) OTHER POWER TOOLS: the tuned profile beside idlecfg, the tools for CPU, battery and disks" test -z "$bad"
[ -n "$bad" ] && diag "missing:$bad"

# ---- installed, and pointing at each other ----

pages="idlecfg.8 idlecfg.conf.5 idlecfg-profile.5 idlecfg-hwdb.7"
installed=$(sed -n '/^dist_man_MANS *=/,/[^\\]$/p' "$top_srcdir/Makefile.am" | tr -s ' \t\\' '\n\n\n' | grep '^src/' | sort)
present=$(cd "$top_srcdir" && ls src/man/*.[1-8] | sort)
check "Makefile.am installs every man page in src/man/ (dist_man_MANS)" \
        sh -c "test -n '$present' && test '$(echo $installed)' = '$(echo $present)'"
[ "$(echo $installed)" = "$(echo $present)" ] || diag "dist_man_MANS: $(echo $installed)" "src: $(echo $present)"
for page in $pages; do
        missing=
        see=$(section "$MAN/$page" "SEE ALSO")
        for other in $pages; do
                [ "$other" = "$page" ] && continue
                name=${other%.*} num=${other##*.}
                echo "$see" | grep -q "^\.BR $name ($num)" || missing="$missing $name($num)"
        done
        check "$page: SEE ALSO names the other idlecfg pages" test -z "$missing"
        [ -n "$missing" ] && diag "missing:$missing"
done
# every page names itself in .TH and NAME as its file name says
bad=
for page in $pages; do
        name=${page%.*} num=${page##*.}
        th=$(plain "$MAN/$page" | sed -n 's/^\.TH \([^ ]*\) \([0-9]\) .*/\1 \2/p')
        up=$(echo "$name" | tr a-z A-Z)
        [ "$th" = "$up $num" ] || bad="$bad $page(.TH $th)"
        section "$MAN/$page" NAME | grep -q "^$name - " || bad="$bad $page(NAME)"
done
check "every page's .TH and NAME match its file name" test -z "$bad"
[ -n "$bad" ] && diag "$bad"
done_testing
