# balanced.profile: the default for laptops, convertibles, tablets and unknown hardware.
#
# This file is the reference for the profile format; every key is described here.
#
# Format (read with inih, checked strictly by idlecfg):
#   - "[section]" lines and "key = value" lines, each starting at the beginning of the line.
#   - Comments are whole lines starting with '#' or ';'. A ';' or '#' after other text is an
#     error: inline comments are not supported. Indented lines (continuations) are errors.
#   - Lines are at most 198 bytes, section and key names at most 49 characters.
#   - Plain UTF-8 without a BOM, LF line endings. Each key at most once per file.
#   - Unknown sections, keys and values are errors that list the valid ones.
#   - A knob idlecfg can change at run time may take one value on AC and another on
#     battery: "key = ac:VALUE battery:VALUE" (both, neither keep). The files install
#     writes hold the AC value; "idlecfg power-source", run by a udev rule on
#     power_supply changes, at boot and after resume, writes the battery values while the
#     machine runs on battery and puts the AC ones back. Keys that cannot change at run
#     time (command-line words, read-only parameters, NetworkManager's wifi.powersave)
#     refuse it with the file and line.
#
# Where profiles are found (first match wins), NAME.profile in:
#   /etc/idlecfg/profiles             the admin's profiles and overrides
#   /usr/share/idlecfg/profiles       the packaged ones (this file)
# A profile in /etc may inherit its own name to extend the packaged one:
#   [profile]
#   inherit = balanced
#   [sata]
#   alpm = max_performance
#
# How a value combines with the hwdb: a value is the most idlecfg may do for that knob.
#   keep       plan nothing for this knob: the kernel's, firmware's or driver's default stays,
#              and hwdb entries for it are not used either.
#   other      plan that setting. Known-bad hwdb entries (quirks) still win and skip or lower it
#              per device or platform; known-good entries (allowlists, platform opt-ins) are
#              used only where the value asks for them (allowlist, platform, quirks).
# A key no profile in the chain sets is the same as keep. Every setting is planned only if
# the knob exists on this hardware and in the target kernel.

[profile]
# Free text shown by "idlecfg plan"; no double quotes or backslashes.
description = Default for laptops: settings known to be safe, with the hwdb's per-device lists
# inherit = NAME builds on another profile: its values first, then this file's on top.
# Chains are at most 8 profiles deep; cycles are errors.

[pcie_aspm]
# policy = default | performance | powersave | powersupersave | keep
# The global pcie_aspm policy (module parameter, also writable at run time).
#   default         the link states the firmware configured: a BIOS that enables ASPM keeps it.
#   powersave       L0s and L1 where the devices declare them.
#   powersupersave  powersave plus the L1.1/L1.2 substates (kernel 4.11+).
#   performance     ASPM off.
#   keep            leave CONFIG_PCIEASPM_* and the firmware alone.
# default: vendors validate their laptops with the firmware's setting. Forcing more has cost
# a Wi-Fi card after resume (laptop-mode-tools #195) and resume freezes (TLP 1.6.0). The write
# fails where FADT/_OSC deny the OS control of ASPM; that is reported, not retried.
policy = default
# links = yes | no
# yes: per-link L1 substates (link/l1_1_aspm, l1_2_aspm, ... since 5.5) for the devices the
# hwdb lists as safe, on top of the global policy. no: never touch per-link files.
# yes: these are the per-device savings the global "default" leaves out, and only hwdb
# entries with a source enable them.
links = yes

[pci]
# runtime_pm = auto | on | keep
# power/control of PCI devices: auto lets idle devices go to D3; on keeps them powered.
# auto: most devices default to on and sit in D0 forever. hwdb quirks keep the known-bad ones
# on (xHCI controllers that lose USB devices, TLP #587 and #436; mei_me; discrete GPUs,
# which [gpu] runtime_pm decides).
# auto on both sources: TLP keeps PCI runtime PM off on AC (RUNTIME_PM_ON_AC=on), but a
# machine without a battery always counts as on AC, and balanced is also the profile of
# unknown hardware (VMs, boards without a chassis type): "on" there would keep every device
# awake for good. The devices users complain about are denied per device by the hwdb.
runtime_pm = auto

[sata]
# alpm = max_performance | medium_power | med_power_with_dipm | min_power_with_partial
#        | min_power | keep
# SATA link power management (scsi_host link_power_management_policy).
# med_power_with_dipm: the kernel's own default since 6.11 (CONFIG_SATA_MOBILE_LPM_POLICY=3);
# planned explicitly so older kernels get it too. min_power has caused read-only remounts
# (TLP #84). Ports that do not support LPM refuse the write (EOPNOTSUPP), and the kernel keeps
# external and hot-plug ports at the firmware's setting.
alpm = med_power_with_dipm
# runtime_pm = auto | on | keep
# power/control of the AHCI ports (AHCI runtime PM) and of zero-power optical drives.
#   auto  only ports nothing can appear on (empty, and ahci_port_cmd shows no hot-plug,
#         presence-switch or external bit) and ports holding only a ZPODD drive (libata
#         exposes power/pm_qos_no_power_off for it). Ports with a disk, disks themselves and
#         platforms the hwdb denies (IDLECFG_AHCI_RUNTIME_PM) are never touched.
#   on    runtime PM off on every AHCI port.
# auto: ports with disks are suspected in resume freezes (TLP 1.6.0, #593 #606 #698) and disk
# runtime PM spins disks up and down (TLP #848), so those stay as the kernel has them; an empty
# internal port loses nothing.
runtime_pm = auto
# mask_port_ext = yes | no
# yes: where the firmware marks a port external or hot-plug capable (the kernel then keeps it
# without LPM) but it holds the root disk, swap or an fstab mount, plan ahci.mask_port_ext=
# (Linux 6.17+) for those ports, so that the kernel ignores the bit and LPM works there.
# no: leave the firmware's marking alone (choose it for disks you really hot-swap).
# yes: a disk the system boots from is not hot-plugged, and such boards idle 75 % higher
# without LPM (powertop #204, TLP #834).
mask_port_ext = yes

[nvme]
# apst = quirks | keep
# Autonomous power state transitions. The kernel enables APST itself and carries its own
# quirk table. quirks: add the hwdb's per-drive latency limits for drives that drop off the
# bus ("controller is down; will reset", raspberrypi/linux #6661). keep: the kernel alone.
apst = quirks

[usb]
# autosuspend = allowlist | classes | off | keep
#   allowlist  power/control=auto only for devices the hwdb lists (systemd's ID_AUTOSUSPEND,
#              IDLECFG_*); risky classes (HID, audio, Bluetooth, printers, scanners, phones,
#              WWAN, hubs and docks) only with their own entry.
#   classes    the allowlist, plus devices whose every interface is of a class whose driver
#              handles autosuspend: video cameras (uvcvideo), CCID smart-card readers (class
#              0b), mass storage (usb-storage or uas, unless a usb-storage quirk names the
#              device). Anything with a HID, audio, printer, wireless, communications or
#              vendor-specific interface still needs its own hwdb entry; hwdb deny entries
#              (the kernel's USB quirk table) win.
#   off        power/control=on for every USB device: for machines where autosuspend fails.
#   keep       plan nothing.
# classes: blanket autosuspend is the most common complaint about power tools (lost
# keystrokes, powertop #101 #165), so HID and the other risky classes stay on systemd's
# allowlists; the classes above are the ones whose kernel drivers declare autosuspend support
# (supports_autosuspend in uvcvideo, usb-storage, uas) or that the CCID spec requires to suspend.
autosuspend = classes
# delay_ms = keep | 0..600000
# power/autosuspend_delay_ms for the devices autosuspend enables; an hwdb entry's own delay
# (ID_AUTOSUSPEND_DELAY_MS) wins. keep: the kernel's usbcore.autosuspend (2 s).
delay_ms = keep

[bluetooth]
# autosuspend = on | off | keep
#   on    USB autosuspend for every Bluetooth adapter (btusb.enable_autosuspend=Y and each
#         adapter's power/control=auto), except adapters the hwdb denies
#         (IDLECFG_BLUETOOTH_AUTOSUSPEND=deny, or the usb family's IDLECFG_USB_AUTOSUSPEND=deny):
#         those stay on, and btusb's switch, one for all adapters, is turned off.
#   off   no autosuspend for any adapter: for machines whose adapter drops.
#   keep  plan nothing: the kernel's CONFIG_BT_HCIBTUSB_AUTOSUSPEND decides.
# The adapters are this section's, not [usb]'s: usb.autosuspend skips them.
# on: Debian's kernels already autosuspend adapters (CONFIG_BT_HCIBTUSB_AUTOSUSPEND=y); idlecfg
# adds the adapters known to drop their connections (TLP #545) to the exceptions.
autosuspend = on

[audio]
# power_save = keep | 0..3600
# snd_hda_intel.power_save in seconds; 0 keeps the codec powered. SOF/DSP audio ignores it
# (its PCI runtime PM follows [pci]).
# 10: powers the codec down when idle, but not between the sounds of a notification burst,
# which is when the 1 s of TLP and powertop pops (TLP #152 #61).
power_save = 10
# power_save_controller = yes | no | keep
# Also power down the HDA controller, not just the codec.
# yes: the driver's default (Y); planned so that a leftover "N" does not hold the controller.
power_save_controller = yes

[gpu]
# i915_fbc = platform | off | keep
# i915_psr = platform | off | keep
# amdgpu_abm = platform | off | keep
# Display power features: frame buffer compression, panel self refresh, adaptive backlight.
#   platform   enable where an hwdb platform (dmi:) entry opts this machine in.
#   off        disable (i915.enable_fbc=0, i915.enable_psr=0, the panel's amdgpu/panel_power_savings=0:
#              never amdgpu.abmlevel, which locks compositors and power-profiles-daemon out).
#   keep       the driver's per-platform default.
# They trade image quality and can flicker (PSR: linux-surface #862), so they are never
# turned on blindly. platform for i915: the driver's own per-generation default (FBC on
# Broadwell and gen9+, PSR where the VBT declares it) is the baseline, and hwdb entries for the
# machine (dmi:) or the GPU generation (pci:, with a kernel range) change it where known:
# e.g. PSR off on the Surface panels that flicker.
# ABM washes out colours (cinnamon #12656) and every change is a modeset: only per platform.
i915_fbc = platform
i915_psr = platform
amdgpu_abm = platform
# runtime_pm = auto | on | keep
# power/control of discrete GPUs. keep: amdgpu and nouveau manage it themselves
# (amdgpu.runpm, nouveau.runpm); TLP excludes dGPUs for the same reason.
runtime_pm = keep

[i2c]
# runtime_pm = platform | auto | on | keep
# power/control of I2C adapters and clients (i2c-hid touchpads).
#   platform  the kernel's defaults, plus auto for the devices an hwdb entry allows.
#   auto      auto on every controller and every client without a deny entry.
# platform: touchpads have died on battery with it (pop-os/pop #4053) and systemd forces cyapa
# on; the adapters that gain most (DesignWare, LPSS) enable runtime PM in their driver.
runtime_pm = platform

[suspend]
# mem_sleep = s2idle | shallow | deep | keep
# The suspend variant (mem_sleep_default=). keep: the firmware's choice; machines where
# another variant is known better get it from an hwdb platform entry.
mem_sleep = keep
# hibernate = yes | no
# yes: plan resume= for the swap device found in the root, if there is one.
# no: leave hibernation alone.
hibernate = no

[kernel]
# nmi_watchdog = off | keep
# The hard-lockup detector (kernel.nmi_watchdog, written to /etc/sysctl.d/90-idlecfg.conf).
# It keeps one perf counter per CPU busy and makes a periodic NMI on every CPU, idle or not.
#   off   kernel.nmi_watchdog = 0. Skipped where the kernel has no hard-lockup detector
#         (the sysctl is missing or read-only, or CONFIG_HARDLOCKUP_DETECTOR is not set)
#         and where the kernel command line sets nmi_watchdog= itself.
#   keep  the kernel's default (on where a detector exists).
# off: it is a debugging aid that only reports hard lockups, which on a laptop the user
# sees anyway; the soft-lockup detector stays. TLP, powertop and tuned's powersave set 0.
nmi_watchdog = off
# dirty_writeback_centisecs = keep | 100..6000
# vm.dirty_writeback_centisecs: how often the flusher threads wake to write dirty pages
# back, in 1/100 s (kernel default: 500). Longer lets the disk and the CPU idle longer; a
# crash or power loss can lose that much more of what was written.
# ac:500 battery:1500: on AC the kernel's 5 s, because this profile is also the default for
# unknown hardware, which may have no battery (a power cut then loses at most 5 s of
# writes); on battery 15 s (TLP and powertop use 1500, TLP's own default on battery is 60 s),
# since a battery that runs flat suspends the machine first. The wakeups saved are a few
# per second at most; powersave takes 15 s on both sources.
dirty_writeback_centisecs = ac:500 battery:1500

[wifi]
# power_save = on | off | keep
# 802.11 power save of Wi-Fi interfaces: the card sleeps between beacons while associated.
# Where the target has NetworkManager: wifi.powersave in /etc/NetworkManager/conf.d/idlecfg.conf
# (a default; a connection's own wifi.powersave wins). Without it: the driver's parameter
# (iwlmvm/iwlmld power_scheme, ath9k ps_enable) where the driver has one; else nothing.
#   on    power save, except on cards an hwdb entry denies (IDLECFG_WIFI_POWER_SAVE=deny).
#   off   power save off: no 20-300 ms latency spikes on an idle link; costs a few tenths
#         of a watt (omarchy #6368).
#   keep  the kernel's default (CONFIG_CFG80211_DEFAULT_PS, on in most distributions) and
#         whatever NetworkManager is told elsewhere.
# on: what the kernel and Ubuntu's NetworkManager already do on laptops, made explicit; the
# gain of this line is the hwdb: Intel BE200/BE211 drop the link in reconnect loops with
# power save on (omarchy #6361) and get it off.
power_save = on

[network]
# wake_on_lan = off | keep
# off: WakeOnLan=off in a drop-in of systemd's 99-default.link
# (/etc/systemd/network/99-default.link.d/50-idlecfg.conf), so that the Ethernet PHY is
# powered down in suspend and when the machine is off. NICs that another .link file
# matches first are skipped and named (the drop-in does not reach them); targets whose
# systemd is older than 248 (no .link drop-ins) are skipped.
# keep: the driver's and firmware's setting. Turning it off removes a feature someone may
# have set up (remote wake, management); laptops rarely wake by LAN, so powersave does it.
wake_on_lan = keep

[wakeup]
# spurious = disable | keep
#   disable  power/wakeup = disabled for the wake sources an hwdb entry names spurious
#            (IDLECFG_WAKEUP=disabled: an MSI Claw's i8042 volume buttons, the IDEA5002 I2C
#            HID device), written when the device is added, bound or changed. Nothing else:
#            the keyboard, the lid and the power button keep waking the machine, whatever
#            an entry says.
#   keep     the kernel's wakeup settings stay.
# disable: a machine that wakes in a bag loses more than any runtime setting saves; the
# entries name only devices no user wakes the machine with.
spurious = disable

[removable]
# policy = same | keep
# dock = same | keep
# Devices below a port the firmware marks external-facing (ACPI "ExternalFacingPort": the
# Thunderbolt and USB4 root ports) are "removable" to the kernel (sysfs removable); so are
# the USB devices of a controller there. For them, runtime PM (power/control) and USB
# autosuspend come from this section, after every other family has planned them.
#   keep   the kernel's defaults stay: the plan skips them, naming the port.
#   same   planned like a built-in device (the families' lists and quirks still apply);
#          the plan names the port.
# dock is for the devices of a dock (a removable PCIe switch between the port and the
# device: a Thunderbolt or USB4 device router), policy for the other removable ones.
# keep: a dock runs on its own supply, so its NIC and USB devices cost the battery little,
# while suspending them costs links and re-enumeration; and what is
# plugged in changes after install time, which the plan cannot know.
policy = keep
dock = keep
