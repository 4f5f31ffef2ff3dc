"""CKY core (Cython). Inputs are trusted: validate through `spacy_lal.decode.cky_batch`."""
from typing import List, Optional, Tuple

import numpy as np

MODE_ARGMAX: int
MODE_LOSS: int
MODE_FORCED: int
OK: int
NONFINITE: int
INFEASIBLE: int
BAD_GOLD: int

def cky_batch(
    charts: List[np.ndarray],
    golds: List[Optional[np.ndarray]],
    constraints: List[Optional[np.ndarray]],
    mode: int,
) -> Tuple[List[np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
    """charts: C-contiguous float32 [n+1, n+1, L]; golds: C-contiguous int32 [n+1, n+1] or None;
    constraints: C-contiguous int32 [m, 3] rows (start, end, required) or None.
    Returns (spans: int32 [2n-1, 3] each, scores: float64 [B], costs: int64 [B], status: int32 [B])."""
