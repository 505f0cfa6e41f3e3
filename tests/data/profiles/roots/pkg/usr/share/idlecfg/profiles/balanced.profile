# stands in for the packaged balanced
[sata]
alpm = med_power_with_dipm
[usb]
autosuspend = allowlist
