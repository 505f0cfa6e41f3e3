#!/usr/bin/env python3
"""tests/vm/nic-qmp.py SOCKET CONSOLE LOG [DOWN]: the host's side of the nic
flow (tests/vm/nic.sh). Connects to QEMU's QMP socket once QEMU has made it,
waits for the guest's "idlecfg-vm-nic: ready" on the serial console (a file),
then turns the link of netdev n0 off (QMP set_link), keeps it off DOWN
seconds (default 20) and turns it on. LOG gets one line per step:
"EVENT<TAB>host seconds since ready<TAB>QMP's answer". Exits 0 when both
set_link calls were answered with a return, 1 otherwise (QEMU gone, no
ready within 900 s)."""
import json
import os
import socket
import sys
import time

sock_path, console, log_path = sys.argv[1:4]
down = float(sys.argv[4]) if len(sys.argv) > 4 else 20.0
deadline = time.time() + 900
log = open(log_path, "w", buffering=1)


def say(event, t0, what):
    log.write("%s\t%.2f\t%s\n" % (event, time.time() - t0 if t0 else 0.0, what))


s = None
while time.time() < deadline:
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(sock_path)
        break
    except OSError:
        s.close()
        s = None
        time.sleep(0.2)
if s is None:
    say("connect", None, "no QMP socket at %s" % sock_path)
    sys.exit(1)
f = s.makefile("rw")


def answer():
    """the next reply that is not an event"""
    while True:
        line = f.readline()
        if not line:
            raise EOFError("QEMU closed the QMP socket")
        msg = json.loads(line)
        if "event" not in msg:
            return msg


def execute(cmd, **args):
    f.write(json.dumps({"execute": cmd, "arguments": args} if args else {"execute": cmd}) + "\n")
    f.flush()
    return answer()


try:
    answer()                                  # the greeting
    execute("qmp_capabilities")
    t0 = None
    while time.time() < deadline and t0 is None:
        try:
            with open(console, errors="replace") as c:
                if "idlecfg-vm-nic: ready" in c.read():
                    t0 = time.time()
        except OSError:
            pass
        if t0 is None:
            time.sleep(0.2)
    if t0 is None:
        say("ready", None, "no 'idlecfg-vm-nic: ready' on the console within 900 s")
        sys.exit(1)
    say("ready", t0, "seen on the console")
    r1 = execute("set_link", name="n0", up=False)
    say("link-off", t0, json.dumps(r1))
    time.sleep(down)
    r2 = execute("set_link", name="n0", up=True)
    say("link-on", t0, json.dumps(r2))
    sys.exit(0 if "return" in r1 and "return" in r2 else 1)
except (EOFError, OSError, ValueError) as e:
    say("error", None, str(e))
    sys.exit(1)
