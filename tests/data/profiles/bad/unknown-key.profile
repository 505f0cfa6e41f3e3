[usb]
autosuspnd = keep
