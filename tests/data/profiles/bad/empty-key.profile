[sata]
= keep
