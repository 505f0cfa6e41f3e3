[usb]
autosuspend = keepallowlist
