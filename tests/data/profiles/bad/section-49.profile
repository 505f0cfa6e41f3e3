[sssssssssssssssssssssssssssssssssssssssssssssssss]
key = value
