# inih would take "min_power" and drop the rest as a comment
[sata]
alpm = min_power ; too risky here
