# the admin extends the packaged balanced
[profile]
inherit = balanced
[sata]
alpm = max_performance
