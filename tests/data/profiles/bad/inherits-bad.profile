[profile]
inherit = unknown-value
[usb]
autosuspend = keep
