[profile]
inherit = deep-7
