[network]
# ethtool letters are not a value: only off or keep
wake_on_lan = g
