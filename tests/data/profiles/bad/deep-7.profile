[profile]
inherit = deep-8
