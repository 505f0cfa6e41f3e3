[profile]
inherit = nosuch
