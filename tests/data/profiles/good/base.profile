# base of the inherit tests
[profile]
description = Base profile

[sata]
alpm = med_power_with_dipm
runtime_pm = keep

[usb]
autosuspend = allowlist
delay_ms = 2000

[kernel]
nmi_watchdog = 0
