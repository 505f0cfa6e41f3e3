#!/bin/sh
# tests/knobs-registry.sh: every profile key a knob family declares changes what
# it plans. Each key of the registry is set, in turn, to each of its values
# (and removed) in a copy of balanced.profile, and the plans of the recorded
# machines compared by their decisions (knob, device, file or parameter, value,
# mechanism; reasons left out): the values other than keep must all decide
# differently, and some value differently from leaving the key out. A key the
# loader accepts and no plan function reads fails here.
. "$top_srcdir/tests/lib.sh"
REGISTRY=${KNOB_REGISTRY:-$top_builddir/tests/knob-registry}
[ -x "$REGISTRY" ] || skip_all "$REGISTRY not built"
need umockdev-run depmod "${CC:-cc}" python3

"$REGISTRY" | awk '$1 == "key" { print $2, $3, $4 }' >"$tmp/keys"
plan "$(($(wc -l <"$tmp/keys") + 3))"
check "the registry declares profile keys" test -s "$tmp/keys"

# every family has a test script of its own (tests/family-NAME.sh; the kernel
# family's is sysctl.sh, wifi's and network's netpower.sh) in Makefile.am's
# SH_TESTS, and it names every key of the family and every value the key
# takes (a new family, key or value without its test fails here)
script_of() {
        case $1 in kernel) echo sysctl.sh ;; wifi | network) echo netpower.sh ;; *) echo "family-$1.sh" ;; esac
}
family_scripts() {
        "$REGISTRY" >"$tmp/reg"
        _bad=0
        for _f in $(awk '$1 == "family" { print $2 }' "$tmp/reg"); do
                _s=$(script_of "$_f")
                if [ ! -f "$top_srcdir/tests/$_s" ]; then
                        echo "family $_f: no tests/$_s"
                        _bad=1
                        continue
                fi
                grep -q "^	tests/$_s \\\\\$" "$top_srcdir/Makefile.am" ||
                        { echo "family $_f: tests/$_s is not in Makefile.am's SH_TESTS"; _bad=1; }
                for _sk in $(awk -v f="$_f" '$1 == "family-key" && $2 == f { print $3 "/" $4 }' "$tmp/reg"); do
                        _sec=${_sk%/*} _key=${_sk#*/}
                        for _w in $_key $(awk -v s="$_sec" -v k="$_key" '$1 == "key" && $2 == s && $3 == k { print $4 }' "$tmp/reg" | tr '|' ' '); do
                                grep -qw -- "$_w" "$top_srcdir/tests/$_s" ||
                                        { echo "family $_f: tests/$_s never names [$_sec] $_key's $_w"; _bad=1; }
                        done
                done
        done
        [ "$(grep -c '^family ' "$tmp/reg")" -ge 12 ] && [ $_bad = 0 ]
}
check "every family has its own test script, naming each of its keys and values" family_scripts

# every hwdb property a family reads (the registry's property lines after its
# family line) has a deny point and a keep point in the family's script,
# "hwdb_point deny|keep PROPERTY" (tests/family-lib.sh): a bug that makes a
# deny entry never fire passes the golden plans and this script; only a point
# that plans with the entry catches it. HWDB_POINTS_TODO: the properties whose
# scripts assert them in points not yet so named (a property leaves the list
# when its two points are there; one that stays with them fails)
HWDB_POINTS_TODO=""
# HWDB_ALLOW_ONLY: the properties no value of which keeps a device from a
# setting; an entry only lifts a skip the family makes without one, so their
# points are "hwdb_point allow PROPERTY" (the entry lifts it) and "hwdb_point
# keep PROPERTY" (without the entry the skip stays), either missing failing:
#   IDLECFG_ASPM_ALLOW   [pcie_aspm] links = yes writes a link's state files
#                        only where an entry lists the state (its opposite is
#                        IDLECFG_ASPM_DENY, a property of its own)
#   IDLECFG_ASPM_POLICY  takes only "allow": the policy through on an AMD
#                        machine that suspends to idle, which skips it without
HWDB_ALLOW_ONLY="IDLECFG_ASPM_ALLOW IDLECFG_ASPM_POLICY"
# HWDB_SHOWN_ONLY: the properties that change no setting, only what plan,
# explain and verify say (a kernel quirk the kernel applies itself): their
# points are "hwdb_point shown PROPERTY" (the entry's row is there) and
# "hwdb_point keep PROPERTY" (without it, none)
#   IDLECFG_THUNDERBOLT_QUIRK  tb_quirks[]: the kernel holds a host router
#                              resumed in DisplayPort redrive mode
HWDB_SHOWN_ONLY="IDLECFG_THUNDERBOLT_QUIRK"
hwdb_points() {
        "$REGISTRY" | awk '$1 == "family" { f = $2 } $1 == "property" { print f, $2 }' >"$tmp/props"
        [ -s "$tmp/props" ] || { echo "the registry lists no property"; return 1; }
        _bad=0
        while read -r _f _p; do
                _s=$(script_of "$_f")
                _np=0
                _ws="deny keep"
                ! echo $HWDB_ALLOW_ONLY | grep -qw -- "$_p" || _ws="allow keep"
                ! echo $HWDB_SHOWN_ONLY | grep -qw -- "$_p" || _ws="shown keep"
                for _w in $_ws; do
                        if grep -q "^[[:space:]]*hwdb_point $_w $_p " "$top_srcdir/tests/$_s"; then
                                _np=$((_np + 1))
                        elif ! echo $HWDB_POINTS_TODO | grep -qw -- "$_p"; then
                                echo "family $_f reads $_p: tests/$_s has no point hwdb_point $_w $_p"
                                _bad=1
                        fi
                done
                if [ $_np = 2 ] && echo $HWDB_POINTS_TODO | grep -qw -- "$_p"; then
                        echo "$_p has its ${_ws% *} and keep points in tests/$_s: out of HWDB_POINTS_TODO"
                        _bad=1
                fi
        done <"$tmp/props"
        for _p in $HWDB_POINTS_TODO $HWDB_ALLOW_ONLY $HWDB_SHOWN_ONLY; do
                grep -q " $_p\$" "$tmp/props" || { echo "HWDB_POINTS_TODO or HWDB_ALLOW_ONLY names $_p, which no family reads"; _bad=1; }
        done
        return $_bad
}
check "every hwdb property a family reads has a deny point (an allow point: the allow-only ones) and a keep point in the family's script" hwdb_points

# one profile per variant: vN.profile = balanced with KEY set to VALUE, or removed
pdir=$tmp/profiles
mkdir -p "$pdir"
: >"$tmp/variants"
i=0
while read -r section key values; do
        for v in absent $(echo "$values" | tr '|' ' '); do
                i=$((i + 1))
                echo "v$i $section $key $v" >>"$tmp/variants"
        done
done <"$tmp/keys"
# vN.profile for each line of the variants, by one python3
python3 - "$top_srcdir/profiles/balanced.profile" "$tmp/variants" "$pdir" <<'PY' || { echo "Bail out! the profile variants"; exit 1; }
import sys
path, variants, pdir = sys.argv[1:]
lines = open(path).readlines()
for var in open(variants):
    name, section, key, value = var.split()
    cur, found, out = None, False, []
    for line in lines:
        s = line.strip()
        if s.startswith("["):
            cur = s[1:-1]
        elif cur == section and s.split("=")[0].strip() == key and not s.startswith("#"):
            found = True
            if value != "absent":
                out.append("%s = %s\n" % (key, value))
            continue
        out.append(line)
    if not found:
        sys.exit("balanced.profile does not set [%s] %s" % (section, key))
    open("%s/%s.profile" % (pdir, name), "w").write("".join(out))
PY

# a local hwdb that opts every device and platform in, so that the keys that
# only act on hwdb entries (ASPM links, display features) have something to do
hwdb_local() {
        mkdir -p "$1/etc/udev/hwdb.d"
        cat >"$1/etc/udev/hwdb.d/99-test.hwdb" <<'HWDB'
# tests/knobs-registry.sh: every PCI link may use L1.2
pci:*
 IDLECFG_ASPM_ALLOW=l1,l1_2

# every platform opts in to the display features
dmi:*
 IDLECFG_I915_FBC=allow
 IDLECFG_I915_PSR=allow
 IDLECFG_AMDGPU_ABM=allow
HWDB
}

# systemd 252's default link file, for [network] wake_on_lan (a drop-in of it)
link_default() {
        mkdir -p "$1/usr/lib/systemd/network" "$1/usr/lib/x86_64-linux-gnu/systemd"
        printf '[Match]\nOriginalName=*\n\n[Link]\nNamePolicy=keep kernel database onboard slot path\n' \
                >"$1/usr/lib/systemd/network/99-default.link"
        : >"$1/usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared-252.so"
}

machines=$(cd "$TESTS_DATA/machines" && ls -d */ | tr -d /)
for m in $machines; do
        dir=$TESTS_DATA/machines/$m
        root=$tmp/$m-root
        mkroot_installed "$dir" "$root" || { echo "Bail out! cannot build the root of $m"; exit 1; }
        hwdb_local "$root"
        link_default "$root"
        # a swap device with a UUID for [suspend] hibernate
        mkdir -p "$root/etc"
        echo "UUID=0a1b2c3d-4e5f-6789-abcd-ef0123456789 none swap sw 0 0" >>"$root/etc/fstab"
        mkdir -p "$tmp/out/$m"
        run_machine "$dir" sh -c '
                while read -r v rest; do
                        "$1" plan --json --profile "$v" --profiles-dir "$2" --root "$3" --kernel "$4" >"$5/$v.json" 2>"$5/$v.err"
                done <"$6"' sh "$IDLECFG" "$pdir" "$root" "$KVER" "$tmp/out/$m" "$tmp/variants"
done

# the decisions of each variant over every machine (knob, device, file or
# parameter, value, mechanism), hashed: one python3 for all of them
python3 - "$tmp/out" "$tmp/variants" $machines >"$tmp/decisions" <<'PY'
import hashlib, json, sys
out, variants, machines = sys.argv[1], sys.argv[2], sys.argv[3:]
for line in open(variants):
    v = line.split()[0]
    text = ""
    for m in machines:
        try:
            p = json.load(open("%s/%s/%s.json" % (out, m, v)))
        except Exception as e:
            text += "unreadable: %s\n" % e
            continue
        for s in p["settings"]:
            text += m + " " + "|".join(str(s.get(k) or "") for k in
                                       ("knob", "devpath", "attr", "module", "param", "value", "mechanism")) + "\n"
    print(v, hashlib.sha256(text.encode()).hexdigest()[:16])
PY
# decisions V: variant V's hash
decisions() { awk -v v="$1" '$1 == v { print $2 }' "$tmp/decisions"; }

while read -r section key values; do
        grep " $section $key " "$tmp/variants" | while read -r v s k value; do
                echo "$value $(decisions "$v")"
        done >"$tmp/outcome"
        absent=$(awk '$1 == "absent" { print $2 }' "$tmp/outcome")
        # values other than keep: as many outcomes as values
        nvalues=$(awk '$1 != "absent" && $1 != "keep"' "$tmp/outcome" | wc -l)
        ndistinct=$(awk '$1 != "absent" && $1 != "keep" { print $2 }' "$tmp/outcome" | sort -u | wc -l)
        differs=$(awk -v a="$absent" '$1 != "absent" && $2 != a' "$tmp/outcome" | wc -l)
        # a key that acts only on hardware no recorded machine has is proven on an
        # edited recording by the test named here, which must check the knob and a value
        proven=$(awk -v k="$section.$key" '$1 == k { print $2 }' <<'EOF_PROVEN'
sata.mask_port_ext tests/plan-savings.sh
gpu.amdgpu_abm tests/family-gpu.sh
removable.policy tests/family-removable.sh
removable.dock tests/family-removable.sh
EOF_PROVEN
)
        if [ -n "$proven" ] && [ "$differs" -eq 0 ]; then
                check "[$section] $key changes the plan on the edited recording of $proven" \
                        sh -c 'grep -q "^check .*$1\.$2" "$3" && grep -q "$2 = [a-z0-9]" "$3"' sh \
                        "$section" "$key" "$top_srcdir/$proven"
                continue
        fi
        check "[$section] $key changes the plan: $values" test "$nvalues" -eq "$ndistinct" -a "$differs" -gt 0
        if [ "$nvalues" -ne "$ndistinct" ] || [ "$differs" -eq 0 ]; then
                diag "outcome by value (the same hash: the same decisions):" "$(cat "$tmp/outcome")"
                for m in $machines; do
                        v=$(grep " $section $key " "$tmp/variants" | head -n 1 | cut -d' ' -f1)
                        [ -s "$tmp/out/$m/$v.err" ] && diag "$m: $(head -n 2 "$tmp/out/$m/$v.err")"
                done
        fi
done <"$tmp/keys"
done_testing
