[profile]
inherit = deep-4
