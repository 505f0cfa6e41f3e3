[profile]
inherit = base

[usb]
# overrides base; delay_ms stays base's
autosuspend = off

[audio]
power_save = 1
