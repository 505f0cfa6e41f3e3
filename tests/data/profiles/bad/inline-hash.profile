# inih would keep "min_power # x" as the value
[sata]
alpm = min_power # x
