"""PTB bracket files (``.mrg`` and the like) -> spaCy Docs, one Doc per tree.

A file holds one or many trees, each on one line or spread over several, optionally wrapped in
an unlabelled bracket ``( (S ...) )``. The Doc's words and tags (``tag_``) are those of the
normalized tree (:meth:`spacy_lal.tree.Tree.normalize`): traces and other ``-NONE-`` elements
are removed, function tags and indices stripped, the TOP/ROOT wrapper dropped. Words are
unescaped (``-LRB-`` -> ``(``) and separated by single spaces (bracket files do not record
spacing). Untagged trees (``tagged=False``: ``(NP John Smith)``) give Docs without tags.
Malformed trees raise :class:`spacy_lal.tree.TreeFormatError` (a ValueError) naming the file and
line.
"""
from __future__ import annotations

import warnings
from pathlib import Path
from typing import Iterator, Union

from spacy.language import Language
from spacy.tokens import Doc
from spacy.vocab import Vocab

from ..tree import UNTAGGED, read_trees
from ._common import PathLike, get_vocab
from .conll05 import annotate_doc

__all__ = ["read_ptb"]


def read_ptb(path: PathLike, vocab: Union[Vocab, Language], *, tagged: bool = True) -> Iterator[Doc]:
    """Read the trees of a PTB bracket file into one Doc per tree, tree stored on the Doc."""
    vocab = get_vocab(vocab)
    # A Path, not a str: read_trees takes a str starting with "(" for the text itself.
    for n, tree in enumerate(read_trees(Path(path), tagged=tagged)):
        try:
            norm = tree.normalize()
        except ValueError:
            # Only empty elements: there is no sentence to make a Doc of.
            warnings.warn(f"{path}: tree {n + 1} has no words besides empty elements; skipped", stacklevel=2)
            continue
        words = norm.words()
        tags = ["" if not tagged and tag == UNTAGGED else tag for tag in norm.tags()]
        doc = Doc(vocab, words=words, tags=tags, sent_starts=[True] + [False] * (len(words) - 1))
        annotate_doc(doc, norm, ())
        yield doc
