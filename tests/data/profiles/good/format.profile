; semicolon comment
# hash comment
	# indented comment
[usb]
autosuspend=allowlist
delay_ms	=	600000   
[gpu]
[audio]
power_save = 0
[usb]
[suspend]
mem_sleep = deep
hibernate = yes