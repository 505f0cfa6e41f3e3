[sata]
alpm = ac:min_power ac:max_performance
