[audio]
power_save = ac:1 battery:keep
