"""lal_parser and lal_dependency_parser: the Label Attention Layer parser as a spaCy component
(component.py), its Thinc architecture (model.py), the torch glue (adapter.py) and parsing
under constraints (constrained.py)."""
