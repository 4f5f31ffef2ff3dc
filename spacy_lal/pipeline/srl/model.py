"""The registered SRL architecture: a spaCy tok2vec feeding DeepAtt (Tan et al. 2018) and the
predicate-identification and sense heads (``spacy_lal.nn.deepatt``, ``spacy_lal.nn.predicates``), run by ``adapter.py``.

The Thinc model takes ``(docs, units, SrlBatch)``. The torch module's shape depends on the label
counts, which the component learns in ``initialize`` (or reads from its saved cfg), so
``configure_srl_model`` builds the torch layer, as for the parser (``parser/model.py``).
"""
from typing import Any, Dict, List, Optional, Sequence

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model
from thinc.types import Floats2d

from ...nn.deepatt import DeepAtt, DeepAttConfig
from ...nn.predicates import PredicateIdentifier
from .adapter import LOSS_REDUCTIONS, SrlAdapter
from ..torch_bridge import TORCH_LAYER, forward_units, init_tok2vec, set_torch_layer
from ..settings import ConfigSetting

__all__ = ["build_semantic_role_labeler", "configure_srl_model"]

PRESETS = {"cpu": DeepAttConfig.cpu, "paper": DeepAttConfig.paper}


@registry.architectures("spacy-lal.SemanticRoleLabeler.v1")
def build_semantic_role_labeler(
    tok2vec: Model[List[Doc], List[Floats2d]],
    preset: str = "cpu",
    n_layers: Optional[int] = None,
    d_model: Optional[int] = None,
    n_heads: Optional[int] = None,
    d_ff: Optional[int] = None,
    sublayer: Optional[str] = None,
    d_mask: Optional[int] = None,
    max_distance: Optional[int] = None,
    sentence_layers: Optional[int] = None,
    top_layer: str = "softmax",
    lal_heads: Optional[int] = None,
    lal_d_kv: int = 32,
    lal_d_proj: int = 16,
    lal_ffn: bool = True,
    label_smoothing: Optional[float] = None,
    dropout: Optional[float] = None,
    d_head_hidden: int = 128,
    max_length: int = 1024,
    max_chart_cells: int = 10_000,
    loss_reduction: str = "mean",
) -> Model:
    """DeepAtt semantic role labeller over any tok2vec.

    ``preset``: "cpu" (4 layers, d = 128, 4 heads, FFN 256) or "paper" (10 layers, d = 200,
    8 heads, FFN 800, mask embedding 100); the other DeepAtt arguments override the preset when
    set. ``sublayer``: "ffn", "rnn" (BiLSTM) or "cnn" (GLU). ``top_layer = "lal"`` puts a Label
    Attention Layer under the softmax, with one head per BIO role label unless ``lal_heads`` is
    set. ``max_distance`` (None = 0, off) adds an embedding of each token's clipped offset from
    the predicate to DeepAtt's input. ``sentence_layers`` (None = 0, the paper) runs the lowest
    layers once per sentence, before the predicate is known, and only the layers above them once
    per predicate (late fusion: faster, a different model; give it ``max_distance`` too, as the
    runs of docs/speed.md do). ``dropout`` (None = the preset's 0.2 residual/input, 0.1 attention/ReLU)
    sets all dropouts inside the torch model: spaCy's ``training.dropout`` does not reach into
    it.
    ``d_head_hidden``: hidden width of the predicate-identification and sense MLPs.
    ``max_length``: longer sentences are labelled in pieces (see ``units.py``). DeepAtt's
    sinusoidal timing signal has no length limit: this only bounds memory (attention is
    quadratic in the sentence length).
    ``max_chart_cells``: sentences run in length-sorted chunks of at most this many
    ``sentences x (length + 1)^2`` (``torch_bridge.forward_units``): every row of a batch is
    padded to its longest sentence, and each predicate's row costs its recurrent sub-layers
    O(length) steps and its attention O(length^2), so sorting saves most of the padding. The same
    results as one pass (up to float rounding); only speed and memory change. 10,000 (the
    parser's too) pads the rows of training batches of 1,000 words by 10% against 40,000's 24%
    and trained DeepAtt about 7% faster; parsing is as fast.
    ``loss_reduction``: "mean" divides the role, predicate and sense losses by their numbers of
    targets in the batch (right for a labeller with a tok2vec of its own: Adam does not see the
    scale); "sum" adds them up, the scale at which spaCy's tagger and our parser send gradients to
    a tok2vec they share. A labeller listening to a shared tok2vec needs "sum", or its gradient
    reaches the encoder weaker than the tagger's by the batch's number of role targets (about 3,000
    in 600 words of EWT; docs/results.md, "What held the parser back"). "sum" also changes the losses'
    balance: EWT has about 25 role targets per sense target (each word once per predicate of its
    sentence), so the sense head's share of the shared DeepAtt layers' gradient shrinks 25-fold
    against the mean's (its dev accuracy fell 7 points). "balanced_sum" is the mean loss times
    the batch's role targets: the role term as summed, the predicate and sense terms at their
    mean-reduction weight beside it (on the joint recipe it brought sense accuracy back and cost
    role F1: docs/ablations.md).
    """
    if preset not in PRESETS:
        raise ValueError(f"preset must be one of {sorted(PRESETS)}, got {preset!r}")
    if loss_reduction not in LOSS_REDUCTIONS:
        raise ValueError(f"loss_reduction must be one of {LOSS_REDUCTIONS}, got {loss_reduction!r}")
    overrides: Dict[str, Any] = {
        "n_layers": n_layers,
        "d_model": d_model,
        "n_heads": n_heads,
        "d_ff": d_ff,
        "sublayer": sublayer,
        "d_mask": d_mask,
        "max_distance": max_distance,
        "sentence_layers": sentence_layers,
        "label_smoothing": label_smoothing,
    }
    if dropout is not None:
        overrides.update(
            residual_dropout=dropout, attention_dropout=dropout, relu_dropout=dropout,
            input_dropout=dropout, lal_dropout=dropout,
        )
    config = PRESETS[preset](
        top_layer=top_layer, lal_n_heads=lal_heads, lal_d_kv=lal_d_kv, lal_d_proj=lal_d_proj,
        lal_ffn=lal_ffn, **{k: v for k, v in overrides.items() if v is not None},
    )  # validated here, so a bad config fails when the pipeline is created
    return Model(
        "lal_srl",
        forward_units,
        init=init_tok2vec,
        layers=[tok2vec],
        dims={"nI": None},
        refs={TORCH_LAYER: None},
        attrs={
            "deepatt": config.to_dict(),
            "d_head_hidden": d_head_hidden,
            "head_dropout": config.relu_dropout,
            # Both only steer how the model runs (the timing signal is sinusoidal, no learned
            # table): the config wins over the saved values on load.
            "max_length": ConfigSetting(max_length),
            "max_chart_cells": ConfigSetting(max_chart_cells),
            "loss_reduction": loss_reduction,
        },
    )


def configure_srl_model(model: Model, labels: Sequence[str], n_senses: int, nI: int) -> None:
    """Build (or rebuild) the torch layer for these BIO ``labels`` and ``n_senses`` sense
    classes (0 = no sense head)."""
    module = SrlAdapter(
        DeepAtt(nI, len(labels), DeepAttConfig(**model.attrs["deepatt"])),
        PredicateIdentifier(nI, 2, model.attrs["d_head_hidden"], model.attrs["head_dropout"]),
        n_senses,
        model.attrs["d_head_hidden"],
        labels,
        model.attrs["loss_reduction"],
    )
    set_torch_layer(model, module, nI)
