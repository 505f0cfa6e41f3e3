[profile]
inherit = cycle-b
