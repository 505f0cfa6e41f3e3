# desktop.profile: the default for desktop, all-in-one and mini PC chassis.
# Every key is described in balanced.profile. A desktop idles most of its life too, so the
# device savings of balanced stay; what goes is what trades a feature or sound for battery.

[profile]
description = Desktops: balanced device savings, kernel defaults for sound
inherit = balanced

[audio]
# Powered speakers and amplifiers make the codec's power-down pop loudly (TLP #152 #61),
# and the saving matters on battery only.
power_save = keep
power_save_controller = keep

[gpu]
# No built-in panel, so no adaptive backlight to opt in to.
amdgpu_abm = keep

[kernel]
# No battery: a power cut is what loses data, and the hard-lockup report is worth more
# than a few NMIs on mains power. The kernel's watchdog stays.
nmi_watchdog = keep
dirty_writeback_centisecs = keep

[wifi]
# On mains power the few tenths of a watt are not worth the 20-300 ms latency spikes on an
# idle link (omarchy #6368); off also spares the cards whose firmware drops the link.
power_save = off
