# performance.profile: idlecfg changes nothing; the kernel, firmware and driver defaults stay.
# Every key is described in balanced.profile. Every key is set here, so that the profile
# means the same whatever balanced.profile says.

[profile]
description = Leave every kernel, firmware and driver default alone

[pcie_aspm]
policy = keep
links = no

[pci]
runtime_pm = keep

[sata]
alpm = keep
runtime_pm = keep
mask_port_ext = no

[nvme]
apst = keep

[usb]
autosuspend = keep
delay_ms = keep

[bluetooth]
autosuspend = keep

[audio]
power_save = keep
power_save_controller = keep

[gpu]
i915_fbc = keep
i915_psr = keep
amdgpu_abm = keep
runtime_pm = keep

[i2c]
runtime_pm = keep

[suspend]
mem_sleep = keep
hibernate = no

[kernel]
nmi_watchdog = keep
dirty_writeback_centisecs = keep

[wifi]
power_save = keep

[network]
wake_on_lan = keep

[wakeup]
spurious = keep

[removable]
policy = keep
dock = keep
