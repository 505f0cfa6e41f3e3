[usb]
autosuspend = keep
