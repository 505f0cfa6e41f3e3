[usb]
delay_ms = 600001
