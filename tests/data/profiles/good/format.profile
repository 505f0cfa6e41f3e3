; semicolon comment
# hash comment
	# indented comment
[usb]
autosuspend=allowlist
delay_ms	=	600000   
[wifi]
[audio]
power_save = 0
[usb]
[kernel]
nmi_watchdog = 1
dirty_writeback_centisecs = 100