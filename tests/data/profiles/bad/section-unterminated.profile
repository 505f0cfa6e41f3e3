[usb
autosuspend = keep
