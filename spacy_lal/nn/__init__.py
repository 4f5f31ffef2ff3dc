"""Plain PyTorch modules of the Label Attention parser (no spaCy, no Thinc).

See :mod:`spacy_lal.nn.parser` for the full model, and the papers in ``/work/shared/papers``:
Mrini et al. (eq. 1-12) and Kitaev & Klein (factored attention, CharLSTM).
"""

from .attention import FactoredEncoder, FactoredEncoderLayer, FactoredSelfAttention, PartitionedFeedForward
from .biaffine import BiaffineArcScorer, BiaffineLabelScorer, arc_mask, dependency_loss
from .dropout import Dropout, FeatureDropout
from .embeddings import CharLSTM, InputEmbedding, PositionEmbedding, lengths_to_mask
from .label_attention import LabelAttention, LabelAttentionDetails, LabelAttentionLayer
from .parser import LabelAttentionParserModel, ParserConfig, ParserOutput
from .span import (
    SpanScorer,
    fencepost_vectors,
    hamming_cost,
    head_contributions,
    hinge_loss,
    span_features,
    span_mask,
    tree_score,
)

__all__ = [
    "BiaffineArcScorer",
    "BiaffineLabelScorer",
    "CharLSTM",
    "FactoredEncoder",
    "FactoredEncoderLayer",
    "FactoredSelfAttention",
    "Dropout",
    "FeatureDropout",
    "InputEmbedding",
    "LabelAttention",
    "LabelAttentionDetails",
    "LabelAttentionLayer",
    "LabelAttentionParserModel",
    "ParserConfig",
    "ParserOutput",
    "PartitionedFeedForward",
    "PositionEmbedding",
    "SpanScorer",
    "arc_mask",
    "dependency_loss",
    "fencepost_vectors",
    "hamming_cost",
    "head_contributions",
    "hinge_loss",
    "lengths_to_mask",
    "span_features",
    "span_mask",
    "tree_score",
]
