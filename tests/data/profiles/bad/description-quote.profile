[profile]
description = say "hi"
