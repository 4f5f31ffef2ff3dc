"""Label-attention constituency, dependency and semantic role parsing for spaCy."""
__version__ = "0.1.0.dev0"
