"""PTB bracket files (``.mrg`` and the like) -> spaCy Docs, one Doc per tree.

A file holds one or many trees, each on one line or spread over several, optionally wrapped in
an unlabelled bracket ``( (S ...) )``. The Doc's words and tags (``tag_``) are those of the
normalized tree (:meth:`spacy_lal.doc.tree.Tree.normalize`): traces and other ``-NONE-`` elements
are removed, function tags and indices stripped, the TOP/ROOT wrapper dropped. Words are
unescaped (``-LRB-`` -> ``(``) and separated by single spaces (bracket files do not record
spacing). Untagged trees (``tagged=False``: ``(NP John Smith)``) give Docs without tags.
Malformed trees raise :class:`spacy_lal.doc.tree.TreeFormatError` (a ValueError) naming the file and
line.
"""
from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Iterator, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc
from spacy.vocab import Vocab

from ..doc.tree import UNTAGGED, Tree, parse_brackets
from ._common import PathLike, get_vocab
from .conll05 import annotate_doc

__all__ = ["read_ptb", "read_trees", "read_trees_with_lines"]


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


def read_trees(
    path_or_text: Union[str, os.PathLike], *, tagged: bool = True, encoding: str = "utf-8"
) -> Iterator[Tree]:
    """Read the bracketed trees of a file (a path) or of a string, one after another.

    A ``str`` whose first non-blank character is "(" (or a blank one) is the text itself; any other
    ``str`` or path-like is a file name. Trees may span lines, and may be wrapped in an empty-label
    bracket "( (S ...) )". Words are unescaped.

    With ``tagged=True`` (the default) a word is the only child of its preterminal "(NN dog)".
    With ``tagged=False`` every word is a bare child of its phrase, "(NP John Smith)", and gets
    the placeholder tag :data:`UNTAGGED`; "(NP John)" is then NP over (XX John).

    Raises :class:`~spacy_lal.doc.tree.TreeFormatError`, naming the file and 1-based line, on malformed input.
    """
    text, source = _text_and_source(path_or_text, encoding)  # read now: a missing file raises here
    return (tree for _, tree in parse_brackets(text, source, tagged=tagged))


def read_trees_with_lines(
    path_or_text: Union[str, os.PathLike], *, tagged: bool = True, encoding: str = "utf-8"
) -> Iterator[Tuple[int, Tree]]:
    """:func:`read_trees`, each tree with the 1-based line its first bracket is on, so that a
    scorer pairing the trees of two files can say where a pair is."""
    text, source = _text_and_source(path_or_text, encoding)
    return _with_lines(text, parse_brackets(text, source, tagged=tagged))


def _text_and_source(path_or_text: Union[str, os.PathLike], encoding: str) -> Tuple[str, str]:
    """The text to parse and the name its errors give (see :func:`read_trees`)."""
    if isinstance(path_or_text, str) and path_or_text.lstrip()[:1] in ("(", ""):
        return path_or_text, "<string>"
    return Path(path_or_text).read_text(encoding=encoding), os.fspath(path_or_text)


def _with_lines(text: str, located: Iterator[Tuple[int, Tree]]) -> Iterator[Tuple[int, Tree]]:
    line, counted = 1, 0
    for position, tree in located:
        # Lines counted from the previous tree on: one pass over the text, not one per tree.
        line += text.count("\n", counted, position)
        counted = position
        yield line, tree
