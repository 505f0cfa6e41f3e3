# inih files this under section ""

autosuspend = keep
[usb]
