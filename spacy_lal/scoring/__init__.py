"""Scorers equal to the reference tools: EVALB (COLLINS.prm), the CoNLL 2018 UD
scorer and the CoNLL-2005 srl-eval.pl.

The file-level API is imported here; the spaCy-registered scorers live in
:mod:`spacy_lal.scoring.spacy_scorers` (imported on demand, it needs spaCy).
"""
from .evalb import COLLINS, EvalbParams, EvalbResult, EvalbTotals, evalb, score_tree_files
from .srl_eval import SrlFormatError, SrlResult, score_props_files, score_srl
from .ud import PRF, UDError, UDResult, conll18_table, score_conllu_files, score_ud

__all__ = [
    "COLLINS",
    "PRF",
    "EvalbParams",
    "EvalbResult",
    "EvalbTotals",
    "SrlFormatError",
    "SrlResult",
    "UDError",
    "UDResult",
    "conll18_table",
    "evalb",
    "score_conllu_files",
    "score_props_files",
    "score_srl",
    "score_tree_files",
    "score_ud",
]
