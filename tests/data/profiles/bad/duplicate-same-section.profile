[usb]
autosuspend = keep
delay_ms = 100
autosuspend = allowlist
