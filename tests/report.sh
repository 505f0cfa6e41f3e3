#!/bin/sh
# tests/report.sh: idlecfg report on recorded machines: the JSON and the
# HTML page, the privacy rules (a held-out laptop recording, amd-laptop,
# with every unit identity set to a unique value by tests/report-plant.py:
# none may appear), --symptom, --output and --show, a measurement, and the
# page rendered by headless Chromium with its charts in the screenshot.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod python3
PATH=$PATH:/sbin:/usr/sbin
plan 23

# j FILE EXPR: EXPR holds for the JSON of FILE (d); a program, for sh -c too
cat >"$tmp/j" <<'PY'
#!/usr/bin/env python3
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
chmod +x "$tmp/j"
j() { "$tmp/j" "$@"; }

# the held-out laptop: planted serials, MACs, NQNs, DMI serials and UUIDs
held=$tmp/held-out
mkdir -p "$held"
cp -R "$TESTS_DATA/machines/amd-laptop/." "$held/"
python3 "$top_srcdir/tests/report-plant.py" "$TESTS_DATA/machines/amd-laptop/machine.umockdev" \
        "$held/machine.umockdev" "$tmp/secrets"
root=$tmp/root
mkroot_installed "$held" "$root" || { echo "Bail out! no root"; exit 1; }
echo 4c6f6e67206c69766520746865207465 >"$root/etc/machine-id"
echo alice-laptop-7731 >"$root/etc/hostname"
printf 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\n' >"$root/etc/os-release"
# the profiles from a user's home directory: its name must not appear either
profiles=$tmp/home/alice7731/profiles
mkdir -p "$profiles"
cp "$top_srcdir"/profiles/*.profile "$profiles/"
ic() { run_machine "$held" "$IDLECFG" --root "$root" --kernel "$KVER" --profiles-dir "$profiles" "$@"; }

ic report >"$tmp/r.json" 2>"$tmp/r.err"
check "report: JSON with the schema, the model key and the distribution" j "$tmp/r.json" \
        "d['schema'] == 'idlecfg-report/1' and len(d['model']['key']) == 36 and d['distribution']['id'] == 'debian' \
         and d['kernel']['release'] == '$KVER' and d['profile']"
check "report: every device with its identity, every setting with its reason" j "$tmp/r.json" \
        "len(d['devices']) > 20 and all(x['ids'] for x in d['devices'] if x['class'] == 'pci') \
         and d['settings'] and all(s['reason'] for s in d['settings'])"
ic report --format html >"$tmp/r.html" 2>>"$tmp/r.err"
test "$(wc -l <"$tmp/secrets")" -ge 20 || { echo "Bail out! planted too little"; exit 1; }
# every planted identity, the recording's UUIDs, the host name and the root's path
leaks() {
        { cat "$tmp/secrets"; echo alice-laptop-7731; echo alice7731; echo "$root"; } | while read -r s; do
                if grep -qiF -- "$s" "$1"; then echo "$1 holds $s"; fi
        done | grep . && return 1
        return 0
}
check "report JSON: none of the held-out recording's $(wc -l <"$tmp/secrets") serials, MACs, NQNs or UUIDs, no host or user name" \
        leaks "$tmp/r.json"
check "report HTML: none of them either" leaks "$tmp/r.html"
check "report HTML: the model key and the installation key, as in the JSON" sh -c "
        for k in \$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d[\"model\"][\"key\"], d[\"install_key\"])' '$tmp/r.json'); do
                grep -qF \"\$k\" '$tmp/r.html' || { echo \"no \$k\"; exit 1; }
        done"
check "report: a 32-digit installation key, made from /etc/machine-id without showing it" sh -c "
        '$tmp/j' '$tmp/r.json' \"len(d['install_key']) == 32\" && ! grep -q 4c6f6e67206c69766520746865207465 '$tmp/r.json'"
# the same machine with another machine ID: another key, the same model key
echo 00112233445566778899aabbccddeeff >"$root/etc/machine-id"
ic report >"$tmp/r2.json" 2>/dev/null
check "report: another installation gets another key, the model key stays" python3 -c "
import json; a = json.load(open('$tmp/r.json')); b = json.load(open('$tmp/r2.json'))
assert a['install_key'] != b['install_key'], 'same key'
assert a['model']['key'] == b['model']['key'], 'model key moved'"
rm "$root/etc/machine-id"
ic report >"$tmp/r3.json" 2>/dev/null
check "report: no machine ID, no key, and the note says why" j "$tmp/r3.json" \
        "d['install_key'] is None and 'machine-id' in d['install_key_note']"
echo 4c6f6e67206c69766520746865207465 >"$root/etc/machine-id"

# --symptom: a device the machine has (a PCI name holds colons itself), or an error naming it
dev=$(python3 -c "import json; print([x['name'] for x in json.load(open('$tmp/r.json'))['devices'] if x['class']=='pci'][1])")
ic report --symptom "$dev:screen flickers after resume" >"$tmp/s.json" 2>"$tmp/s.err"
check "report --symptom $dev:TEXT: the device and the text" j "$tmp/s.json" \
        "d['symptoms'] == [{'device': '$dev', 'text': 'screen flickers after resume'}]"
ic report --symptom "9999:00:00.0:hangs" >"$tmp/s2.out" 2>"$tmp/s2.err"
rc=$?
check "report --symptom with a device the machine lacks: exit 2, the message names it" sh -c \
        "[ $rc -eq 2 ] && grep -q '9999:00:00.0:hangs: no such device' '$tmp/s2.err' && ! [ -s '$tmp/s2.out' ]"

# --output writes the file atomically; --show prints it and writes nothing
ic report --format html --output "$tmp/out.html" >"$tmp/o.out" 2>&1
check "report --output FILE: the page written, and the words that idlecfg sent nothing" sh -c \
        "cmp -s '$tmp/out.html' '$tmp/r.html' || diff '$tmp/out.html' '$tmp/r.html' | head -5; \
         grep -q '^<!DOCTYPE html>' '$tmp/out.html' && grep -q 'sent nothing' '$tmp/o.out'"
ic report --output "$tmp/shown.json" --show >"$tmp/shown.out" 2>"$tmp/shown.err"
check "report --output FILE --show: exactly what would be written, on stdout; FILE not written" sh -c \
        "! [ -e '$tmp/shown.json' ] && cmp -s '$tmp/shown.out' '$tmp/r.json' && grep -q 'not written' '$tmp/shown.err'"
ic report --format pdf >/dev/null 2>"$tmp/f.err"
rc=$?
check "report --format pdf: exit 2 naming the valid formats" sh -c "[ $rc -eq 2 ] && grep -q 'json, html' '$tmp/f.err'"

# a measurement: per-device runtime-suspended time, and watts said absent where there is none
ic report --seconds 1 >"$tmp/m.json" 2>"$tmp/m.err"
check "report --seconds 1: a measurement with each device's suspended and active time" j "$tmp/m.json" \
        "d['measurement'] and d['measurement']['devices'] and \
         all('suspended_ms' in x for x in d['measurement']['devices'])"
check "report --seconds 1: the measurement carries the floor, with the fields of idlecfg(8)'s REPORT JSON" j "$tmp/m.json" \
        "(set(d['measurement']['floor']) == {'source', 'deepest', 'deepest_from', 'reached', 'reached_percent', 'above',
                                             'watts', 's0i3_us', 'holders'} and
          d['measurement']['floor']['source'] in ('cstate_pkg', 'lpit', 'watts', 'none') and
          all(set(h) == {'rank', 'kind', 'device', 'subsystem', 'knob', 'reason'} and h['reason']
              for h in d['measurement']['floor']['holders']))"
ic report --seconds 1 --format html >"$tmp/m.html" 2>>"$tmp/m.err"
check "report --seconds 1 --format html: the page has the floor and says what is not measurable" sh -c \
        "grep -q '<h2>Package idle floor</h2>' '$tmp/m.html' && grep -q '<th>deepest offered</th>' '$tmp/m.html'"
check "report without --seconds: measurement null, and the page says how to measure" sh -c \
        "'$tmp/j' '$tmp/r.json' \"d['measurement'] is None\" && grep -q 'report --seconds N' '$tmp/r.html'"

# what apply --measure kept per setting (state/measured.h): read back, with
# the planted identities and the user's home where a record could carry them
mkdir -p "$root/var/lib/idlecfg"
cat >"$root/var/lib/idlecfg/measured" <<EOF
idlecfg-measured 1
measured 1796601600 $KVER 0123456789abcdef powersave
residency
watts 4200 3100 /home/alice7731/BAT1
setting pci.runtime_pm 0000:00:08.1 on auto runtime_suspended_time 0 100000
setting net.wol enx025e11220007 g d not_measurable
setting sata.link_power host0 $(sed -n '/^[0-9a-f]\{8\}-/{p;q}' "$tmp/secrets") $root/etc/x not_measurable
setting sata.link_power host1 max\x20performance runtime_suspended_time 12 percent
EOF
ic report >"$tmp/rec.json" 2>"$tmp/rec.err"; rc=$?
ic report --format html >"$tmp/rec.html" 2>/dev/null
check "report with a record of apply --measure: exit 0, settings_measured per setting, other hardware said" sh -c "
        [ $rc -eq 0 ] && '$tmp/j' '$tmp/rec.json' \"(d['settings_measured']['note'].startswith('measured on other hardware') and
         d['settings_measured']['same_kernel'] and not d['settings_measured']['same_hardware'] and
         d['settings_measured']['measured_at'] == '2026-12-07T00:00:00Z' and
         [x['result'] for x in d['settings_measured']['settings']] == ['gained', 'not measurable here', 'not measurable here'] and
         d['settings_measured']['settings'][0]['change_points'] == 100 and d['settings_measured']['settings'][1]['device'] is None and
         d['settings_measured']['machine']['residency_note'] == 'not measurable here' and d['settings_measured']['machine']['watts_after'] == 3.1)\" &&
        grep -q '<strong>measured on other hardware' '$tmp/rec.html'"
check "... a malformed setting line: a warning naming file and line, left out, the rest reported" sh -c "
        grep -q 'var/lib/idlecfg/measured:8: not a measured setting' '$tmp/rec.err' &&
        '$tmp/j' '$tmp/rec.json' \"d['settings_measured']['left_out'] == 1\""
check "... none of the planted identities, the home directory or the root in the section (JSON, HTML)" sh -c "
        for f in '$tmp/rec.json' '$tmp/rec.html'; do
                { cat '$tmp/secrets'; echo alice7731; echo 025e11220007; echo '$root'; } | while read -r s; do
                        if grep -qiF -- \"\$s\" \"\$f\"; then echo \"\$f holds \$s\"; fi
                done | grep . && exit 1
        done; '$tmp/j' '$tmp/rec.json' \"'/home/' in d['settings_measured']['machine']['watts_from']\""
echo 'idlecfg-measured 7' >"$root/var/lib/idlecfg/measured"
ic report >"$tmp/rec2.json" 2>"$tmp/rec2.err"; rc=$?
check "a record that is not one: a warning with file and line, the report goes on without it" sh -c "
        [ $rc -eq 0 ] && grep -q 'var/lib/idlecfg/measured:1: measurement record format 7 is not known' '$tmp/rec2.err' &&
        '$tmp/j' '$tmp/rec2.json' \"d['settings_measured']['note'].startswith('left out') and 'settings' not in d['settings_measured']\""
rm -r "$root/var/lib/idlecfg"

# the page in a real browser: no request leaves it, and the charts are drawn
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
        skip "report HTML in headless Chromium: its screenshot shows the device chart" "chromium not installed"
        skip "report HTML: no script, no font or image from the network" "chromium not installed"
else
        HOME=$tmp timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
                --disable-background-networking --disable-component-update --disable-sync \
                --user-data-dir="$tmp/chromium" --window-size=1000,900 --screenshot="$tmp/shot.png" \
                "file://$tmp/r.html" >"$tmp/chromium.log" 2>&1
        [ -z "${IDLECFG_KEEP_SCREENSHOT:-}" ] || cp "$tmp/shot.png" "$IDLECFG_KEEP_SCREENSHOT"
        check "report HTML in headless Chromium: its screenshot shows the device chart's bars" python3 - "$tmp/shot.png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w, h = 8, b"", 0, 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, colour = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and colour in (2, 6), "unexpected PNG format"
        bpp = 3 if colour == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
green = amber = 0
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        px = tuple(line[x:x + 3])
        if px == (0x2e, 0x7d, 0x32): green += 1
        if px == (0xf9, 0xa8, 0x25): amber += 1
    prev = line
print("green", green, "amber", amber)
assert green > 200 and amber > 200, "no chart bars in the screenshot"
PY
        check "report HTML: no script, no font or image from the network" sh -c \
                "! grep -Eiq '<script|@import|url\\(|src=|href=\"https?:' '$tmp/r.html'"
fi
done_testing
