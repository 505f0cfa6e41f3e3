[kernel]
# 0 is what the file says, not what the profile says
nmi_watchdog = 0
