# powersave.profile: balanced, plus the savings that cost latency or a feature.
# Every key is described in balanced.profile. Choose it with --profile powersave or
# "profile = powersave" under [main] in /etc/idlecfg/idlecfg.conf.

[profile]
description = Longest battery life: balanced plus deeper link states and fewer wakeups
inherit = balanced

[pcie_aspm]
# L1.1/L1.2 on every link that declares them (kernel 4.11+). powersupersave, not powersave:
# powersave has drained more in s2idle on some laptops (laptop-mode-tools #101).
policy = powersupersave

[pci]
# Runtime PM on both sources: the longest battery life, and savings on AC too (balanced
# keeps devices powered on AC).
runtime_pm = auto

[gpu]
# Display features only where the hwdb opts the platform in: they flicker elsewhere.
i915_fbc = platform
i915_psr = platform
# Discrete GPUs to D3 when idle. hwdb quirks keep the ones that fail to wake powered.
runtime_pm = auto

[i2c]
# Touchpads and sensors sleep when idle; hwdb quirks keep the ones that die on battery
# (pop-os/pop #4053) powered, as systemd does for cyapa.
runtime_pm = auto

[audio]
# Codec off after 1 s on battery, as TLP and powertop do; may pop on some codecs (TLP #152).
# On AC 10 s, balanced's battery value: no pops between the sounds of a notification burst.
power_save = ac:10 battery:1

[kernel]
# 15 s between writebacks, as TLP, powertop and tuned: the disk and the flusher threads
# idle three times as long; a power loss can cost up to 15 s of writes (on battery only
# when it runs flat, which suspends first).
dirty_writeback_centisecs = 1500

[network]
# The PHY stays powered to listen for magic packets in suspend and when off, which drains
# a battery for a feature laptops rarely use.
wake_on_lan = off

[removable]
# A device in an external-facing slot without a dock (a card reader, an enclosure) runs on
# the battery: planned like a built-in one. A dock's devices keep the kernel's defaults
# (balanced's dock = keep): the dock has its own supply.
policy = same
