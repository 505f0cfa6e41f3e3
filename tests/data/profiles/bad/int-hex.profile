[audio]
power_save = 0x10
