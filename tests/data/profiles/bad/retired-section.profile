[usb]
autosuspend = allowlist

[wifi]
power_save = on
