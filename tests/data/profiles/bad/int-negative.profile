[audio]
power_save = -1
