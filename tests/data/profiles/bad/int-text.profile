[usb]
delay_ms = 2s
