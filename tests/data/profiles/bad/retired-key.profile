[usb]
autosuspend = allowlist

[gpu]
i915_fbc = keep
runtime_pm = auto
