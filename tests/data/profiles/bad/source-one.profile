[audio]
power_save = ac:1
