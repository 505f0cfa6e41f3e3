#!/usr/bin/env python3
"""tests/vm/idle.py: the idle comparison of one profile's boot of the test VM.

    idle.py --machine NAME --idle SECONDS --baseline DIR
            --profile NAME DIR PLAN.json [--powertop DIR]

Each DIR is the output of one boot (snapshot.sh): idle.txt lists every device
under /sys/devices with its power/runtime_status after SECONDS of idle (path,
status, driver, subsystem, USB interface classes), snapshot.txt the power
attributes. The baseline boot has nothing installed, the profile's boot has
`idlecfg install --profile NAME`, the powertop boot ran `powertop --auto-tune`.

Prints, like compare.py, "ok<TAB>description" or "not ok<TAB>description" (or
"skip<TAB>why" when there is no powertop boot), each followed by "# " lines,
for two checks:
  1. idlecfg holds at least as many devices runtime-suspended as powertop,
     not counting devices powertop suspends only by an unsafe write, nor
     those whose runtime PM the plan skips because on a VM it saves nothing
     (virtio functions, the hypervisor's host bridge);
  2. idlecfg made no unsafe write: HID and USB audio devices keep the runtime
     PM and the state they had at baseline;
and one "summary<TAB>" line with the counts. The details name the devices
suspended under one and not the other, and each attribute powertop changes
that idlecfg leaves, with the plan's reason for it.
"""
import argparse
import json
import os
import re
import sys

sys.dont_write_bytecode = True      # the source tree may be read-only (distcheck)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import stable, sysctl_setting  # noqa: E402  (the names probe order does not change)

# USB interface classes whose runtime PM is unsafe to enable: HID (lost input
# and wake-up events, the reason systemd's hwdb allows only a few HID devices)
# and audio (clicks and dropped streams)
UNSAFE_CLASSES = {"03": "HID", "01": "audio"}


def read_idle(path):
    """stable device path -> (status, driver, subsystem, classes, real path)"""
    out = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 5:
                continue
            dev, status, driver, subsys, classes = parts
            out[stable(dev)] = (status, driver, subsys, [] if classes == "-" else classes.split(","), dev)
    return out


def read_snapshot(path):
    snap = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition("\t")
            snap[stable(key)] = value
    return snap


def suspended(idle):
    return {k for k, v in idle.items() if v[0] == "suspended"}


def describe(dev, idle):
    v = idle.get(dev)
    if not v:
        return dev
    extra = [x for x in (v[1], v[2]) if x != "-"]
    if v[3]:
        extra.append("interfaces " + ",".join(v[3]))
    return "%s (%s)" % (dev, ", ".join(extra)) if extra else dev


def unsafe_kind(devpath, idle):
    """'HID'/'audio' when the device (or the USB device an interface belongs to)
    is one whose runtime PM must stay as it is, else None"""
    v = idle.get(devpath)
    if v and v[2] == "usb":
        for c in v[3]:
            if c.lower() in UNSAFE_CLASSES:
                return UNSAFE_CLASSES[c.lower()] + " USB device"
    return None


def device_of(attr_path):
    """the device directory an attribute belongs to"""
    head, _, tail = attr_path.rpartition("/")
    if head.endswith("/power"):
        return head[: -len("/power")]
    return head


def plan_reason(plan, path):
    """what the plan says about the device or parameter an attribute belongs to"""
    if plan is None:
        return "no plan"
    dev = device_of(path)
    best = None
    # an ATA port (.../ataN, no subsystem): a planned port names its ata_port
    # class device, a skipped one the SCSI host below it (.../ataN/hostM/...)
    port = re.search(r"/(ata\d+)$", dev)
    for s in plan["settings"]:
        if port and s.get("devpath") and s["knob"] == "sata.runtime_pm" and (
                stable("/sys" + s["devpath"]) == dev + "/ata_port/" + port.group(1) or
                re.fullmatch(re.escape(dev) + r"/host[^/]+(/scsi_host/host[^/]+)?", stable("/sys" + s["devpath"]))):
            best = s
            break
        if s.get("devpath") and stable("/sys" + s["devpath"]) == dev:
            attr = s.get("attr")
            if attr and stable("/sys" + s["devpath"] + "/" + attr) == path:
                best = s
                break
            if best is None:
                best = s
        elif path.startswith("/sys/module/") and s.get("module"):
            mod, param = path.split("/")[3], path.split("/")[-1]
            if s["module"].replace("-", "_") == mod and s.get("param") == param:
                best = s
                break
    if best is None:
        # a knob the profile keeps for every device of its kind (no device named)
        for s in plan["settings"]:
            if not s.get("devpath") and not s.get("module") and "/%s-" % s["knob"].split(".")[0] in dev:
                best = s
                break
    if best is None:
        if path.startswith("/proc/sys/"):
            best = sysctl_setting(plan, path)
            if best is None:
                return "no idlecfg setting for this sysctl"
        else:
            return "idlecfg has no setting for this device or parameter"
    if best["skipped"]:
        return "%s: %s" % (best["knob"], best["reason"])
    return "%s planned %s: %s" % (best["knob"], best["value"], best["reason"])


class Report:
    def __init__(self):
        self.lines = []

    def result(self, status, desc, details=()):
        print("%s\t%s" % (status, desc))
        details = list(details)
        for d in details[:80]:
            print("# " + d)
        if len(details) > 80:
            print("# ... %d more" % (len(details) - 80))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--machine", required=True)
    ap.add_argument("--idle", required=True)
    ap.add_argument("--baseline", required=True)
    ap.add_argument("--profile", nargs=3, required=True, metavar=("NAME", "DIR", "PLAN"))
    ap.add_argument("--powertop")
    ap.add_argument("--measure", action="store_true",
                    help="the baseline and profile boots ran idlecfg measure --json (measure.json)")
    a = ap.parse_args()
    name, pdir, plan_path = a.profile
    who = "idlecfg %s" % name
    rep = Report()

    def load(d):
        try:
            return read_idle(os.path.join(d, "idle.txt")), read_snapshot(os.path.join(d, "snapshot.txt"))
        except OSError:
            return None, None

    base_idle, base_snap = load(a.baseline)
    prof_idle, prof_snap = load(pdir)
    pt_idle, pt_snap = load(a.powertop) if a.powertop else (None, None)
    try:
        with open(plan_path) as f:
            plan = json.load(f)
    except (OSError, ValueError):
        plan = None
    if base_idle is None or prof_idle is None:
        missing = "the baseline boot" if base_idle is None else "the %s boot" % name
        rep.result("not ok", "%s holds at least as many devices runtime-suspended as powertop after %s s idle" % (who, a.idle),
                   ["no idle sample from %s" % missing])
        rep.result("not ok", "%s makes no unsafe write (HID and USB audio runtime PM as at baseline)" % who,
                   ["no idle sample from %s" % missing])
        if a.measure:
            rep.result("not ok", "idlecfg measure --json in the guest agrees with the kernel's runtime_status",
                       ["no idle sample from %s" % missing])
        return 1

    counts = "nothing installed %d, %s %d" % (len(suspended(base_idle)), who, len(suspended(prof_idle)))
    if pt_idle is not None:
        counts = "nothing installed %d, powertop %d, %s %d" % (
            len(suspended(base_idle)), len(suspended(pt_idle)), who, len(suspended(prof_idle)))
    print("summary\t%s (%d devices): %s" % (a.machine, len(base_idle), counts))

    # 1. idlecfg against powertop
    if pt_idle is None:
        rep.result("skip", "%s holds at least as many devices runtime-suspended as powertop: no powertop boot (%s)" %
                   (who, counts))
    else:
        s_pt, s_ic, s_base = suspended(pt_idle), suspended(prof_idle), suspended(base_idle)
        details = ["runtime-suspended after %s s of idle: %s" % (a.idle, counts)]
        only_pt = sorted(s_pt - s_ic)
        only_ic = sorted(s_ic - s_pt)
        details.append("suspended under powertop, not under %s (%d):" % (who, len(only_pt)))
        details += ["  " + describe(d, pt_idle) for d in only_pt]
        details.append("suspended under %s, not under powertop (%d):" % (who, len(only_ic)))
        details += ["  " + describe(d, prof_idle) for d in only_ic]
        # the writes powertop makes that idlecfg leaves, with the plan's reason
        skipped = []
        pt_unsafe = []
        appeared = 0
        for key in sorted(set(pt_snap) | set(base_snap)):
            b, p = base_snap.get(key), pt_snap.get(key)
            if b == p or p is None:
                continue
            if b is None:
                # a device or module powertop brought (it loads msr,
                # cpufreq_stats and, through its Bluetooth check, bluetooth)
                appeared += 1
                continue
            kind = unsafe_kind(device_of(key), pt_idle)
            if kind:
                pt_unsafe.append("%s: %s -> %s (%s)" % (key, b, p, kind))
            if prof_snap.get(key) == p:
                continue
            skipped.append("  %s: %s -> %s, %s leaves %s; %s%s" % (
                key, b, p, who, prof_snap.get(key) or "absent",
                "UNSAFE (%s); " % kind if kind else "", plan_reason(plan, key)))
        details.append("writes powertop makes that %s skips (%d):" % (who, len(skipped)))
        details += skipped
        if appeared:
            details.append("(%d attributes of devices or modules that appeared only in the powertop boot not counted)" % appeared)
        # devices suspended under powertop only because of an unsafe write (HID,
        # USB audio): the goal is every safe saving, not those
        pt_unsafe_devs = {k for k in s_pt if unsafe_kind(k, pt_idle)} - s_base
        if pt_unsafe:
            details.append("unsafe writes powertop makes (%d):" % len(pt_unsafe))
            details += ["  " + u for u in pt_unsafe]
            details.append("powertop without its unsafe writes would hold %d devices suspended" % (len(s_pt) - len(pt_unsafe_devs)))
        # devices whose runtime PM the plan skips because on a VM it saves
        # nothing (virtio functions, the hypervisor's host bridge: #26): no
        # saving to match; named, not counted
        pt_nothing_devs = {k for k in s_pt - s_ic - s_base - pt_unsafe_devs
                           if "skipped: virtual machine" in plan_reason(plan, k + "/power/control")}
        if pt_nothing_devs:
            details.append("suspended under powertop only, where the plan skips runtime PM as saving nothing on a VM (%d, not counted):"
                           % len(pt_nothing_devs))
            details += ["  %s: %s" % (d, plan_reason(plan, d + "/power/control")) for d in sorted(pt_nothing_devs)]
        good = len(s_ic) >= len(s_pt) - len(pt_unsafe_devs) - len(pt_nothing_devs)
        rep.result("ok" if good else "not ok",
                   "%s holds at least as many devices runtime-suspended as powertop's safe writes after %s s idle "
                   "(%d vs %d, %d of them suspended only by an unsafe write, %d only where a VM saves nothing; "
                   "nothing installed %d)" %
                   (who, a.idle, len(s_ic), len(s_pt), len(pt_unsafe_devs), len(pt_nothing_devs), len(s_base)), details)

    # 2. no unsafe write by idlecfg
    bad = []
    for key in sorted(set(prof_snap) | set(base_snap)):
        b, p = base_snap.get(key), prof_snap.get(key)
        if b != p:
            kind = unsafe_kind(device_of(key), prof_idle) or unsafe_kind(device_of(key), base_idle)
            if kind:
                bad.append("%s: %s -> %s (%s)" % (key, b or "absent", p or "absent", kind))
    for dev, v in sorted(prof_idle.items()):
        kind = unsafe_kind(dev, prof_idle)
        if kind and v[0] == "suspended" and base_idle.get(dev, ("",))[0] != "suspended":
            bad.append("%s is runtime-suspended, at baseline %s (%s)" % (dev, base_idle.get(dev, ("absent",))[0], kind))
    checked = sorted(d for d in prof_idle if unsafe_kind(d, prof_idle))
    rep.result("ok" if not bad else "not ok",
               "%s makes no unsafe write: the %d HID and USB audio devices keep their runtime PM and state" % (who, len(checked)),
               bad if bad else ["checked: " + ", ".join(describe(d, prof_idle) for d in checked)] if checked else [])

    # 3. idlecfg measure in the guest against the kernel's runtime_status
    if a.measure:
        problems, n = [], 0
        for label, d, idle in (("before install", a.baseline, base_idle), ("after install (%s)" % name, pdir, prof_idle)):
            p, k = check_measure(d, idle)
            problems += ["%s: %s" % (label, x) for x in p]
            n += k
        rep.result("ok" if not problems and n else "not ok",
                   "idlecfg measure --json in the guest, before and after install, shows each device's runtime "
                   "suspended state as the kernel's runtime_status right after (%d devices compared)" % n,
                   problems)
    return 0


def check_measure(d, idle):
    """problems and the number of devices compared between measure.json and
    the kernel's runtime_status sampled right after it"""
    try:
        with open(os.path.join(d, "measure.rc")) as f:
            rc = f.read().strip()
        with open(os.path.join(d, "measure.json")) as f:
            m = json.load(f)
    except (OSError, ValueError) as e:
        err = ""
        try:
            with open(os.path.join(d, "measure.err"), errors="replace") as f:
                err = f.read().strip()[:500]
        except OSError:
            pass
        return ["no measure result (%s) %s" % (e, err)], 0
    problems, n, seen = [], 0, set()
    if rc not in ("0", "1"):
        problems.append("idlecfg measure exited %s" % rc)
    for dev in m.get("devices", []):
        if not dev.get("devpath"):
            continue
        key = stable("/sys" + dev["devpath"])
        seen.add(key)
        k = idle.get(key)
        if k is None:
            continue
        n += 1
        if dev.get("runtime_status") != k[0]:
            problems.append("%s: measure says runtime_status %s, the kernel %s" % (key, dev.get("runtime_status"), k[0]))
        # a device without runtime_*_time counters (USB interfaces, I2C adapters)
        # has no share: measure says null, and its runtime_status must agree
        elif k[0] == "suspended" and (dev.get("awake") or dev.get("suspended_percent") == 0):
            problems.append("%s: the kernel holds it suspended, measure says awake (%s%% suspended)" %
                            (key, dev.get("suspended_percent")))
    for key in sorted(suspended(idle) - seen):
        problems.append("%s: runtime-suspended, not in measure's devices" % describe(key, idle))
    return problems, n


if __name__ == "__main__":
    sys.exit(main())
