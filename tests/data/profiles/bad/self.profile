[profile]
inherit = self
[usb]
autosuspend = keep
