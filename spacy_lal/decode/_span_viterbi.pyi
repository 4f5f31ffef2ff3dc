"""Span-level BIO Viterbi core (Cython). Inputs are trusted: validate through
`spacy_lal.decode.span_viterbi_batch`."""
from typing import List, Tuple

import numpy as np

OK: int
NONFINITE: int
INFEASIBLE: int

def span_viterbi_batch(
    scores: List[np.ndarray],
    spans: List[np.ndarray],
    penalty: float,
    roles: np.ndarray,
    outside: int,
    v_role: int,
    predicates: np.ndarray,
) -> Tuple[List[np.ndarray], np.ndarray]:
    """scores: C-contiguous float32 [n, L]; spans: C-contiguous int32 [m, 2], the allowed spans
    of two or more words, sorted by end; penalty: what a segment of two or more words off them
    costs (inf: none is possible); roles: int32 [R, 2] (B, I or -1); predicates: int32 [B], -1
    for none. Returns (labels: int32 [n] each, status: int32 [B])."""
