[usb] ; USB devices
autosuspend = keep
