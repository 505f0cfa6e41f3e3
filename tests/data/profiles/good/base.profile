# base of the inherit tests
[profile]
description = Base profile

[sata]
alpm = med_power_with_dipm
# [sata] has no other key

[usb]
autosuspend = allowlist
delay_ms = 2000

[suspend]
mem_sleep = s2idle
