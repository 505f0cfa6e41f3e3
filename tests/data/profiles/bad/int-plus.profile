[audio]
power_save = +5
