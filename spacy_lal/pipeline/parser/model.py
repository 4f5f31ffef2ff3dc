"""The registered parser architecture: a spaCy tok2vec feeding ``LabelAttentionParserModel``,
run by ``adapter.py``.

The Thinc model takes ``(docs, units, ParserBatch)`` and runs the units in length-sorted chunks
(``torch_bridge.forward_units``). With targets (training) it returns the joint loss of eq. 12;
without, the decoded parses. The torch module's shape depends on the label counts, which the
component learns in ``initialize`` (or reads from its saved cfg), so the torch layer is built by
``configure_parser_model`` rather than by the architecture function.
"""
from typing import List, Optional

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model
from thinc.types import Floats2d

from ...nn.parser import LabelAttentionParserModel, ParserConfig
from ..layers.token_features import concatenate_token_vectors
from .adapter import ParserAdapter
from ..torch_bridge import TORCH_LAYER, forward_units, init_tok2vec, set_torch_layer
from ..settings import ConfigSetting

__all__ = ["build_label_attention_parser", "configure_parser_model"]


@registry.architectures("spacy-lal.LabelAttentionParser.v1")
def build_label_attention_parser(
    tok2vec: Model[List[Doc], List[Floats2d]],
    tag_embed: Optional[Model[List[Doc], List[Floats2d]]] = None,
    char_encoder: Optional[Model[List[Doc], List[Floats2d]]] = None,
    d_model: Optional[int] = None,
    d_positional: Optional[int] = None,
    n_layers: Optional[int] = None,
    n_heads: Optional[int] = None,
    d_kv: Optional[int] = None,
    d_ff: Optional[int] = None,
    lal_heads: Optional[int] = None,
    lal_d_kv: Optional[int] = None,
    lal_d_proj: Optional[int] = None,
    lal_query: Optional[str] = None,
    lal_combine: Optional[str] = None,
    lal_ffn: Optional[bool] = None,
    d_span_hidden: Optional[int] = None,
    dep_input: Optional[str] = None,
    d_arc: Optional[int] = None,
    d_dep_label: Optional[int] = None,
    dropout: Optional[float] = None,
    max_length: Optional[int] = None,
    loss_reduction: Optional[str] = None,
    max_chart_cells: int = 10_000,
) -> Model:
    """Label Attention parser (Mrini et al. 2020) over any tok2vec.

    The encoder input of a token is its ``tok2vec`` vector (``spacy.Tok2Vec.v2``, a
    ``spacy.Tok2VecListener.v1`` or ``spacy-transformers.TransformerListener.v1``), concatenated
    with the optional ``tag_embed`` (e.g. ``spacy-lal.TagEmbed.v1``: embeddings of upstream POS
    tags) and ``char_encoder`` (e.g. ``spacy-lal.CharLSTM.v1``, Kitaev & Klein sec. 5.1) outputs;
    the model's first layer is that concatenation, whose width the component stores as ``nI``.

    ``dep_input`` = "encoder" feeds the dependency scorers the encoder output instead of the
    LAL output (the paper's "lal"). ``lal_heads`` = None gives one label-attention head per label (span labels for
    ``lal_parser``, dependency labels for ``lal_dependency_parser``), as in the paper.
    Every other argument left out (None) takes its default from ``spacy_lal.nn.ParserConfig``.
    ``dropout`` sets the encoder's attention, residual, input and dependency-MLP dropouts and
    (halved, as in Kitaev & Klein) the ReLU dropout; spaCy's own ``dropout`` training setting
    does not reach into torch modules. ``max_chart_cells`` bounds the padded chart of one forward
    pass (sentences x (length+1)^2): batches are run in length-sorted chunks below it. Small
    chunks are faster on CPU (their activations stay in cache) and keep peak memory low: on EWT
    test the shipped parser ran 2.1x faster with 10,000 than with 200,000 (docs/experiments.md, "Speed and memory").
    """
    overrides = {
        "d_model": d_model,
        "d_positional": d_positional,
        "n_layers": n_layers,
        "n_heads": n_heads,
        "d_kv": d_kv,
        "d_ff": d_ff,
        "n_lal_heads": lal_heads,
        "lal_d_kv": lal_d_kv,
        "lal_d_proj": lal_d_proj,
        "lal_query": lal_query,
        "lal_combine": lal_combine,
        "lal_ffn": lal_ffn,
        "d_span_hidden": d_span_hidden,
        "dep_input": dep_input,
        "d_arc": d_arc,
        "d_dep_label": d_dep_label,
        "max_length": max_length,
        "loss_reduction": loss_reduction,
    }
    overrides = {key: value for key, value in overrides.items() if value is not None}
    # Validated here, so a bad config fails when the pipeline is created.
    config = ParserConfig.with_dropout(dropout, **overrides) if dropout is not None else ParserConfig(**overrides)
    inputs = [layer for layer in (tok2vec, tag_embed, char_encoder) if layer is not None]
    return Model(
        "lal_parser",
        forward_units,
        init=init_tok2vec,
        layers=[concatenate_token_vectors(*inputs)],
        dims={"nI": None},
        refs={TORCH_LAYER: None},
        attrs={
            "parser_config": config.to_dict(),
            "max_length": config.max_length,
            "max_chart_cells": ConfigSetting(max_chart_cells),  # the config wins on load
        },
    )


def configure_parser_model(model: Model, n_span_labels: int, n_dep_labels: int, nI: int) -> None:
    """Build (or rebuild) the torch layer for these label counts; ``n_span_labels`` includes
    the empty label, 0 = no constituency head; ``n_dep_labels`` 0 = no dependency head."""
    parser = LabelAttentionParserModel(
        nI,
        n_span_labels,
        n_dep_labels=n_dep_labels,
        dependency=n_dep_labels > 0,
        config=ParserConfig(**model.attrs["parser_config"]),
    )
    set_torch_layer(model, ParserAdapter(parser), nI)
