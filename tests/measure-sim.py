#!/usr/bin/env python3
# tests/measure-sim.py: plays the kernel's counters in a umockdev testbed for
# tests/measure.sh. "init" adds what recordings lack (runtime PM times, cpuidle
# states, a RAPL zone near its wrap, a wakeup source, a system residency
# counter, /proc/interrupts in PROC); "keep MS" lets MS milliseconds pass with
# every device in the state it is in; "kernel MS" first puts every device in
# the state runtime PM would (suspended unless power/control is on, or an
# awake child holds it), then lets the time pass. Power, deep idle and
# interrupts follow the number of awake devices, so that fewer awake devices
# measure as fewer watts. With CSTATE=1, "init" adds Intel's cstate_pkg PMU
# (PC2, PC6, PC8, PC10 events) to the mock /sys and its counts to
# $UMOCKDEV_DIR/perf, where idlecfg reads them under umockdev instead of
# perf_event_open (PERF_REFUSED=1: a refusal), takes ASPM L1 off the NVMe
# link and keeps that function awake; the package reaches PC8, never PC10.
# LPIT_CPU=1 adds LPIT's CPU (PC10) residency counter, which moves.
import os
import sys

sysdir = os.environ["UMOCKDEV_DIR"] + "/sys"
proc = os.environ["PROCDIR"]
clock = os.environ["IDLECFG_TEST_CLOCK"]
RAPL = sysdir + "/devices/virtual/powercap/intel-rapl/intel-rapl:0"
PMU = sysdir + "/bus/event_source/devices/cstate_pkg"
PERF = os.environ["UMOCKDEV_DIR"] + "/perf"
NVME = sysdir + "/devices/pci0000:00/0000:00:06.0/0000:01:00.0"
# the share of the time in each package C-state, per mille
PKG = {"c2-residency": 100, "c6-residency": 200, "c8-residency": 300, "c10-residency": 0}
MAX_UJ = 262143328850


def rd(path, default=None):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def wr(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("%s\n" % value)


def devices():
    out = []
    for root, dirs, files in os.walk(sysdir + "/devices"):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]
        if "uevent" in files and os.path.exists(root + "/power/runtime_status"):
            out.append(root)
    return sorted(out)


def awake_count():
    return sum(1 for d in devices() if rd(d + "/power/runtime_status") == "active")


def init():
    for d in devices():
        wr(d + "/power/runtime_active_time", 0)
        wr(d + "/power/runtime_suspended_time", 0)
    if os.environ.get("NOCPUIDLE") != "1":
        wr(sysdir + "/devices/system/cpu/cpuidle/current_driver", "intel_idle")
        for cpu in range(4):
            for i, name in enumerate(["POLL", "C1", "C10"]):
                base = "%s/devices/system/cpu/cpu%d/cpuidle/state%d" % (sysdir, cpu, i)
                wr(base + "/name", name)
                wr(base + "/time", 1000)
                wr(base + "/usage", 10)
    wr(sysdir + "/devices/system/cpu/cpuidle/low_power_idle_system_residency_us", 0)
    wr(RAPL + "/name", "package-0")
    wr(RAPL + "/energy_uj", MAX_UJ - 1000000)
    wr(RAPL + "/max_energy_range_uj", MAX_UJ)
    wr(sysdir + "/devices/virtual/powercap/intel-rapl/enabled", 1)
    os.makedirs(sysdir + "/class/powercap", exist_ok=True)
    for z in ["intel-rapl", "intel-rapl:0"]:
        link = sysdir + "/class/powercap/" + z
        if not os.path.islink(link):
            os.symlink("../../devices/virtual/powercap/intel-rapl" + ("/" + z if z != "intel-rapl" else ""), link)
    w = sysdir + "/devices/virtual/wakeup/wakeup0"
    wr(w + "/name", "PNP0C0D:00")
    wr(w + "/event_count", 5)
    wr(w + "/wakeup_count", 1)
    os.makedirs(sysdir + "/class/wakeup", exist_ok=True)
    if not os.path.islink(sysdir + "/class/wakeup/wakeup0"):
        os.symlink("../../devices/virtual/wakeup/wakeup0", sysdir + "/class/wakeup/wakeup0")
    if os.environ.get("NOPROC") != "1":
        interrupts(0)
    if os.environ.get("CSTATE") == "1":
        wr(PMU + "/type", 23)
        wr(PMU + "/cpumask", 0)
        for i, ev in enumerate(PKG):
            wr(PMU + "/events/" + ev, "event=0x%02x" % [0, 2, 4, 6][i])
            wr(PERF + "/" + ev, 0)
        wr(PERF + "/tsc", 0)
        if os.environ.get("PERF_REFUSED") == "1":
            wr(PERF + "/refused", "EACCES")
        wr(NVME + "/link/l1_aspm", 0)
        wr(NVME + "/power/control", "on")
        wr(NVME + "/power/runtime_status", "active")
    if os.environ.get("LPIT_CPU") == "1":
        wr(sysdir + "/devices/system/cpu/cpuidle/low_power_idle_cpu_residency_us", 0)
    wr(clock + "/now", 1000)


def interrupts(awake):
    old = {}
    text = rd(proc + "/interrupts", "")
    for line in text.splitlines()[1:]:
        label, rest = line.split(":", 1)
        old[label.strip()] = [int(x) for x in rest.split()[:2]]
    def n(label, add):
        a, b = old.get(label, [0, 0])
        return a + add, b + add
    rows = [("0", "IO-APIC   2-edge      timer", 0),
            ("127", "PCI-MSI 327680-edge      xhci_hcd", 10 * awake),
            ("LOC", "Local timer interrupts", 1000)]
    os.makedirs(proc, exist_ok=True)
    with open(proc + "/interrupts", "w") as f:
        f.write("           CPU0       CPU1       \n")
        for label, desc, add in rows:
            a, b = n(label, add)
            f.write("%4s: %10d %10d   %s\n" % (label, a, b, desc))


def kernel():
    devs = devices()
    state = {}
    # children first: a device is awake if its control is on or a child is awake
    for d in reversed(devs):
        status = rd(d + "/power/runtime_status")
        if status == "unsupported":
            state[d] = "unsupported"
            continue
        kids = [c for c in devs if c.startswith(d + "/") and state.get(c) == "active"]
        state[d] = "active" if rd(d + "/power/control") == "on" or kids else "suspended"
    for d, s in state.items():
        if s != "unsupported":
            wr(d + "/power/runtime_status", s)


def advance(ms):
    awake = awake_count()
    for d in devices():
        status = rd(d + "/power/runtime_status")
        if status == "unsupported":
            continue
        f = d + ("/power/runtime_active_time" if status == "active" else "/power/runtime_suspended_time")
        wr(f, int(rd(f, "0")) + ms)
    if os.environ.get("NOCPUIDLE") != "1":
        deep = max(0, 900 - 10 * awake)        # per mille of the time in C10
        for cpu in range(4):
            base = "%s/devices/system/cpu/cpu%d/cpuidle/state2" % (sysdir, cpu)
            wr(base + "/time", int(rd(base + "/time")) + ms * deep)
            wr(base + "/usage", int(rd(base + "/usage")) + ms // 100)
    r = sysdir + "/devices/system/cpu/cpuidle/low_power_idle_system_residency_us"
    wr(r, int(rd(r)) + ms * max(0, 500 - 10 * awake))
    if os.environ.get("LPIT_CPU") == "1":
        r = sysdir + "/devices/system/cpu/cpuidle/low_power_idle_cpu_residency_us"
        wr(r, int(rd(r)) + ms * 250)
    if os.environ.get("CSTATE") == "1":
        # the TSC at 1 MHz: a count per microsecond
        for ev, share in PKG.items():
            wr(PERF + "/" + ev, int(rd(PERF + "/" + ev)) + ms * share)
        wr(PERF + "/tsc", int(rd(PERF + "/tsc")) + ms * 1000)
    # 2 W plus 50 mW for each awake device
    uj = ms * (2000 + 50 * awake)
    e = int(rd(RAPL + "/energy_uj")) + uj
    wr(RAPL + "/energy_uj", e - MAX_UJ if e > MAX_UJ else e)
    w = sysdir + "/devices/virtual/wakeup/wakeup0"
    wr(w + "/event_count", int(rd(w + "/event_count")) + 2)
    if os.environ.get("NOPROC") != "1":
        interrupts(awake)
    wr(clock + "/now", int(rd(clock + "/now", "0")) + ms)


if sys.argv[1] == "init":
    init()
elif sys.argv[1] == "keep":
    advance(int(sys.argv[2]))
elif sys.argv[1] == "kernel":
    kernel()
    advance(int(sys.argv[2]))
