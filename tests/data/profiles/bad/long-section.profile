[ssssssssssssssssssssssssssssssssssssssssssssssssss]
key = value
