#!/usr/bin/python3
# tests/power-uevent.py RECORDING MODPARAMS ROOT IDLECFG: real uevents through
# umockdev (run under umockdev-wrapper). A testbed of the recording sends
# power_supply "change" uevents; a gudev listener in this process receives
# them and, for each, starts the command the installed udev rule runs
# (ROOT/etc/udev/rules.d/70-idlecfg-power-source.rules, RUN+=, without its
# systemd-run prefix), one job per event as systemd-run --no-block does.
# Prints one line per step: the live values after the jobs finished.
import os, re, shlex, subprocess, sys
import gi
gi.require_version('UMockdev', '1.0')
gi.require_version('GUdev', '1.0')
from gi.repository import GLib, GUdev, UMockdev

rec, modparams, root, idlecfg = sys.argv[1:5]
tb = UMockdev.Testbed.new()
if not tb.add_from_file(rec):
    sys.exit('cannot load ' + rec)
sysroot = tb.get_root_dir()
for line in open(modparams):
    line = line.strip()
    if not line or line.startswith('#'):
        continue
    key, value = line.split('=', 1)
    mod, par = key.split('/', 1)
    os.makedirs('%s/sys/module/%s/parameters' % (sysroot, mod), exist_ok=True)
    with open('%s/sys/module/%s/parameters/%s' % (sysroot, mod, par), 'w') as f:
        f.write(value + '\n')

rule = open(root + '/etc/udev/rules.d/70-idlecfg-power-source.rules').read()
run = shlex.split(re.search(r'RUN\+="([^"]*)"', rule).group(1))
prog = next(i for i, w in enumerate(run) if w.endswith('/idlecfg'))
assert run[0] == '/usr/bin/systemd-run' and '--no-block' in run[:prog], run
command = [idlecfg, '--root', root] + run[prog + 1:]

AC = '/sys/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/ACAD'
BAT = '/sys/devices/LNXSYSTM:00/LNXSYBUS:00/PNP0C0A:00/power_supply/BAT0'
jobs = []
loop = GLib.MainLoop()
client = GUdev.Client.new(['power_supply'])

def on_uevent(client, action, device):
    if action == 'change':
        jobs.append(subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
client.connect('uevent', on_uevent)

def event(online, status, send):
    tb.set_attribute(AC, 'online', online)
    tb.set_attribute(BAT, 'status', status)
    if send:
        tb.uevent(AC, 'change')
    return False

def finish():
    if any(j.poll() is None for j in jobs):
        return True
    loop.quit()
    return False

def step(name, schedule):
    del jobs[:]
    for ms, online, status, send in schedule:
        GLib.timeout_add(ms, event, online, status, send)
    GLib.timeout_add(schedule[-1][0] + 100, lambda: GLib.timeout_add(50, finish) and False)
    loop.run()
    out = b''.join(j.stdout.read() for j in jobs).decode(errors='replace')
    hda = open(sysroot + '/sys/module/snd_hda_intel/parameters/power_save').read().strip()
    state = open(root + '/run/idlecfg/power-source').read().strip()
    print('%s jobs=%d rc=%s power_save=%s state=%s' % (name, len(jobs), ','.join(str(j.returncode) for j in jobs),
                                                       hda, state))
    sys.stdout.flush()
    with open('%s.%s.out' % (root, name), 'w') as f:
        f.write(out)

# unplugged: one event
step('unplug', [(0, '0', 'Discharging', True)])
# plugged in, then online drops to 0 for 150 ms, and its return to 1 sends no
# event (as on the Framework laptop whose tuned-ppd latched battery): the job
# of the 0 must not decide on that one look. The drop comes 400 ms after the
# plug, when the plug's job is done, so that the lock does not hide it
step('bounce', [(0, '1', 'Charging', True), (400, '0', 'Discharging', True), (550, '1', 'Charging', False)])
