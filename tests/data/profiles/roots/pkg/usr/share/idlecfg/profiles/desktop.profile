# stands in for the packaged desktop
[usb]
autosuspend = allowlist
