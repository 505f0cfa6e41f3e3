[profile]
inherit = deep-9
