[sata]
alpm =
