#!/usr/bin/python3
# tests/salt-state.py FILE: read the output of a command as Salt's cmd.run
# with stateful: True does (_reinterpreted_state() of salt/states/cmd.py):
# JSON if the whole output is, else its last line shlex-split, each word
# split at its one '=' (a ValueError there fails the state). Prints
# "changed COMMENT" or "unchanged COMMENT", then each other key=value.
import json
import shlex
import sys

out = open(sys.argv[1]).read()
try:                                # Salt tries the whole output as JSON first
    json.loads(out)
    sys.exit("Salt would read this output as JSON")
except ValueError:
    pass
idx = out.rstrip().rfind("\n")
if idx != -1:
    out = out[idx + 1:]
data = {}
for item in shlex.split(out):
    key, val = item.split("=")       # Salt: a ValueError here fails the state
    data[key] = val
changed = data.get("changed", "no").lower() in ("yes", "true", "1")
print("changed" if changed else "unchanged", data["comment"])
for key in sorted(data):
    if key not in ("changed", "comment"):
        print("%s=%s" % (key, data[key]))
