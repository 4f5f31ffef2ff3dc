"""Corpus readers and writers: PTB brackets, CoNLL-U/CoNLL-X, CoNLL-2005/2012 SRL columns, the
UD EWT + PropBank join, and exports for the official scorers.

Every reader takes a path and a ``Vocab`` (or ``nlp``) and yields one ``Doc`` per sentence (per
document: ``read_ud_documents``; raw text: ``read_raw_documents``), with trees and frames stored through
:mod:`spacy_lal.doc.extensions`. Malformed input raises a ValueError
naming the file, the 1-based line and what was expected (:class:`CorpusFormatError`, or
:class:`spacy_lal.doc.tree.TreeFormatError` for bracketed trees).
"""
from ._common import CorpusFormatError
from .conll05 import read_conll05, read_conll12
from .conllu import read_conllu, read_conllx
from .documents import read_raw_documents, read_ud_documents
from .ewt import JoinStats, convert_ewt, join_ewt_split
from .export import write_conll05, write_conllu, write_ptb
from .ptb import read_ptb

__all__ = [
    "CorpusFormatError",
    "JoinStats",
    "convert_ewt",
    "join_ewt_split",
    "read_conll05",
    "read_conll12",
    "read_conllu",
    "read_conllx",
    "read_ptb",
    "read_raw_documents",
    "read_ud_documents",
    "write_conll05",
    "write_conllu",
    "write_ptb",
]
