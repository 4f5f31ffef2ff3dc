"""Plain PyTorch modules of the parsers and the semantic role labeller (no spaCy, no Thinc).

See :mod:`spacy_lal.nn.parser` for the Label Attention parser, :mod:`spacy_lal.nn.deepatt` for the
DeepAtt labeller, :mod:`spacy_lal.nn.spa_parsers` for the SPA-DP parsers, and the papers: Mrini
et al. 2020 (eq. 1-12) and Kitaev & Klein 2018 (factored attention, CharLSTM); Tan et al. 2018
(DeepAtt); Zhou et al. 2018 (SPA-DP).
"""

from .attention import (
    FactoredEncoder,
    FactoredEncoderLayer,
    FactoredSelfAttention,
    MultiHeadSelfAttention,
    PartitionedFeedForward,
)
from .biaffine import BiaffineArcScorer, BiaffineLabelScorer, arc_mask, dependency_loss
from .deepatt import DeepAtt, DeepAttConfig
from .deepatt_layers import CNNSublayer, DeepAttLayer, FFNSublayer, RNNSublayer
from .dropout import Dropout, FeatureDropout
from .embeddings import CharLSTM, InputEmbedding, PositionEmbedding, lengths_to_mask
from .label_attention import LabelAttention, LabelAttentionDetails, LabelAttentionLayer
from .parser import LabelAttentionParserModel, ParserConfig, ParserOutput
from .predicates import (
    PredicateIdentifier,
    SenseClassifier,
    expand_predicates,
    gather_tokens,
    label_smoothed_cross_entropy,
    predicate_indicator,
    predicate_rows,
)
from .spa_encoder import ENCODERS, Scan, SequencePreservedRescan, SpaEncoder, VanillaAttention
from .spa_parsers import (
    HeadSelectionScorer,
    SpaGraphOutput,
    SpaGraphParser,
    SpaTransitionParser,
    TransitionClassifier,
    transition_loss,
)
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
    "CNNSublayer",
    "CharLSTM",
    "DeepAtt",
    "DeepAttConfig",
    "DeepAttLayer",
    "Dropout",
    "ENCODERS",
    "FFNSublayer",
    "FactoredEncoder",
    "FactoredEncoderLayer",
    "FactoredSelfAttention",
    "FeatureDropout",
    "HeadSelectionScorer",
    "InputEmbedding",
    "LabelAttention",
    "LabelAttentionDetails",
    "LabelAttentionLayer",
    "LabelAttentionParserModel",
    "MultiHeadSelfAttention",
    "ParserConfig",
    "ParserOutput",
    "PartitionedFeedForward",
    "PositionEmbedding",
    "PredicateIdentifier",
    "RNNSublayer",
    "Scan",
    "SenseClassifier",
    "SequencePreservedRescan",
    "SpaEncoder",
    "SpaGraphOutput",
    "SpaGraphParser",
    "SpaTransitionParser",
    "SpanScorer",
    "TransitionClassifier",
    "VanillaAttention",
    "arc_mask",
    "dependency_loss",
    "expand_predicates",
    "fencepost_vectors",
    "gather_tokens",
    "hamming_cost",
    "head_contributions",
    "hinge_loss",
    "label_smoothed_cross_entropy",
    "lengths_to_mask",
    "predicate_indicator",
    "predicate_rows",
    "span_features",
    "span_mask",
    "transition_loss",
    "tree_score",
]
