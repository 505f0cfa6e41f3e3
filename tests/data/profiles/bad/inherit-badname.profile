[profile]
inherit = ../balanced
