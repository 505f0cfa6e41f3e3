#!/bin/sh
# tests/hwdb.sh: our hwdb reader against systemd-hwdb (the oracle) on the same roots
. "$top_srcdir/tests/lib.sh"
need systemd-hwdb
SYSTEMD_HWDB=$(PATH=$PATH:/sbin:/usr/sbin command -v systemd-hwdb)
HWDB_QUERY=${HWDB_QUERY:-$top_builddir/tests/hwdb-query}
[ -x "$HWDB_QUERY" ] || skip_all "$HWDB_QUERY not built"
DATA=$TESTS_DATA/hwdb
SYSTEM_HWDB=${IDLECFG_SYSTEM_HWDB:-/usr/lib/udev/hwdb.d}
plan 15

# A merged-/usr root (lib -> usr/lib): Debian's systemd 252 reads
# ROOT/lib/udev/hwdb.d and ROOT/etc/udev/hwdb.d, we read /usr/lib too.
mkhwroot() {
        mkdir -p "$1/usr/lib/udev/hwdb.d" "$1/etc/udev/hwdb.d"
        ln -s usr/lib "$1/lib"
}

# Modaliases of recorded devices: E: MODALIAS= lines, and for usb_device
# nodes (which have none) the key udev's hwdb builtin composes in v252:
# usb:v%04Xp%04X:%s from idVendor, idProduct and product (may be empty).
# umockdev escapes bytes as \NNN octal and keeps a newline as \n.
recorded_modaliases() {
        awk '
        function unescape(s,    out, i, c) {
                sub(/(\\n)+$/, "", s)
                out = ""
                for (i = 1; i <= length(s); i++) {
                        c = substr(s, i, 1)
                        if (c == "\\" && substr(s, i + 1, 3) ~ /^[0-3][0-7][0-7]$/) {
                                c = sprintf("%c", (substr(s, i + 1, 1) * 64) + (substr(s, i + 2, 1) * 8) + substr(s, i + 3, 1))
                                i += 3
                        } else if (c == "\\" && substr(s, i + 1, 1) == "\\") {
                                i++
                        }
                        out = out c
                }
                return out
        }
        function hex4(s) {
                s = toupper(unescape(s))
                while (length(s) < 4)
                        s = "0" s
                return s
        }
        function flush() {
                if (modalias != "")
                        print modalias
                else if (subsystem == "usb" && devtype == "usb_device" && vendor != "" && product_id != "")
                        printf "usb:v%sp%s:%s\n", hex4(vendor), hex4(product_id), unescape(product)
                modalias = subsystem = devtype = vendor = product_id = product = ""
        }
        /^P: / { flush() }
        /^E: MODALIAS=/ { modalias = substr($0, 13) }
        /^E: SUBSYSTEM=/ { subsystem = substr($0, 14) }
        /^E: DEVTYPE=/ { devtype = substr($0, 12) }
        /^A: idVendor=/ { vendor = substr($0, 13) }
        /^A: idProduct=/ { product_id = substr($0, 14) }
        /^A: product=/ { product = substr($0, 12) }
        END { flush() }
        ' "$@"
}

# answers ROOT LIST OUT: systemd-hwdb's answers in hwdb-query -f's format
answers() {
        while IFS= read -r _m; do
                printf '# %s\n' "$_m"
                "$SYSTEMD_HWDB" --root "$1" query "$_m"
        done <"$2" >"$3"
}

# agree DESC ROOT LIST: one test point, ours and systemd's answers identical
agree() {
        _desc=$1 _root=$2 _list=$3
        if ! "$SYSTEMD_HWDB" --root "$_root" update >"$tmp/update.log" 2>&1; then
                not_ok "$_desc (systemd-hwdb update failed)"
                diag "$(cat "$tmp/update.log")"
                return
        fi
        answers "$_root" "$_list" "$tmp/expected"
        if ! "$HWDB_QUERY" -f "$_list" "$_root" >"$tmp/actual" 2>"$tmp/actual.err"; then
                not_ok "$_desc (hwdb-query failed)"
                diag "$(cat "$tmp/actual.err")"
        elif diff -u "$tmp/expected" "$tmp/actual" >"$tmp/agree.diff"; then
                ok "$_desc: $(wc -l <"$_list") modaliases, $(grep -vc '^# ' "$tmp/expected") properties"
        else
                not_ok "$_desc"
                diag "$(head -n 60 "$tmp/agree.diff")"
        fi
}

# The planner loads the hwdb with only the keys it reads (planner_hwdb_keys in
# src/knobs/knob.c): files that mention none are skipped unparsed, records that
# set none are dropped. For those keys the answers must be exactly the full
# load's, with file, line and match (fnmatch precedence among what is kept).
KEYS=$(sed -n '/planner_hwdb_keys\[\] = {/{s/.*{ *//; s/, *NULL.*//; s/"//g; s/, */,/g; p}' \
        "$top_srcdir/src/knobs/knob.c")
# filtered DESC ROOT LIST: one test point
filtered() {
        _desc=$1 _root=$2 _list=$3
        "$HWDB_QUERY" --sources -f "$_list" "$_root" | awk -v keys="$KEYS" '
                BEGIN { n = split(keys, k, ",") }
                /^# / { print; next }
                { for (i = 1; i <= n; i++) if (index($0, k[i]) == 1) { print; next } }' >"$tmp/full.keys"
        if ! "$HWDB_QUERY" --sources --keys "$KEYS" -f "$_list" "$_root" >"$tmp/filtered" 2>"$tmp/filtered.err"; then
                not_ok "$_desc (hwdb-query --keys failed)"
                diag "$(cat "$tmp/filtered.err")"
        elif [ -z "$KEYS" ] || ! grep -qv '^# ' "$tmp/full.keys"; then
                not_ok "$_desc (no keys ($KEYS) or no answer for them: the comparison would prove nothing)"
        elif diff -u "$tmp/full.keys" "$tmp/filtered" >"$tmp/filtered.diff"; then
                ok "$_desc: $(grep -vc '^# ' "$tmp/filtered") answers for $KEYS"
        else
                not_ok "$_desc"
                diag "$(head -n 40 "$tmp/filtered.diff")"
        fi
}

# every hwdb property src/knobs asks for starts with one of the keys
unread=$(grep -ho '"\(IDLECFG\|ID\)_[A-Z0-9_]*"' "$top_srcdir"/src/knobs/*.c | tr -d '"' | sort -u |
        awk -v keys="$KEYS" 'BEGIN { n = split(keys, k, ",") }
                { for (i = 1; i <= n; i++) if (index($0, k[i]) == 1) next; print }')
if [ -n "$KEYS" ] && [ -z "$unread" ]; then
        ok "every hwdb property in src/knobs starts with one of the planner's keys ($KEYS)"
else
        not_ok "every hwdb property in src/knobs starts with one of the planner's keys ($KEYS)"
        diag "not covered: $unread"
fi

# a key cut by the 64 KiB chunks of the skip scan is still found
cut=$tmp/cut
mkhwroot "$cut"
awk 'BEGIN { x = "#"; while (length(x) < 65525) x = x "x"; printf "%s\nkey:a\n IDLECFG_X=1\n", x }' \
        >"$cut/usr/lib/udev/hwdb.d/10-cut.hwdb"
check "a key across the 64 KiB boundary of the skip scan is read" \
        sh -c '[ "$("$1" --keys IDLECFG_ "$2" key:a)" = IDLECFG_X=1 ]' sh "$HWDB_QUERY" "$cut"
# the scan tests 16 positions at a time for two bytes of each key: a key in
# the last positions of a file (no final newline), and keys that do not share
# their first byte, are found too
tail=$tmp/tail
mkhwroot "$tail"
awk 'BEGIN { x = "#"; while (length(x) < 300) x = x "x"; printf "%s\nkey:a\n IDLECFG_X=1", x }' \
        >"$tail/usr/lib/udev/hwdb.d/10-tail.hwdb"
printf 'key:b\n ID_PERSIST=1\n' >"$tail/usr/lib/udev/hwdb.d/20-persist.hwdb"
check "the skip scan finds a key at the very end of a file, and keys with different first bytes" \
        sh -c '[ "$("$1" --keys IDLECFG_ "$2" key:a)" = IDLECFG_X=1 ] &&
               [ "$("$1" --keys XX_,IDLECFG_ "$2" key:a)" = IDLECFG_X=1 ] &&
               [ "$("$1" --keys ZZZZZZZZZZZZ,ID_PERSIST "$2" key:b)" = ID_PERSIST=1 ] &&
               [ -z "$("$1" --keys ID_PERSISTENT "$2" key:b)" ]' sh "$HWDB_QUERY" "$tail"

# the modaliases to ask: the hand-written list and every recorded machine
list=$tmp/modaliases
{
        cat "$DATA/modaliases.txt"
        for _f in "$TESTS_DATA"/machines/*/machine.umockdev; do
                [ -f "$_f" ] && recorded_modaliases "$_f"
        done
        if [ -d "$FIXTURES/recordings" ]; then
                find "$FIXTURES/recordings" -type f | LC_ALL=C sort | while IFS= read -r _f; do
                        recorded_modaliases "$_f"
                done
        fi
} | awk '!seen[$0]++' >"$list"

# 1-2: the good test data is clean for systemd --strict (which in v252 only
# fails on unreadable files, so its warnings must be empty too) and for us
good=$tmp/good
mkhwroot "$good"
cp "$DATA"/*.hwdb "$good/usr/lib/udev/hwdb.d/"
cp "$DATA"/etc/*.hwdb "$good/etc/udev/hwdb.d/"
"$SYSTEMD_HWDB" --strict --root "$good" update >"$tmp/strict.log" 2>&1; rc=$?
if [ "$rc" -eq 0 ] && [ ! -s "$tmp/strict.log" ]; then
        ok "systemd-hwdb --strict accepts tests/data/hwdb without a warning"
else
        not_ok "systemd-hwdb --strict accepts tests/data/hwdb without a warning (exit $rc)"
        diag "$(cat "$tmp/strict.log")"
fi
check "our strict load accepts tests/data/hwdb" "$HWDB_QUERY" --strict "$good"

# 3: test data, idlecfg's own database, and systemd's autosuspend lists
cp "$top_srcdir"/hwdb/*.hwdb "$good/usr/lib/udev/hwdb.d/"
if [ -d "$FIXTURES/hwdb" ]; then
        cp "$FIXTURES"/hwdb/*.hwdb "$good/usr/lib/udev/hwdb.d/"
        what="test data, hwdb/ and $(ls "$FIXTURES"/hwdb/*.hwdb | wc -l) fixture hwdb files"
elif [ -n "$AUTOSUSPEND_HWDB" ]; then
        cp "$AUTOSUSPEND_HWDB"/60-autosuspend*.hwdb "$good/usr/lib/udev/hwdb.d/"
        what="test data, hwdb/ and systemd's autosuspend lists from $AUTOSUSPEND_HWDB (no fixture hwdb files in $FIXTURES/hwdb)"
else
        what="test data and hwdb/ (no fixture hwdb files in $FIXTURES/hwdb, no systemd autosuspend lists on this system)"
fi
agree "same answers as systemd-hwdb: $what" "$good" "$list"
filtered "the planner's keys only: the same answers ($what)" "$good" "$list"

# 4-6: malformed files: the same warnings as systemd (ours has one more kind,
# a key after a tab, which systemd drops silently), the same answers, and a
# strict load stops at the line the file says
bad=$tmp/bad
mkhwroot "$bad"
cp "$DATA"/*.hwdb "$DATA"/bad/*.hwdb "$bad/usr/lib/udev/hwdb.d/"
cp "$DATA"/etc/*.hwdb "$bad/etc/udev/hwdb.d/"
"$SYSTEMD_HWDB" --root "$bad" update 2>&1 | sed "s|^$bad||" >"$tmp/warn.expected"
"$HWDB_QUERY" --warnings "$bad" 2>&1 | grep -v 'is preceded by a tab' >"$tmp/warn.actual"
if [ -s "$tmp/warn.expected" ] && diff -u "$tmp/warn.expected" "$tmp/warn.actual" >"$tmp/warn.diff"; then
        ok "malformed files: the same $(wc -l <"$tmp/warn.expected") warnings, file:line, as systemd-hwdb"
else
        not_ok "malformed files: the same warnings as systemd-hwdb"
        diag "$(cat "$tmp/warn.diff")"
fi
agree "malformed files: same answers as systemd-hwdb" "$bad" "$list"

fails=
for f in "$DATA"/bad/*.hwdb; do
        name=${f##*/}
        line=$(sed -n 's/^# expect-strict: \([0-9]*\)$/\1/p' "$f")
        one=$tmp/one-$name
        mkdir -p "$one/usr/lib/udev/hwdb.d"
        cp "$f" "$one/usr/lib/udev/hwdb.d/"
        if "$HWDB_QUERY" --strict "$one" >/dev/null 2>"$tmp/one.err" ||
                ! grep -q "^hwdb-query: /usr/lib/udev/hwdb.d/$name:$line: " "$tmp/one.err"; then
                fails="$fails $name(want line ${line:-?}: $(cat "$tmp/one.err"))"
        fi
done
if [ -z "$fails" ]; then ok "each file in bad/ fails a strict load at its expect-strict line"; else
        not_ok "each file in bad/ fails a strict load at its expect-strict line"; diag "$fails"; fi

# 7-8: CRLF line ends and no final newline give the same answers as LF
lf=$tmp/lf
crlf=$tmp/crlf
mkhwroot "$lf"
mkhwroot "$crlf"
cp "$DATA"/*.hwdb "$lf/usr/lib/udev/hwdb.d/"
cp "$DATA"/etc/*.hwdb "$lf/etc/udev/hwdb.d/"
for f in "$DATA"/*.hwdb; do
        sed 's/$/\r/' "$f" >"$crlf/usr/lib/udev/hwdb.d/${f##*/}"
done
for f in "$DATA"/etc/*.hwdb; do
        printf '%s' "$(cat "$f")" >"$crlf/etc/udev/hwdb.d/${f##*/}"
done
"$HWDB_QUERY" -f "$DATA/modaliases.txt" "$lf" >"$tmp/lf.out" 2>&1
"$HWDB_QUERY" -f "$DATA/modaliases.txt" "$crlf" >"$tmp/crlf.out" 2>&1
check "CRLF files, files without a final newline: the same answers as LF" cmp "$tmp/lf.out" "$tmp/crlf.out"
agree "CRLF files: same answers as systemd-hwdb" "$crlf" "$DATA/modaliases.txt"

# 9: the longest line systemd reads is 1048575 bytes; a longer one ends its file
long=$tmp/long
mkhwroot "$long"
awk 'BEGIN {
        x = "x"; while (length(x) < 1048600) x = x x
        printf "long:a*\n K_A=1\n\nlong:b*\n L=%s=1\n K_B=2\n", substr(x, 1, 1048575 - 5)
}' >"$long/usr/lib/udev/hwdb.d/10-fits.hwdb"
awk 'BEGIN {
        x = "x"; while (length(x) < 1048600) x = x x
        printf "long:c*\n K_C=1\n L=%s=1\n K_D=2\n\nlong:d*\n K_E=3\n", substr(x, 1, 1048576 - 5)
}' >"$long/usr/lib/udev/hwdb.d/20-too-long.hwdb"
printf 'long:*\n K_ALL=1\n' >"$long/usr/lib/udev/hwdb.d/30-after.hwdb"
printf 'long:a\nlong:b\nlong:c\nlong:d\n' >"$tmp/long.list"
agree "1048575-byte line read, 1048576 bytes end the file, like systemd-hwdb" "$long" "$tmp/long.list"

# 10: this system's hwdb.d (read only, copied): its match lines made into
# modaliases ('*' as nothing and as "X", '?' as 0, a set as its first byte)
if ls "$SYSTEM_HWDB"/*.hwdb >/dev/null 2>&1; then
        sys=$tmp/system
        mkhwroot "$sys"
        cp "$SYSTEM_HWDB"/*.hwdb "$sys/usr/lib/udev/hwdb.d/"
        cat "$sys"/usr/lib/udev/hwdb.d/*.hwdb | grep -a '^[^ #]' | sed 's/[[:space:]]*#.*//' |
                awk 'NR % 179 == 1' | while IFS= read -r p; do
                for star in "" X; do
                        printf '%s\n' "$p" | sed -e "s/\\*/$star/g" -e 's/?/0/g' -e 's/\[!*\(.\)[^]]*\]/\1/g'
                done
        done | awk '!seen[$0]++' >"$tmp/system.list"
        cat "$list" >>"$tmp/system.list"
        agree "same answers as systemd-hwdb on a copy of $SYSTEM_HWDB" "$sys" "$tmp/system.list"
        # the same root with idlecfg's database and the test data, asked for
        # every match line of the files that mention a key (precedence among
        # the kept records across systemd's files and ours)
        cp "$top_srcdir"/hwdb/*.hwdb "$DATA"/*.hwdb "$sys/usr/lib/udev/hwdb.d/"
        grep -l -e "$(printf '%s' "$KEYS" | sed 's/,/\\|/g')" "$sys"/usr/lib/udev/hwdb.d/*.hwdb | xargs cat |
                grep -a '^[^ #]' | sed 's/[[:space:]]*#.*//' | while IFS= read -r p; do
                for star in "" X; do
                        printf '%s\n' "$p" | sed -e "s/\\*/$star/g" -e 's/?/0/g' -e 's/\[!*\(.\)[^]]*\]/\1/g'
                done
        done | awk '!seen[$0]++' >>"$tmp/system.list"
        filtered "the planner's keys only: the same answers on $SYSTEM_HWDB, hwdb/ and the test data" \
                "$sys" "$tmp/system.list"
else
        skip "no $SYSTEM_HWDB on this system"
        skip "the planner's keys only on $SYSTEM_HWDB: no $SYSTEM_HWDB"
fi
done_testing
