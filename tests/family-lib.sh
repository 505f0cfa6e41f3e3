# tests/family-lib.sh: the harness of the per-family scripts tests/family-*.sh
# (sourced after tests/lib.sh). A script declares one small profile per value
# of every key of its family (inherit = balanced, the one key overridden),
# plans them all on every recorded machine with one umockdev session per
# machine (plan is cheap, a session is not), then asserts on the results.
#
#   value ID SECTION KEY VALUE [FORMAT...]
#           profile ID: balanced with [SECTION] KEY = VALUE (line 4 of the
#           file); FORMATs are also rendered (plan --format=FORMAT)
#   plan_all
#           plans every case on every machine (and balanced, the baseline)
#   rows ID KNOB [MACHINE...]
#           the settings of KNOB, one a line:
#           machine|knob|device|class|attr|module|param|value|ac|battery|mechanism|reason
#   out MACHINE ID FORMAT
#           the file holding what plan --format=FORMAT printed
# and the assertions below (functions, for check).
need umockdev-run depmod "${CC:-cc}" python3
PATH=$PATH:/sbin:/usr/sbin
FAMILY_MACHINES=$(cd "$TESTS_DATA/machines" && ls -d */ | tr -d /)
mkdir -p "$tmp/profiles" "$tmp/out" "$tmp/machines"
# machine_dir NAME: a recorded machine, or a variant the script made
machine_dir() {
        if [ -f "$tmp/hwdb/$1.base" ]; then
                machine_dir "$(cat "$tmp/hwdb/$1.base")"
        elif [ -d "$tmp/machines/$1" ]; then echo "$tmp/machines/$1"; else echo "$TESTS_DATA/machines/$1"; fi
}
# variant NAME BASE DEVPATH ATTR VALUE: a copy of recorded machine BASE whose
# device DEVPATH (the end of its P: line) reads VALUE in ATTR, planned like
# the others (one more session): for a state no recorded machine is in
variant() {
        mkdir -p "$tmp/machines/$1"
        cp -R "$TESTS_DATA/machines/$2/." "$tmp/machines/$1/"
        awk -v dev="$3" -v attr="$4" -v val="$5" '
                /^P: / { p = $2 }
                p ~ ("/" dev "$") && index($0, "A: " attr "=") == 1 { $0 = "A: " attr "=" val "\\n"; n++ }
                { print }
                END { exit n != 1 }' "$TESTS_DATA/machines/$2/machine.umockdev" >"$tmp/machines/$1/machine.umockdev" ||
                { echo "Bail out! variant $1: no $4 of $3 in $2"; exit 1; }
        FAMILY_MACHINES="$FAMILY_MACHINES $1"
}
# hwdb_variant NAME BASE HWDB: machine BASE (recorded, or a variant) planned
# like the others with one more file in its root, /etc/udev/hwdb.d/99-NAME.hwdb
# holding HWDB (family_root is called with BASE): for the points about what an
# hwdb entry does to a device. It is not one of FAMILY_MACHINES (the points
# over every machine do not see it): name it, as in rows ID KNOB NAME
HWDB_MACHINES=
hwdb_variant() {
        mkdir -p "$tmp/hwdb"
        echo "$2" >"$tmp/hwdb/$1.base"
        printf '# tests: hwdb_variant %s of %s\n%s\n' "$1" "$2" "$3" >"$tmp/hwdb/$1.hwdb"
        HWDB_MACHINES="$HWDB_MACHINES $1"
}
# hwdb_point deny|allow|shown|keep PROPERTY DESCRIPTION COMMAND...: a point about an
# hwdb property the family reads, named "PROPERTY deny: DESCRIPTION": deny, an
# entry with the value that keeps the device from the setting does so (the
# device left alone, or given the entry's safer value); keep, without it (or
# with the allowing value) the device gets what the profile asks.
# tests/knobs-registry.sh wants deny and keep for every property of the
# family's; for the allow-only ones it lists (HWDB_ALLOW_ONLY), allow (the
# entry lifts a skip the family makes without one) and keep (without the
# entry the skip stays); for the shown-only ones (HWDB_SHOWN_ONLY), shown
# (plan, explain or verify say what the entry says) and keep (without it, not)
hwdb_point() {
        _hw=$1 _hp=$2 _hd=$3
        shift 3
        check "$_hp $_hw: $_hd" "$@"
}
# mkroot's module tree: a copy of the one plan_all builds first
mkmodroot() {
        if [ -d "$tmp/modroot/lib" ]; then
                mkdir -p "$1/lib" && cp -R "$tmp/modroot/lib/." "$1/lib/"
        else
                sh "$top_srcdir/tests/mkmodroot.sh" "$TESTS_DATA/modroot.spec" "$1" "$KVER" >"$tmp/mkmodroot.log" 2>&1 ||
                        { cat "$tmp/mkmodroot.log" >&2; return 1; }
        fi
}
: >"$tmp/cases"

value() {
        _id=$1 _sec=$2 _key=$3 _val=$4
        shift 4
        printf '[profile]\ninherit = balanced\n[%s]\n%s = %s\n' "$_sec" "$_key" "$_val" >"$tmp/profiles/$_id.profile"
        echo "$_id $*" >>"$tmp/cases"
}

plan_all() {
        echo "balanced" >>"$tmp/cases"
        # IDLECFG_FAMILY_OUT=DIR: keep the plans in DIR, and reuse them if there
        # (to work on the assertions without the sessions)
        if [ -n "${IDLECFG_FAMILY_OUT:-}" ] && [ -d "$IDLECFG_FAMILY_OUT/out" ]; then
                rm -rf "$tmp/out" && cp -R "$IDLECFG_FAMILY_OUT/out" "$tmp/out" && return
        fi
        # the fixture module tree is built once and copied into every root
        mkmodroot "$tmp/modroot" || { echo "Bail out! no module tree"; exit 1; }
        for _m in $FAMILY_MACHINES $HWDB_MACHINES; do
                _root=$tmp/$_m-root
                _base=$_m
                [ ! -f "$tmp/hwdb/$_m.base" ] || _base=$(cat "$tmp/hwdb/$_m.base")
                mkroot_installed "$(machine_dir "$_m")" "$_root" || { echo "Bail out! no root for $_m"; exit 1; }
                mkdir -p "$_root/etc/idlecfg/profiles" "$tmp/out/$_m"
                # a script's own additions to every root: family_root ROOT MACHINE
                if command -v family_root >/dev/null 2>&1; then
                        family_root "$_root" "$_base" || { echo "Bail out! family_root $_m"; exit 1; }
                fi
                if [ -f "$tmp/hwdb/$_m.hwdb" ]; then
                        mkdir -p "$_root/etc/udev/hwdb.d" && cp "$tmp/hwdb/$_m.hwdb" "$_root/etc/udev/hwdb.d/99-$_m.hwdb"
                fi
                cp "$tmp"/profiles/*.profile "$_root/etc/idlecfg/profiles/"
                # the batch that runs inside the machine's session
                while read -r _id _formats; do
                        _o=$tmp/out/$_m/$_id
                        echo "'$IDLECFG' plan --json --profile $_id --root '$_root' --kernel $KVER >'$_o.json' 2>'$_o.err'; echo \$? >'$_o.rc'"
                        for _f in $_formats; do
                                echo "'$IDLECFG' plan --format=$_f --profile $_id --root '$_root' --kernel $KVER >'$_o.$_f' 2>>'$_o.err'"
                        done
                done <"$tmp/cases" >"$tmp/$_m.batch"
                run_machine "$(machine_dir "$_m")" sh "$tmp/$_m.batch" ||
                        { echo "Bail out! the umockdev session of $_m failed"; exit 1; }
        done
        python3 - "$tmp/out" <<'PY'
import glob, json, os, sys
for f in glob.glob(os.path.join(sys.argv[1], "*", "*.json")):
    m = os.path.basename(os.path.dirname(f))
    try:
        settings = json.load(open(f))["settings"]
    except Exception:
        settings = []
    with open(f[:-5] + ".flat", "w") as out:
        for s in settings:
            ps = s.get("per_source") or {}
            row = [m] + [s.get(k) for k in ("knob", "device", "class", "attr", "module", "param", "value")]
            row += [ps.get("ac"), ps.get("battery"), s.get("mechanism"), s.get("reason")]
            out.write("|".join("" if v is None else str(v) for v in row) + "\n")
PY
        if [ -n "${IDLECFG_FAMILY_OUT:-}" ]; then
                mkdir -p "$IDLECFG_FAMILY_OUT" && cp -R "$tmp/out" "$IDLECFG_FAMILY_OUT/"
        fi
}

out() { echo "$tmp/out/$1/$2.$3"; }

rows() {
        _id=$1 _knob=$2
        shift 2
        for _m in ${*:-$FAMILY_MACHINES}; do
                awk -F'|' -v k="$_knob" '$2 == k' "$tmp/out/$_m/$_id.flat" 2>/dev/null
        done
}

# planned ID KNOB [MACHINE...]: the rows of KNOB that set a value
planned() { rows "$@" | awk -F'|' '$8 != ""'; }

# ok_plans ID: plan exited 0 on every machine
ok_plans() {
        for _m in $FAMILY_MACHINES; do
                [ "$(cat "$tmp/out/$_m/$1.rc")" = 0 ] || { echo "$_m: plan of $1 exited $(cat "$tmp/out/$_m/$1.rc")"; cat "$tmp/out/$_m/$1.err"; return 1; }
        done
}

# kept ID KNOB SECTION KEY [FORMAT...]: keep plans nothing for KNOB on any
# machine, and where the machine has what KNOB acts on, the one global skip
# names the profile line; the FORMATs rendered for ID do not mention KNOB
kept() {
        _id=$1 _knob=$2 _sec=$3 _key=$4
        shift 4
        ok_plans "$_id" || return 1
        if [ -n "$(planned "$_id" "$_knob")" ]; then
                echo "keep planned a value for $_knob:"
                planned "$_id" "$_knob"
                return 1
        fi
        _want="skipped: profile $_id [$_sec] $_key = keep (/etc/idlecfg/profiles/$_id.profile:4): the kernel default stays"
        _kn=0
        for _m in $FAMILY_MACHINES; do
                _w=$_want
                rows "$_id" "$_knob" "$_m" >"$tmp/kept"
                [ -s "$tmp/kept" ] || continue
                _kn=$((_kn + 1))
                if [ "$(wc -l <"$tmp/kept")" != 1 ] || [ "$(cut -d'|' -f3,12 "$tmp/kept")" != "|$_w" ]; then
                        echo "$_m: expected one global skip \"$_w\", got:"
                        cat "$tmp/kept"
                        return 1
                fi
                for _f in "$@"; do
                        if grep -F "$_knob" "$(out "$_m" "$_id" "$_f")"; then
                                echo "$_m: plan --format=$_f mentions $_knob"
                                return 1
                        fi
                done
        done
        [ "$_kn" -gt 0 ] || { echo "no machine has a row of $_knob"; return 1; }
}

# default_stays ID KNOB SECTION KEY VALUE MACHINE...: on each MACHINE, KNOB's
# one row is the global skip naming ID's profile line "KEY = VALUE"
default_stays() {
        _id=$1 _knob=$2 _sec=$3 _key=$4 _val=$5
        shift 5
        for _m in "$@"; do
                [ "$(rows "$_id" "$_knob" "$_m" | cut -d'|' -f3,8,12)" = "||skipped: profile $_id [$_sec] $_key = $_val (/etc/idlecfg/profiles/$_id.profile:4): the kernel default stays" ] ||
                        { echo "$_m:"; rows "$_id" "$_knob" "$_m"; return 1; }
        done
}

# refused ID SECTION KEY MESSAGE: the profile is refused (exit 2) on every
# machine, with the file, line 4 and MESSAGE (a fixed string)
refused() {
        for _m in $FAMILY_MACHINES; do
                _f=/$_m-root/etc/idlecfg/profiles/$1.profile
                [ "$(cat "$tmp/out/$_m/$1.rc")" = 2 ] || { echo "$_m: exit $(cat "$tmp/out/$_m/$1.rc"), not 2"; return 1; }
                grep -F "$_f:4: $4" "$tmp/out/$_m/$1.err" | grep -q "^idlecfg: /" ||
                        { echo "$_m: no \"$_f:4: $4\" in:"; cat "$tmp/out/$_m/$1.err"; return 1; }
                [ ! -s "$tmp/out/$_m/$1.json" ] || { echo "$_m: a refused profile printed a plan"; return 1; }
        done
}
# refused_source ID SECTION KEY: a key idlecfg cannot switch at run time refuses ac:/battery:
refused_source() {
        refused "$1" "$2" "$3" "[$2] $3 cannot take a value per power source: idlecfg cannot change it at run time"
}
# refused_range ID SECTION KEY VALUE VALID: a number out of range
refused_range() {
        refused "$1" "$2" "$3" "value $4 for [$2] $3 is out of range; valid: $5"
}
# refused_word ID SECTION KEY VALUE: a word the key does not take
refused_word() {
        refused "$1" "$2" "$3" "$4"
}

# one_source MACHINE: its recording has no system battery: one power source,
# so the plan gives a per-source key its AC value alone and says why (#33)
one_source() {
        ! grep -A12 '^E: SUBSYSTEM=power_supply' "$(machine_dir "$1")/machine.umockdev" | grep -q '^A: type=Battery'
}

# per_source ID KNOB AC_ID BATTERY_ID: the per-source case ID of KNOB plans
# the devices case AC_ID (the AC value alone) plans, with AC_ID's value; those
# that case BATTERY_ID plans too carry ac= and battery= (the value to switch
# to), the others keep the AC value on battery and say why ("on battery:
# skipped: ..."); at least one device switches
per_source() {
        ok_plans "$1" || return 1
        for _c in "$1" "$3" "$4"; do planned "$_c" "$2" >"$tmp/ps.$_c"; done
        ONE_SOURCE=$(for _m in $FAMILY_MACHINES; do ! one_source $_m || echo $_m; done) \
        python3 - "$tmp/ps.$1" "$tmp/ps.$3" "$tmp/ps.$4" <<'PY'
import os, sys
one = set(os.environ["ONE_SOURCE"].split())
def load(f):
    d = {}
    for line in open(f):
        r = line.rstrip("\n").split("|", 11)
        d[(r[0], r[2], r[4], r[5], r[6], r[10])] = r
    return d
src, ac, bat = (load(f) for f in sys.argv[1:4])
bad, switched = [], 0
if set(src) != set(ac):
    bad.append("planned: %s, with the AC value alone: %s" % (sorted(src), sorted(ac)))
for k, r in src.items():
    a = ac.get(k)
    if a and r[7] != a[7]:
        bad.append("%s: value %s, not the AC value %s" % (k, r[7], a[7]))
    b = bat.get(k)
    if k[0] in one:
        # no system battery: the AC value alone, and the reason says why
        if r[8] or r[9] or "one power source here" not in r[11]:
            bad.append("%s: one source, yet ac=%s battery=%s: %s" % (k, r[8], r[9], r[11]))
    elif b and b[7] != r[7]:
        switched += 1
        if (r[8], r[9]) != (r[7], b[7]):
            bad.append("%s: ac=%s battery=%s, not %s %s" % (k, r[8], r[9], r[7], b[7]))
    elif b:
        if r[8] or r[9]:
            bad.append("%s: ac=%s battery=%s for one value on both" % (k, r[8], r[9]))
    elif "; on battery: skipped" not in r[11]:
        bad.append("%s: skipped on battery, the reason does not say so: %s" % (k, r[11]))
if not switched:
    bad.append("no device switches")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
}

# only_knob ID KNOB...: apart from the KNOBs, the plan of ID is balanced's
# (knob, device, value, mechanism) on every machine
only_knob() {
        _id=$1
        shift
        _re="^($(echo "$*" | sed 's/ /|/g'))\$"
        for _m in $FAMILY_MACHINES; do
                for _p in balanced "$_id"; do
                        awk -F'|' -v re="$_re" '$2 !~ re { print $2 "|" $3 "|" $8 "|" $9 "|" $10 "|" $11 }' \
                                "$tmp/out/$_m/$_p.flat" >"$tmp/only.$_p"
                done
                diff -u "$tmp/only.balanced" "$tmp/only.$_id" || { echo "^ $_m: $_id changed more than $*"; return 1; }
        done
}
# only_knobs KNOB...: only_knob for every case that planned (exit 0)
only_knobs() {
        while read -r _id _f; do
                [ "$_id" = balanced ] && continue
                [ "$(cat "$tmp/out/$(echo "$FAMILY_MACHINES" | head -n1)/$_id.rc")" = 0 ] || continue
                only_knob "$_id" "$@" || return 1
        done <"$tmp/cases"
}

# balanced_at SECTION KEY: "/usr/share/idlecfg/profiles/balanced.profile:LINE",
# where the shipped balanced.profile sets [SECTION] KEY (a value the case
# profiles inherit), wherever a new section moved it
balanced_at() {
        _l=$(awk -v s="[$1]" -v k="$2" '/^\[/ { on = ($0 == s) } on && $1 == k && $2 == "=" { print NR; exit }' \
                "$top_srcdir/profiles/balanced.profile")
        echo "/usr/share/idlecfg/profiles/balanced.profile:${_l:-?}"
}

# reason_of ID SECTION KEY VALUE: the reason of a value the profile line gave
reason_of() {
        echo "profile $1 [$2] $3 = $4 (/etc/idlecfg/profiles/$1.profile:4)"
}

# udev_rules ID KNOB: plan --format=udev of ID has, for every device KNOB is
# planned on, the rule under "# KNOB on DEVICE" writing that value to its
# attribute, and no other rule of KNOB
udev_rules() {
        for _m in $FAMILY_MACHINES; do
                planned "$1" "$2" | awk -F'|' -v m="$_m" '$1 == m' >"$tmp/ur.rows"
                python3 - "$tmp/ur.rows" "$(out "$_m" "$1" udev)" "$2" "$_m" <<'PY' || return 1
import sys
rows = [l.rstrip("\n").split("|", 11) for l in open(sys.argv[1])]
text = open(sys.argv[2]).read().split("\n")
knob, m = sys.argv[3], sys.argv[4]
rules = []
head = "# %s on " % knob
for i, l in enumerate(text):
    if l.startswith(head):
        # a device name ends at ": " (PCI addresses hold colons); devices
        # with the same match share the rule after their comments
        j = i + 1
        while j < len(text) and text[j].startswith("#"):
            j += 1
        rules.append((l[len(head):].split(": ", 1)[0], text[j] if j < len(text) else ""))
bad = []
for r in rows:
    want = 'ATTR{%s}="%s"' % (r[4], r[7])
    hit = [x for x in rules if x[0] == r[2] and x[1].startswith("ACTION==") and x[1].endswith(want)]
    if not hit:
        bad.append("%s: %s: no rule ending %s" % (m, r[2], want))
    else:
        rules.remove(hit[0])
for d, rule in rules:
    bad.append("%s: a rule of %s for %s the plan does not set: %s" % (m, knob, d, rule))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
        done
}

# param ID KNOB MODULE PARAM VALUE MECH REASON MACHINE...: on each MACHINE one
# setting of KNOB, MODULE.PARAM=VALUE by MECH with REASON; for modprobe, the
# "options MODULE" line of plan --format=modprobe carries PARAM=VALUE
param() {
        _id=$1 _k=$2 _mod=$3 _par=$4 _v=$5 _mech=$6 _why=$7
        shift 7
        ok_plans "$_id" || return 1
        for _m in "$@"; do
                _got=$(rows "$_id" "$_k" "$_m" | cut -d'|' -f6-8,11,12)
                [ "$_got" = "$_mod|$_par|$_v|$_mech|$_why" ] || { echo "$_m: got \"$_got\", not \"$_mod|$_par|$_v|$_mech|$_why\""; return 1; }
                if [ "$_mech" = modprobe ] && ! grep "^options $_mod " "$(out "$_m" "$_id" modprobe)" | grep -q " $_par=$_v\\( \\|\$\\)"; then
                        echo "$_m: no $_par=$_v in:"
                        cat "$(out "$_m" "$_id" modprobe)"
                        return 1
                fi
        done
}
