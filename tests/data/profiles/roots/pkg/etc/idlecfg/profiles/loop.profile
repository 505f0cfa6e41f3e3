[profile]
inherit = loop
