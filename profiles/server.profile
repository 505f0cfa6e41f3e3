# server.profile: the default for server, rack and blade chassis.
# Every key is described in balanced.profile. Built on performance (change nothing), with
# only what fixes known-bad hardware or protects hot-swap bays.

[profile]
description = Servers: kernel defaults, NVMe quirks, SATA link power management off
inherit = performance

[nvme]
# The hwdb's per-drive APST limits fix drives that drop off the bus under load
# (raspberrypi/linux #6661); a lost drive is worse on a server than anywhere else.
apst = quirks

[sata]
# Hot-swap backplanes: link power management has lost hot-plug events (system76-power #417),
# and the kernel only exempts ports the firmware marks as hot-plug. Since 6.11 the kernel
# defaults to med_power_with_dipm, so keep would not mean max_performance.
alpm = max_performance
