[sata]
alpm: min_power
