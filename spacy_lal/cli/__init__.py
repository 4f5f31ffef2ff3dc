"""Sub-commands of ``python -m spacy_lal``; one module per command."""
