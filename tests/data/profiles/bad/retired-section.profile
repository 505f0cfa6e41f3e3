[usb]
autosuspend = allowlist

[kernel]
nmi_watchdog = 0
