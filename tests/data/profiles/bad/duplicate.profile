[sata]
alpm = keep

[usb]
autosuspend = keep

[sata]
alpm = min_power
