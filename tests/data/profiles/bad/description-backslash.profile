[profile]
description = C:\\temp
