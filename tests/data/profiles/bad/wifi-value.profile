# a Wi-Fi power save value no family knows
[wifi]
power_save = 3
