"""CPU decoders for the parsers, one module per problem, all re-exported here:

- `constituency`: CKY over span charts (`cky`, `cky_batch`);
- `dependencies`: Eisner and Chu-Liu-Edmonds over arc scores, projectivity;
- `joint_trees`: joint span + dependency decoding (lexicalized CKY);
- `bio`: BIO Viterbi, argmax and span-level Viterbi over token label scores;
- `arc_standard`, `arc_standard_oracle`: the arc-standard transition system, greedy decoding and
  its static oracle (NumPy).

The cores are Cython (`_cky`, `_eisner`, `_joint`, `_mst`, `_viterbi`, `_span_viterbi`) and decode
without the GIL; the modules above validate inputs at the Python boundary (`_checks`). Every
decoder has a `*_batch` form that takes a list of sentences of mixed lengths and decodes them all
in one GIL-free loop; the single-sentence forms are batches of one.

Input conventions, shared by all decoders:
- Scores must be real floating-point arrays (float16/32/64; anything else raises TypeError: integer
  arrays are rejected because they are usually label charts passed by mistake). They are converted
  to C-contiguous float32, without a copy when they already are. torch CPU tensors work through
  `numpy.asarray`.
- Every score the decoder reads must be finite (ValueError otherwise; checked in the core at no
  measurable cost). Entries that are never read may hold anything, e.g. -inf masks: the lower
  triangle, the diagonal and label 0 of a CKY chart, the diagonal and row 0 of an arc matrix.
- n = 0 (an empty sentence) is valid everywhere and decodes to the empty structure.
"""
from . import _cky, _eisner, _joint, _mst, _span_viterbi, _viterbi  # noqa: F401 (decode._cky etc.)
from ._checks import Span  # noqa: F401 (the (start, end) type of the constraint arguments)
from .arc_standard import (
    ArcStandard,
    ArcStandardConfigs,
    DependencyParse,
    apply_transitions,
    arc_standard_greedy_batch,
)
from .arc_standard_oracle import (
    NonProjectiveError,
    OracleBatch,
    OracleSequence,
    arc_standard_oracle,
    arc_standard_oracle_batch,
)
from .bio import (
    CORE_ROLES,
    BIOScheme,
    bio_argmax,
    bio_argmax_batch,
    bio_viterbi,
    bio_viterbi_batch,
    repair_bio,
    span_viterbi,
    span_viterbi_batch,
)
from .constituency import CKYResult, cky, cky_batch
from .dependencies import (
    chu_liu_edmonds,
    chu_liu_edmonds_batch,
    eisner,
    eisner_batch,
    is_projective,
    projectivize,
)
from .joint_trees import JointResult, joint, joint_batch

__all__ = [
    "CKYResult",
    "cky",
    "cky_batch",
    "eisner",
    "eisner_batch",
    "chu_liu_edmonds",
    "chu_liu_edmonds_batch",
    "JointResult",
    "joint",
    "joint_batch",
    "BIOScheme",
    "CORE_ROLES",
    "bio_viterbi",
    "bio_viterbi_batch",
    "bio_argmax",
    "bio_argmax_batch",
    "repair_bio",
    "span_viterbi",
    "span_viterbi_batch",
    "ArcStandard",
    "ArcStandardConfigs",
    "DependencyParse",
    "NonProjectiveError",
    "OracleBatch",
    "OracleSequence",
    "apply_transitions",
    "arc_standard_greedy_batch",
    "arc_standard_oracle",
    "arc_standard_oracle_batch",
    "is_projective",
    "projectivize",
]
