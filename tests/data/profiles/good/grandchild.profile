[profile]
description = Third level
inherit = child
[sata]
alpm = keep
