"""BIO core (Cython). Inputs are trusted: validate through `spacy_lal.decode.bio_viterbi_batch` /
`bio_argmax_batch` / `repair_bio`."""
from typing import List, Tuple

import numpy as np

OK: int
NONFINITE: int
INFEASIBLE: int
KIND_O: int
KIND_B: int
KIND_I: int

SchemeTables = Tuple[np.ndarray, np.ndarray, int, int, int]  # BIOScheme.tables

def bio_batch(
    scores: List[np.ndarray], scheme: SchemeTables, predicates: np.ndarray, viterbi: bool
) -> Tuple[List[np.ndarray], np.ndarray]:
    """scores: C-contiguous float32 [n, L]; predicates: int32 [B], -1 for none.
    Returns (labels: int32 [n] each, status: int32 [B])."""

def bio_unique(
    scores: np.ndarray, scheme: SchemeTables, predicate: int, bits: np.ndarray, n_bits: int
) -> Tuple[np.ndarray, int]:
    """scores: C-contiguous float32 [n, L]; bits: int32 [L], the bit of each unique role's B- label
    (else -1). Returns (labels: int32 [n], status)."""

def repair(labels: np.ndarray, scheme: SchemeTables, predicate: int) -> None:
    """Repair a C-contiguous int32 label sequence in place; predicate -1 for none."""
