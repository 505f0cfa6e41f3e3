[sata]
alpm = ac:min_power battery:min
