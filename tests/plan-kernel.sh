#!/bin/sh
# tests/plan-kernel.sh: every recorded machine planned (balanced) for the
# kernel of Debian 13's trixie-backports, 7.3.4+deb13-amd64, with a module tree
# whose ahci has mask_port_ext and nvme quirks as 7.3's have (hwdb/knob-interfaces.txt): golden
# plans, and against the machine's golden 6.1 plan (tests/lib.sh KVER) each
# setting that differs says why in terms of the kernel (a _KERNEL range of the
# hwdb, the kernel's version or what the target kernel has)
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod python3
K73=7.3.4+deb13-amd64

machines=$(cd "$TESTS_DATA/machines" && ls -d */ | tr -d /)
n=$(echo $machines | wc -w)
plan $((n * 2))

sed -e '/^ahci /s/$/ parm=mask_port_ext:32-bits mask to ignore the external\/hotplug capability of ports parmtype=mask_port_ext:charp/' \
        -e '/^nvme /s/$/ parm=quirks:Enable\/disable NVMe quirks by specifying \\quirks=VID:DID:quirk_names/' \
        "$TESTS_DATA/modroot.spec" >"$tmp/modroot-7.3.spec"
for m in $machines; do
        dir=$TESTS_DATA/machines/$m
        root=$tmp/$m-root
        mkroot_installed "$dir" "$root" || { echo "Bail out! cannot build the root of $m"; exit 1; }
        rm -rf "$root/lib/modules"
        sh "$top_srcdir/tests/mkmodroot.sh" "$tmp/modroot-7.3.spec" "$root" "$K73" >"$tmp/mkmodroot.log" 2>&1 ||
                { cat "$tmp/mkmodroot.log"; echo "Bail out! module tree for $K73"; exit 1; }
        run_machine "$dir" "$IDLECFG" plan --json --profile balanced --root "$root" --kernel "$K73" >"$tmp/$m.json" 2>"$tmp/$m.err"
        normalize "$root" <"$tmp/$m.json" >"$tmp/$m.norm.json"
        golden_plan "$m: plan for $K73 matches expected/plan-balanced-7.3.json" "$dir/expected/plan-balanced-7.3.json" \
                "$tmp/$m.norm.json"
        check "$m: each setting that differs from the 6.1 plan names the kernel in its reason" python3 - \
                "$dir/expected/plan-balanced.json" "$tmp/$m.norm.json" <<'PY'
import json, sys
def settings(f):
    return {(s["knob"], s.get("device") or ""): s for s in json.load(open(f))["settings"]}
old, new = settings(sys.argv[1]), settings(sys.argv[2])
bad = []
for k in sorted(set(old) | set(new)):
    a, b = old.get(k), new.get(k)
    if a and b and (a.get("value"), a.get("skipped")) == (b.get("value"), b.get("skipped")):
        continue
    if b is None:
        continue        # a setting 6.1 had and 7.3 drops: nothing to say why
    r = b.get("reason") or ""
    if "kernel" not in r and "7.3" not in r:
        bad.append("%s %s: %s -> %s: %s" % (k[0], k[1], a and a.get("value"), b.get("value"), r))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
done
done_testing
