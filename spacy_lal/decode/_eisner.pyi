"""Eisner core (Cython). Inputs are trusted: validate through `spacy_lal.decode.eisner_batch`."""
from typing import List, Tuple

import numpy as np

OK: int
NONFINITE: int

def eisner_batch(scores: List[np.ndarray]) -> Tuple[List[np.ndarray], np.ndarray]:
    """scores: C-contiguous float32 [n+1, n+1]. Returns (heads: int64 [n+1] each, status: int32 [B])."""
