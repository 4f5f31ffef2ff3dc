"""lal_lemmatizer: spaCy's trainable (edit-tree) lemmatizer with spaCy's English rule lemmatizer
beside it (component.py), the rule tables from package data (tables.py) and the choice between
the two lemmas (rules.py)."""
