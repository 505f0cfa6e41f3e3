[profile]
inherit = deep-3
