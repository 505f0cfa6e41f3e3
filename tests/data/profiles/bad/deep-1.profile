[profile]
inherit = deep-2
