"""lal_spa_parser: the sequence-preserved attention dependency parser (Zhou et al. 2018) as a
spaCy component (component.py), its Thinc architecture (model.py) and torch glue (adapter.py)."""
