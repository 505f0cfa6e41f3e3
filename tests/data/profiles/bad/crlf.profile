# saved on Windows
[usb]
autosuspend = keep
