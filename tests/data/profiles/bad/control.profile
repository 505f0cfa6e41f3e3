[usb]
autosuspend = keep
