# inih ignores text after the closing bracket
[usb] extra
autosuspend = keep
