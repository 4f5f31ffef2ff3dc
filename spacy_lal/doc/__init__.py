"""The Doc model: what spacy-lal's components write on a spaCy Doc and users read back.

- ``tree.py``: :class:`Tree`, constituency trees as PTB brackets, nodes and labelled spans;
- ``frames.py``: :class:`Frame`, semantic role frames bound to a Doc;
- ``propbank.py``: PropBank's roleset inventory, what a frame's sense and roles mean;
- ``extensions.py``: how trees and frames are stored on a Doc (the one owner of that format);
- ``api.py``: the read-only ``._`` attributes over the stored values (``doc._.tree``,
  ``doc._.srl``, benepar's span API), registered on ``import spacy_lal``.

Nothing here imports torch, the pipeline components, the corpus readers or the command line
(``tests/test_layering.py``): the components and readers build on the Doc model, not the reverse.
"""
