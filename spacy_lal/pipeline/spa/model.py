"""The registered SPA parser architecture: a spaCy tok2vec (plus optional tag embeddings) feeding
``SpaGraphParser`` or ``SpaTransitionParser`` (Zhou et al. 2018), run by ``adapter.py``.

The Thinc model takes ``(docs, units, SpaBatch)`` and returns the loss (training) or the decoded
trees. As for the label-attention parser, the torch layer's shape depends on the label count,
so ``configure_spa_model`` builds it once the component knows its labels, and the units run in
length-sorted chunks bounded by ``max_chart_cells`` (``torch_bridge.forward_units``): the RESCAN
step keeps a GRU state for every (target, context word) pair, ``O(sum n^2 d)`` memory, which is
what bounding ``sentences x (length + 1)^2`` per forward pass keeps in check.
"""
from typing import Any, Dict, List, Optional

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model
from thinc.types import Floats2d

from ..layers.token_features import concatenate_token_vectors
from ..torch_bridge import TORCH_LAYER, forward_units, init_tok2vec, set_torch_layer
from ..settings import ConfigSetting

__all__ = ["PAPER_SIZES", "build_spa_parser", "configure_spa_model"]

PARSINGS = ("graph", "transition")
SCORES = ("bilinear", "concat")
# The paper's sizes (sec. 4.1): BiLSTM per direction and rescan GRU per side.
PAPER_SIZES = {"graph": (400, 100), "transition": (700, 700)}


@registry.architectures("spacy-lal.SpaDependencyParser.v1")
def build_spa_parser(
    tok2vec: Model[List[Doc], List[Floats2d]],
    tag_embed: Optional[Model[List[Doc], List[Floats2d]]] = None,
    encoder: str = "bot",
    parsing: str = "graph",
    score: str = "bilinear",
    d_scan: Optional[int] = None,
    d_rescan: Optional[int] = None,
    d_attention: int = 100,
    d_score: int = 100,
    d_label: int = 100,
    d_hidden: int = 200,
    dropout: float = 0.3,
    max_length: int = 256,
    max_chart_cells: int = 200_000,
) -> Model:
    """Sequence-preserved attention dependency parser (Zhou et al. 2018) over any tok2vec.

    tok2vec: the word vectors ``t_i`` (``spacy.Tok2Vec.v2``, a listener, a transformer
        listener); static vectors come in through its ``include_static_vectors``.
    tag_embed: tag embeddings of eq. 1, e.g. ``spacy-lal.TagEmbed.v1`` (``token.tag_`` from an
        upstream tagger), concatenated with the tok2vec output: the route every spacy-lal
        architecture takes for tags, so a tagger's predicted tags feed the parser through
        ``annotating_components`` and no tag set is stored in the parser.
    encoder: "birnn" (SCAN only), "attention" (+ vanilla attention, eq. 12-14), "tob" or "bot"
        (+ RESCAN, eq. 25 / 26): the rows of the paper's Table 2.
    parsing: "graph" (head selection, eq. 8-10, and a biaffine label classifier) or
        "transition" (arc-standard, eq. 4-7, labelled transitions).
    score: the head-selection score of eq. 8, "bilinear" or "concat" (graph only).
    d_scan, d_rescan: BiLSTM size per direction and rescan GRU size per side; None takes the
        paper's (graph 400 and 100, transition 700 and 700).
    d_attention: MLP size of vanilla attention; d_score: hidden size of the concat score;
    d_label: label classifier MLP size (graph); d_hidden: transition classifier hidden size.
    dropout: dropout on the input vectors, tok2vec and tag embeddings together (the paper's 30%
        on word and tag embeddings); spaCy's training ``dropout`` does not reach into torch.
    max_length: longest unit in words (longer sentences are parsed in pieces, ``units.py``).
    max_chart_cells: bound on ``sentences x (length + 1)^2`` per forward pass.
    """
    config: Dict[str, Any] = {
        "encoder": encoder, "parsing": parsing, "score": score, "d_scan": d_scan, "d_rescan": d_rescan,
        "d_attention": d_attention, "d_score": d_score, "d_label": d_label, "d_hidden": d_hidden,
        "dropout": dropout,
    }
    _check_config(config, max_length, max_chart_cells)
    default_scan, default_rescan = PAPER_SIZES[parsing]
    config["d_scan"] = default_scan if d_scan is None else d_scan
    config["d_rescan"] = default_rescan if d_rescan is None else d_rescan
    inputs = [layer for layer in (tok2vec, tag_embed) if layer is not None]
    return Model(
        "lal_spa_parser",
        forward_units,
        init=init_tok2vec,
        layers=[concatenate_token_vectors(*inputs)],
        dims={"nI": None},
        refs={TORCH_LAYER: None},
        attrs={"spa_config": config, "max_length": max_length, "max_chart_cells": ConfigSetting(max_chart_cells)},
    )


def _check_config(config: Dict[str, Any], max_length: int, max_chart_cells: int) -> None:
    """Bad settings fail when the pipeline is created, naming the setting."""
    from ...nn.spa_encoder import ENCODERS

    choices = {"encoder": ENCODERS, "parsing": PARSINGS, "score": SCORES}
    for key, allowed in choices.items():
        if config[key] not in allowed:
            raise ValueError(f"spacy-lal.SpaDependencyParser.v1: {key} must be one of {allowed}, got {config[key]!r}")
    sizes = {key: config[key] for key in ("d_scan", "d_rescan", "d_attention", "d_score", "d_label", "d_hidden")}
    sizes.update(max_length=max_length, max_chart_cells=max_chart_cells)
    for key, value in sizes.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ValueError(f"spacy-lal.SpaDependencyParser.v1: {key} must be a positive int, got {value!r}")
    if not 0.0 <= config["dropout"] < 1.0:
        raise ValueError(f"spacy-lal.SpaDependencyParser.v1: dropout must be in [0, 1), got {config['dropout']!r}")


def configure_spa_model(model: Model, n_labels: int, nI: int) -> None:
    """Build (or rebuild) the torch layer for ``n_labels`` dependency labels and input width ``nI``."""
    from ...decode import ArcStandard
    from ...nn.spa_parsers import SpaGraphParser, SpaTransitionParser
    from .adapter import SpaAdapter

    c = model.attrs["spa_config"]
    encoder = {
        "encoder": c["encoder"], "d_scan": c["d_scan"], "d_rescan": c["d_rescan"], "d_attention": c["d_attention"],
        "word_dropout": c["dropout"],
    }
    if c["parsing"] == "graph":
        parser = SpaGraphParser(nI, n_labels, score=c["score"], d_score=c["d_score"], d_label=c["d_label"], **encoder)
    else:
        parser = SpaTransitionParser(nI, ArcStandard(n_labels).n_transitions, d_hidden=c["d_hidden"], **encoder)
    set_torch_layer(model, SpaAdapter(parser, n_labels), nI)
