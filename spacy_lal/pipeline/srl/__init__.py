"""lal_srl: the DeepAtt semantic role labeller as a spaCy component (component.py), its Thinc
architecture (model.py), the torch glue (adapter.py), rolesets, the sense prior and BIO targets (targets.py), predicate
marking (predicate_marking.py) and its scorer (scoring.py)."""
