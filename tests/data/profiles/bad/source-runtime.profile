# a per-source value on a key NetworkManager applies
[wifi]
power_save = ac:off battery:on
