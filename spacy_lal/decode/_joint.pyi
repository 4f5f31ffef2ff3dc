"""Joint span + dependency core (Cython). Inputs are trusted: validate through
`spacy_lal.decode.joint_batch`."""
from typing import List, Optional, Tuple

import numpy as np

OK: int
NONFINITE_CHART: int
NONFINITE_ARCS: int
INFEASIBLE: int

def joint_batch(
    charts: List[np.ndarray],
    arcs: List[np.ndarray],
    constraints: List[Optional[np.ndarray]],
    lam: float,
) -> Tuple[List[np.ndarray], List[np.ndarray], np.ndarray, np.ndarray]:
    """charts: C-contiguous float32 [n+1, n+1, L] (L >= 2); arcs: C-contiguous float32 [n+1, n+1];
    constraints: C-contiguous int32 [m, 3] rows (start, end, required) or None.
    Returns (spans: int32 [2n-1, 3] each, heads: int64 [n+1] each, scores: float64 [B],
    status: int32 [B])."""
