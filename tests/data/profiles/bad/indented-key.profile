[usb]
  autosuspend = keep
