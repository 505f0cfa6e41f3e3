# closes the loop
[profile]
inherit = cycle-a
