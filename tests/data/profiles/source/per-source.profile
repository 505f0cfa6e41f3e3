# per-source values in either order (tests/profile-unit.c)
[sata]
alpm = battery:min_power ac:min_power
[audio]
power_save = battery:5 ac:0
