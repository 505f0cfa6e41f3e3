[profile]
inherit = deep-6
