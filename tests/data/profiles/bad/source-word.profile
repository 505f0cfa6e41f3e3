[audio]
power_save = ac:1 dc:1
