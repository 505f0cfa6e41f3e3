#!/usr/bin/env python3
"""tests/bench/powertop-compare.py WORK MACHINES-DIR "PROFILES" MACHINE...:
the tables of powertop-bench.sh.

WORK/MACHINE/TOOL/{before,after} are the mock /sys of one run (path<TAB>value),
procsys.{before,after} the sandbox's /proc/sys copies; TOOL is each profile and
powertop. Per machine: a table of changed attributes per knob family for each
tool, and the writes powertop makes that idlecfg (the first profile) does not
make, each with what idlecfg's plan says about that device.
"""
import json
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vm"))
from compare import sysctl_setting  # noqa: E402  (shared with tests/vm/idle.py)

PCI = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
USB_DEV = re.compile(r"^(usb\d+|\d+-[\d.]+)$")


def read(path):
    out = {}
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("\t")
            if k.startswith("./"):
                k = "/proc/sys/" + k[2:]
            out[k] = v
    return out


def changes(d):
    b = read(os.path.join(d, "before"))
    a = read(os.path.join(d, "after"))
    b.update(read(os.path.join(d, "procsys.before")))
    a.update(read(os.path.join(d, "procsys.after")))
    return {k: (b.get(k), a.get(k)) for k in set(a) | set(b) if a.get(k) != b.get(k)}


def device_of(path):
    head = path.rsplit("/", 1)[0]
    return head[: -len("/power")] if head.endswith("/power") else head


def family(path):
    name = path.rsplit("/", 1)[1]
    comps = device_of(path).split("/")
    last = comps[-1]
    if path == "/proc/sys/kernel/nmi_watchdog":
        return "NMI watchdog (sysctl)"
    if path.startswith("/proc/sys/vm/"):
        return "VM writeback (sysctl)"
    if path.startswith("/proc/sys/"):
        return "other sysctl"
    if path.startswith("/sys/module/snd_hda_intel/") or path.startswith("/sys/module/snd_ac97_codec/"):
        return "audio codec power save (module parameter)"
    if path.startswith("/sys/module/pcie_aspm/") or "/link/" in path:
        return "PCIe ASPM"
    if path.startswith("/sys/module/"):
        return "other module parameters"
    if name == "link_power_management_policy":
        return "SATA link power management (ALPM)"
    if "usb" in name and "lpm" in name:
        return "USB link power management"
    if name == "wakeup":
        return "wake-up"
    if name in ("control", "autosuspend_delay_ms", "autosuspend"):
        if re.fullmatch(r"ata\d+", last):
            return "runtime PM: ATA ports"
        if USB_DEV.match(last):
            return "runtime PM: USB devices (autosuspend)"
        if PCI.match(last):
            return "runtime PM: PCI devices"
        if last.startswith("i2c-") or any(c.startswith("i2c-") for c in comps[-2:]):
            return "runtime PM: I2C"
        if re.fullmatch(r"\d+:\d+:\d+:\d+", last) or last.startswith("host") or last.startswith("target"):
            return "runtime PM: SCSI/ATA disks and hosts"
        if "hdaudio" in last or last.startswith("card"):
            return "runtime PM: audio codecs and cards"
        return "runtime PM: other devices"
    return "other attributes"


def find_setting(plan, path):
    """the plan's setting for the attribute's device (or module parameter); for
    a device without one, the nearest ancestor's setting of the same kind (an
    I2C adapter's runtime PM is planned on its controller)"""
    dev = device_of(path)
    if path.startswith("/sys/module/"):
        mod, param = path.split("/")[3], path.split("/")[-1]
        for s in plan["settings"]:
            if s.get("module") and s["module"].replace("-", "_") == mod and s.get("param") == param:
                return s, None
        return None, None
    best = None
    # an ATA port (.../ataN, no subsystem): a planned port names its ata_port
    # class device, a skipped one the SCSI host below it (.../ataN/hostM/...)
    port = re.search(r"/(ata\d+)$", dev)
    if port:
        for s in plan["settings"]:
            if s.get("devpath") and s["knob"] == "sata.runtime_pm" and (
                    "/sys" + s["devpath"] == "%s/ata_port/%s" % (dev, port.group(1)) or
                    re.fullmatch(re.escape(dev) + r"/host\d+(/scsi_host/host\d+)?", "/sys" + s["devpath"])):
                return s, None
    for s in plan["settings"]:
        if s.get("devpath") and "/sys" + s["devpath"] == dev:
            if s.get("attr") and "/sys%s/%s" % (s["devpath"], s["attr"]) == path:
                return s, None
            best = best or s
    if best:
        return best, None
    up = dev
    while up.count("/") > 3:
        up = up.rsplit("/", 1)[0]
        for s in plan["settings"]:
            kind = s["knob"].split(".")[0]
            if s.get("devpath") and "/sys" + s["devpath"] == up and kind in dev[len(up):]:
                return s, up
    # a knob the profile keeps for every device of its kind (no device named)
    for s in plan["settings"]:
        if not s.get("devpath") and not s.get("module") and "/%s-" % s["knob"].split(".")[0] in dev:
            return s, None
    return None, None


def plan_reason(plan, path):
    if plan is None:
        return "no plan"
    best, via = find_setting(plan, path)
    if best is None:
        if path.startswith("/proc/sys/"):
            best = sysctl_setting(plan, path)
            if best is None:
                return "no idlecfg setting for this sysctl"
        else:
            return "idlecfg has no setting for this device"
    on = " (on %s)" % via.rsplit("/", 1)[1] if via else ""
    if best["skipped"]:
        return "%s%s skipped: %s" % (best["knob"], on, best["reason"].replace("skipped: ", ""))
    return "%s%s planned %s (%s)" % (best["knob"], on, best["value"], best["reason"])


def header(machine_dir):
    """the machine's name from the recording's first '#' line"""
    try:
        with open(os.path.join(machine_dir, "machine.umockdev"), encoding="utf-8") as f:
            first = f.readline()
        if first.startswith("#"):
            return first.lstrip("# ").strip()
    except OSError:
        pass
    return ""


def main():
    work, mdir, profiles, machines = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4:]
    tools = profiles + ["powertop"]
    cols = ["idlecfg " + p for p in profiles] + ["powertop", "powertop only"]
    totals = {c: 0 for c in cols}
    for m in machines:
        ch = {t: changes(os.path.join(work, m, t)) for t in tools}
        try:
            with open(os.path.join(work, m, profiles[0], "plan.json")) as f:
                plan = json.load(f)
        except (OSError, ValueError):
            plan = None
        fams = sorted({family(p) for t in tools for p in ch[t]})
        print()
        print("%s: %s" % (m, header(os.path.join(mdir, m))))
        w = max([len(f) for f in fams] + [len("total")])
        print("  %-*s  %s" % (w, "knob family (attributes changed)", "  ".join("%14s" % c for c in cols)))
        rows = []
        ref = ch[profiles[0]]
        for f in fams + ["total"]:
            vals = []
            for t in tools:
                vals.append(sum(1 for p in ch[t] if f == "total" or family(p) == f))
            only = sum(1 for p, (b, a) in ch["powertop"].items()
                       if (f == "total" or family(p) == f) and ref.get(p, (None, None))[1] != a)
            vals.append(only)
            rows.append((f, vals))
        for f, vals in rows:
            print("  %-*s  %s" % (w, f, "  ".join("%14d" % v for v in vals)))
        for c, v in zip(cols, rows[-1][1]):
            totals[c] += v
        skipped = sorted((p, b, a) for p, (b, a) in ch["powertop"].items() if ref.get(p, (None, None))[1] != a)
        if skipped:
            print("  writes powertop makes that idlecfg %s does not (%d):" % (profiles[0], len(skipped)))
            for p, b, a in skipped:
                print("    [%s] %s: %s -> %s; %s" % (family(p), p, b or "absent", a or "absent", plan_reason(plan, p)))
        extra = sorted(p for p in ref if p not in ch["powertop"])
        if extra:
            print("  changed by idlecfg %s, not by powertop (%d): %s" % (profiles[0], len(extra), ", ".join(
                "%s=%s" % (p, ref[p][1]) for p in extra)))
    print()
    print("all machines: " + ", ".join("%s %d" % (c, totals[c]) for c in cols))
    print("(not seen here: powertop's Wake-on-LAN, Wi-Fi and Bluetooth tunables act through ioctls and")
    print(" netlink on live interfaces, which the sandbox's empty network namespace does not have)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
