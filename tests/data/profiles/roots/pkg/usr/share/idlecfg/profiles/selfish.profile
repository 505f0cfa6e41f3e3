[profile]
inherit = selfish
