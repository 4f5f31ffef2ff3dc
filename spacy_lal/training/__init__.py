"""What ``spacy train`` runs with, found through spaCy's registries (``setup.cfg``'s entry points):
the corpus readers (``readers.py``), the callbacks that train on a clock and log the learning curve
(``callbacks.py``) and the optimizer (``optimizers.py``). Importing this package imports nothing
heavy."""
