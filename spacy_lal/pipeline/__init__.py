"""spaCy components, their Thinc architectures and the torch glue between them.

Modules here are found through the entry points in setup.cfg; importing this package imports
nothing heavy.
"""
