[usb]
autosuspend = allowlist
    keep
