# a typo in a section name
[pcie_aspm]
policy = default
[usbb]
autosuspend = keep
