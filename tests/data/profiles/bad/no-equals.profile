[sata]
alpm
