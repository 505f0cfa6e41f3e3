# the brief's example: a value that is not one of the valid words
[profile]
description = Unknown value test

[pcie_aspm]
policy = default
[sata]
alpm = medium
