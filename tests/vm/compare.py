#!/usr/bin/env python3
"""tests/vm/compare.py: judge a boot of the test VM against the plan and the baseline.

    compare.py PLAN.json BASELINE AFTER RECORDING

PLAN.json is `idlecfg plan --json` for the VM's hardware, BASELINE and AFTER are
the snapshots the VM wrote (path<TAB>value lines, see snapshot.sh) before and
after `idlecfg install`, RECORDING is the VM's umockdev recording (for the
`device` links of attributes named through them). Prints one result per check,
"ok<TAB>description" or "not ok<TAB>description", each followed by "# " lines.
"""
import json
import os
import re
import sys

# parameters that belong to no module: where the running kernel shows them
BARE_PARAMS = {
    "mem_sleep_default": "/sys/power/mem_sleep",
    "nmi_watchdog": "/proc/sys/kernel/nmi_watchdog",
}
BOOL_TRUE = {"1", "y", "Y"}
BOOL_FALSE = {"0", "n", "N"}


# Names the kernel hands out in probe order: SCSI hosts, targets and LUNs, disks,
# sg nodes, input devices and HID instances. With AHCI, usb-storage and the
# HID drivers probing in parallel they differ from boot to boot (usb-storage's
# host is host0 in one boot and host6 in the next, sda and sdb swap), while the
# device's place in the tree (its parent path) stays. A path is compared under
# its stable name: each such component becomes a wildcard.
ENUMERATED = [
    (re.compile(r"host\d+"), "host*"),
    (re.compile(r"target\d+:\d+:\d+"), "target*"),
    (re.compile(r"\d+:\d+:\d+:\d+"), "*:*:*:*"),
    (re.compile(r"sd[a-z]+(\d*)"), r"sd*\1"),
    (re.compile(r"sg\d+"), "sg*"),
    (re.compile(r"input\d+(::.*)?"), r"input*\1"),
    (re.compile(r"(event|mouse|js|hidraw)\d+"), r"\1*"),
    (re.compile(r"([0-9A-F]{4}:[0-9A-F]{4}:[0-9A-F]{4})\.[0-9A-F]{4}"), r"\1.*"),
]


# USB bus numbers follow the order in which the host controllers' drivers
# probe: on the pc machine ehci-pci and uhci_hcd race (a softdep in the
# initramfs does not settle it), so there the bus number is compared as a
# wildcard; each of its controllers has one bus, so the controller's PCI
# address above it keeps the name unique (an xHCI has two buses: not on q35).
# IDLECFG_VM_USB_BY_CONTROLLER=1 turns it on.
USB_BUS = [
    (re.compile(r"usb\d+"), "usb*"),
    (re.compile(r"usb\d+-port(\d+)"), r"usb*-port\1"),
    (re.compile(r"\d+-([\d.]+)-port(\d+)"), r"*-\1-port\2"),
    (re.compile(r"\d+-([\d.]+(:\d+\.\d+)?)"), r"*-\1"),
]
USB_BY_CONTROLLER = os.environ.get("IDLECFG_VM_USB_BY_CONTROLLER") == "1"


def stable(path):
    out = []
    for comp in path.split("/"):
        if USB_BY_CONTROLLER:
            for rx, repl in USB_BUS:
                if rx.fullmatch(comp):
                    comp = rx.sub(repl, comp)
                    break
        for rx, repl in ENUMERATED:
            if rx.fullmatch(comp):
                comp = rx.sub(repl, comp)
                break
        out.append(comp)
    return "/".join(out)


def read_snapshot(path, clashes, raw):
    """stable path -> value, and stable -> real path into raw; two paths with
    one stable name go to clashes"""
    snap = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition("\t")
            k = stable(key)
            if k in raw:
                clashes.append("%s: %s and %s have the same stable name %s" % (path, raw[k], key, k))
            raw[k] = key
            snap[k] = value
    return snap


def read_recording(path):
    """devpath -> {link name: target} and devpath -> driver from the recording"""
    links, drivers, dev = {}, {}, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("P: "):
                dev = line[3:].strip()
            elif line.startswith("L: ") and dev:
                name, _, target = line[3:].strip().partition("=")
                links.setdefault(dev, {})[name] = target
            elif line.startswith("E: DRIVER=") and dev:
                drivers[dev] = line[len("E: DRIVER="):].strip()
    return links, drivers


# What a planned module parameter does to other attributes, as the kernel
# (6.1) implements it: these attributes must take the value computed here, not
# keep the baseline's. Each rule: (module, param) -> function(value, base,
# drivers) giving {path: expected value}.

# drivers/pci/pcie/aspm.c, policy_to_aspm_state() and policy_to_clkpm_state():
# performance enables nothing, powersave L0s and L1, powersupersave every state;
# the link/ attribute of a state exists only where the link is capable of it.
ASPM_STATES = {
    "performance": set(),
    "powersave": {"l0s_aspm", "l1_aspm"},
    "powersupersave": {"l0s_aspm", "l1_aspm", "l1_1_aspm", "l1_2_aspm", "l1_1_pcipm", "l1_2_pcipm"},
}


def aspm_policy(value, base, drivers):
    if value not in ASPM_STATES:
        return {}       # default: each link keeps what the firmware set, the baseline
    out = {}
    for path in base:
        if "/link/" not in path or not path.startswith("/sys/devices/"):
            continue
        attr = path.rsplit("/", 1)[1]
        if attr == "clkpm":
            out[path] = "0" if value == "performance" else "1"
        elif attr in ASPM_STATES["powersupersave"]:
            out[path] = "1" if attr in ASPM_STATES[value] else "0"
    return out


# sound/pci/hda/hda_intel.c passes power_save (s) to snd_hda_set_power_save(),
# and codec_set_power_save() in sound/pci/hda/hda_codec.c makes it each codec's
# runtime PM: autosuspend after power_save * 1000 ms, or runtime PM forbidden for 0.
def hda_power_save(value, base, drivers):
    out = {}
    ctrls = [dev for dev, drv in drivers.items() if drv == "snd_hda_intel"]
    for path in base:
        for ctrl in ctrls:
            prefix = "/sys" + ctrl + "/hdaudioC"
            if not path.startswith(prefix) or path[len(prefix):].count("/") != 2:
                continue
            if path.endswith("/power/autosuspend_delay_ms"):
                out[path] = str(int(value) * 1000) if int(value) > 0 else "<unreadable>"
            elif path.endswith("/power/control"):
                out[path] = "auto" if int(value) > 0 else "on"
    return out


CONSEQUENCES = {
    ("pcie_aspm", "policy"): (aspm_policy, "link states of the ASPM policy"),
    ("snd_hda_intel", "power_save"): (hda_power_save, "HDA codec autosuspend of power_save"),
}


def target(s, links):
    """the file a planned setting ends up in on the running system, or (None, why)"""
    mech = s["mechanism"]
    if mech == "udev":
        devpath, attr = s["devpath"], s["attr"]
        if not devpath or not attr:
            return None, "udev setting without devpath or attr"
        # an attribute named through a link of the device (device/power/control)
        first, _, rest = attr.partition("/")
        if rest and first in links.get(devpath, {}):
            devpath = os.path.normpath(os.path.join(devpath, links[devpath][first]))
            attr = rest
        return stable("/sys" + devpath + "/" + attr), None
    if mech in ("modprobe", "tmpfiles", "cmdline"):
        if s["module"]:
            return "/sys/module/%s/parameters/%s" % (s["module"].replace("-", "_"), s["param"]), None
        if s["param"] in BARE_PARAMS:
            return BARE_PARAMS[s["param"]], None
        return None, "no known place where the running kernel shows %s=" % s["param"]
    if mech == "sysctl":
        # the key's dots are the directories of /proc/sys (sysctl.d(5))
        return "/proc/sys/" + s["param"].replace(".", "/"), None
    return None, "mechanism %s" % mech


def live_value(raw):
    """the value a live attribute stands for: the [selected] word of a list"""
    if raw is None:
        return None
    words = raw.split()
    chosen = [w[1:-1] for w in words if w.startswith("[") and w.endswith("]")]
    if len(chosen) == 1:
        return chosen[0]
    return raw.strip()


def same(raw, wanted):
    live = live_value(raw)
    if live is None or wanted is None:
        return False
    if live == wanted:
        return True
    # bool parameters read back as Y/N whatever was written (1/0, y/n)
    if live in BOOL_TRUE | BOOL_FALSE and wanted in BOOL_TRUE | BOOL_FALSE:
        return (live in BOOL_TRUE) == (wanted in BOOL_TRUE)
    return False


def sysctl_setting(plan, path):
    """The [kernel] family's setting or skip of /proc/sys/PATH in PLAN (knob
    kernel.NAME, param the sysctl key), or None."""
    key = path[len("/proc/sys/"):].replace("/", ".")
    for s in plan["settings"]:
        if s["knob"].startswith("kernel.") and (
                s.get("param") == key or s["knob"].split(".", 1)[1] == key.rsplit(".", 1)[-1]):
            return s
    return None


class Report:
    def __init__(self):
        self.failed = False

    def result(self, good, desc, details=()):
        print("%s\t%s" % ("ok" if good else "not ok", desc))
        details = list(details)
        for d in details[:60]:
            print("# " + d)
        if len(details) > 60:
            print("# ... %d more" % (len(details) - 60))
        self.failed = self.failed or not good


def main():
    # --stable SNAPSHOT: its lines with each path under its stable name, sorted
    # (two boots' snapshots compared as they are compared here)
    if len(sys.argv) == 3 and sys.argv[1] == "--stable":
        with open(sys.argv[2], encoding="utf-8", errors="replace") as f:
            lines = [line.rstrip("\n").split("\t", 1) for line in f]
        for fields in sorted((stable(x[0]),) + tuple(x[1:]) for x in lines):
            print("\t".join(fields))
        return 0
    if len(sys.argv) != 5:
        print("usage: compare.py PLAN.json BASELINE AFTER RECORDING | compare.py --stable SNAPSHOT", file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        plan = json.load(f)
    clashes, base_raw, after_raw = [], {}, {}
    base = read_snapshot(sys.argv[2], clashes, base_raw)
    after = read_snapshot(sys.argv[3], clashes, after_raw)

    def name(key):
        """the stable name, and the real ones where probe order renamed it"""
        b, a = base_raw.get(key), after_raw.get(key)
        if b and a and b != a:
            return "%s (baseline %s, now %s)" % (key, b, a)
        return key
    links, drivers = read_recording(sys.argv[4])
    rep = Report()

    settings = [s for s in plan["settings"] if not s["skipped"] and s["mechanism"] != "none"]
    wanted = {}             # file -> value
    problems, changed, by_mech = [], 0, {}
    for s in settings:
        who = "%s %s" % (s["knob"], s["device"] or "(global)")
        path, why = target(s, links)
        if path is None:
            problems.append("%s: cannot check: %s" % (who, why))
            continue
        if path in wanted and not same(wanted[path], s["value"]):
            problems.append("%s: plan sets %s to both %s and %s" % (who, path, wanted[path], s["value"]))
        wanted[path] = s["value"]
        if path not in after:
            problems.append("%s: %s does not exist on the booted machine (not in the snapshot)" % (who, path))
            continue
        if not same(after[path], s["value"]):
            problems.append("%s: %s is %s after the boot (baseline %s), planned %s (%s)" %
                            (who, name(path), after[path], base.get(path, "absent"), s["value"], s["mechanism"]))
        if not same(base.get(path), s["value"]):
            changed += 1
            by_mech[s["mechanism"]] = by_mech.get(s["mechanism"], 0) + 1
    mechs = ", ".join("%s %d" % kv for kv in sorted(by_mech.items()))
    rep.result(not problems and bool(settings),
               "every planned setting took effect on first boot (%d settings, %d of them changed a value: %s)" %
               (len(settings), changed, mechs or "none"), problems)

    # the plan must change something here, or this boot proves nothing
    rep.result(changed > 0, "the plan changes at least one value of this machine",
               [] if changed else ["every planned value equals the baseline: the test would prove nothing"])

    # the recording and the live machine agree: what the plan calls current is
    # what the baseline boot read
    disagree = []
    for s in settings:
        path, _ = target(s, links)
        if path is None or path not in base or s["current"] is None:
            continue
        if not same(base[path], s["current"]):
            disagree.append("%s %s: plan says current %s, the live baseline %s is %s" %
                            (s["knob"], s["device"] or "(global)", s["current"], path, base[path]))
    rep.result(not disagree, "the plan's current values are the live baseline's", disagree)

    # nothing else moved: every other attribute and parameter as at baseline,
    # except where a planned parameter changes it by the kernel's rules
    follows, why = {}, set()
    for s in settings:
        rule = CONSEQUENCES.get(((s["module"] or "").replace("-", "_"), s["param"]))
        path, _ = target(s, links)
        if not rule or path is None or same(base.get(path), s["value"]):
            continue
        for p, v in rule[0](s["value"], base, drivers).items():
            if p not in wanted:
                follows[p] = v
                why.add(rule[1])
    moved = list(clashes)
    for key in sorted(set(base) | set(after)):
        if key in wanted:
            continue
        b, a = base.get(key), after.get(key)
        if key in follows:
            if a != follows[key]:
                moved.append("%s: %s -> %s, the kernel makes it %s" % (name(key), b, a, follows[key]))
        elif b != a:
            moved.append("%s: %s -> %s" % (name(key), "absent" if b is None else b, "absent" if a is None else a))
    compared = len((set(base) | set(after)) - set(wanted))
    rep.result(not moved, "nothing else changed versus the baseline (%d attributes and parameters compared%s)" %
               (compared, "; %d follow from planned parameters: %s" % (len(follows), ", ".join(sorted(why)))
                if follows else ""), moved)
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main())

