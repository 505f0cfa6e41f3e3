[profile]
inherit = deep-5
