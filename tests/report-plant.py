#!/usr/bin/env python3
"""tests/report-plant.py IN OUT SECRETS: a copy of a umockdev recording whose
unit identities are set to unique values (the in-tree recordings zero them),
for tests/report.sh: every serial number, MAC address, NVMe NQN, DMI serial,
UUID and asset tag, and the udev properties that carry them. OUT gets the
recording without its '#' provenance lines; SECRETS one value a line, each of
which a report must not contain (the recording's own UUIDs too)."""
import re
import sys

src, dst, secrets_path = sys.argv[1:4]
secrets = []
n = 0


def unique(kind):
    global n
    n += 1
    if kind == "mac":
        v = "02:5e:%02x:%02x:%02x:%02x" % (0x11, 0x22, n // 256, n % 256)
    elif kind == "uuid":
        v = "5ec7e7%02x-1d0e-4a11-9b2c-%012x" % (n % 256, 0x5ec7e7000000 + n)
    else:
        v = "Q7XK%04dZP" % n
    secrets.append(v)
    return v


PCI_NAME = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
out = []
dmi = False
for line in open(src, encoding="utf-8"):
    if line.startswith("#"):
        continue
    if line.startswith("P: "):
        dmi = line.strip() == "P: /devices/virtual/dmi/id"
    m = re.match(r"^A: (address|perm_address|macaddress)=([0-9a-f:]{17})\\n$", line)
    if m:
        line = "A: %s=%s\\n\n" % (m.group(1), unique("mac"))
    m = re.match(r"^A: serial=(.*)\\n$", line)
    if m and not PCI_NAME.match(m.group(1)):
        line = "A: serial=%s\\n\n" % unique("serial")
    m = re.match(r"^A: subsysnqn=(.*)\\n$", line)
    if m:
        line = "A: subsysnqn=nqn.2014.08.org.nvmexpress:%s\\n\n" % unique("serial")
    m = re.match(r"^E: (ID_SERIAL_SHORT|ID_SERIAL|ID_WWN|ID_WWN_WITH_EXTENSION)=(.*)$", line)
    if m:
        line = "E: %s=%s\n" % (m.group(1), unique("serial"))
    for u in re.findall(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", line):
        secrets.append(u)
    m = re.match(r"^E: ID_(FS|PART_ENTRY|PART_TABLE)_UUID(_ENC)?=(.+)$", line)
    if m:
        secrets.append(m.group(3))
    out.append(line)
    if dmi and line.startswith("P: "):
        for attr in ("product_serial", "board_serial", "chassis_serial", "board_asset_tag", "chassis_asset_tag"):
            out.append("A: %s=%s\\n\n" % (attr, unique("serial")))
        out.append("A: product_uuid=%s\\n\n" % unique("uuid"))

open(dst, "w", encoding="utf-8").writelines(out)
with open(secrets_path, "w", encoding="utf-8") as f:
    for s in sorted(set(secrets)):
        f.write(s + "\n")
