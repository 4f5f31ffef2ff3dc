"""The registered parser architecture: a spaCy tok2vec feeding ``LabelAttentionParserModel``.

The Thinc model takes ``(docs, units, targets)``. With targets (training) it returns the joint
loss of eq. 12 as a one-element array, computed in torch: the loss-augmented CKY decode that the
hinge loss needs runs inside the forward pass, on the detached chart. Without targets it returns
the decoded parses. Keeping the losses in torch avoids copying charts of
``(sentences, n+1, n+1, labels)`` gradients between frameworks.

The torch module's shape depends on the label counts, which the component learns in
``initialize`` (or reads from its saved cfg), so the torch layer is built by
``configure_parser_model`` rather than by the architecture function.
"""
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy
import torch
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model, PyTorchWrapper_v3
from thinc.types import Floats2d

from .embeddings import concatenate_token_vectors
from .torch_bridge import convert_loss_outputs, convert_padded_inputs, init_tok2vec, pad_units
from .units import Unit, length_sorted_chunks


@dataclass
class ParserTargets:
    """Gold structures for a batch of units (see ``gold.py``)."""

    charts: List[Optional[numpy.ndarray]]  # (n+1, n+1) int32 label charts; None = no tree loss
    heads: numpy.ndarray  # (B, T+1) int64; 0 = root, -1 = unknown, [:, 0] unused
    labels: numpy.ndarray  # (B, T+1) int64; -1 = unknown

    def select(self, rows: Sequence[int], width: int) -> "ParserTargets":
        """The targets of ``rows``, padded to ``width`` (longest unit + 1)."""
        return ParserTargets(
            [self.charts[b] for b in rows], self.heads[rows, :width], self.labels[rows, :width]
        )


@dataclass
class DecodedParses:
    spans: List[Optional[numpy.ndarray]]  # per unit: (2n-1, 3) pre-order (start, end, label)
    heads: List[Optional[numpy.ndarray]]  # per unit: (n+1,) with heads[0] = -1
    dep_scores: List[Optional[numpy.ndarray]]  # per unit: (n, n_dep_labels) scores of the labels

    @classmethod
    def merge(cls, parts: Sequence["DecodedParses"], chunks: Sequence[Sequence[int]], n: int) -> "DecodedParses":
        """Put the decoded chunks back in unit order."""
        merged = cls([None] * n, [None] * n, [None] * n)
        for part, chunk in zip(parts, chunks):
            for k, b in enumerate(chunk):
                merged.spans[b] = part.spans[k]
                merged.heads[b] = part.heads[k]
                merged.dep_scores[b] = part.dep_scores[k]
        return merged


@registry.architectures("spacy-lal.LabelAttentionParser.v1")
def build_label_attention_parser(
    tok2vec: Model[List[Doc], List[Floats2d]],
    tag_embed: Optional[Model[List[Doc], List[Floats2d]]] = None,
    char_encoder: Optional[Model[List[Doc], List[Floats2d]]] = None,
    d_model: int = 256,
    n_layers: int = 2,
    n_heads: int = 8,
    d_kv: int = 32,
    d_ff: int = 512,
    lal_heads: Optional[int] = None,
    lal_d_kv: int = 32,
    lal_d_proj: int = 32,
    lal_query: str = "vector",
    lal_combine: str = "concat",
    lal_ffn: bool = True,
    d_span_hidden: int = 250,
    d_arc: int = 256,
    d_dep_label: int = 128,
    dropout: float = 0.2,
    max_length: int = 256,
    max_chart_cells: int = 200_000,
) -> Model:
    """Label Attention parser (Mrini et al. 2020) over any tok2vec.

    The encoder input of a token is its ``tok2vec`` vector (``spacy.Tok2Vec.v2``, a
    ``spacy.Tok2VecListener.v1`` or ``spacy-transformers.TransformerListener.v1``), concatenated
    with the optional ``tag_embed`` (e.g. ``spacy-lal.TagEmbed.v1``: embeddings of upstream POS
    tags) and ``char_encoder`` (e.g. ``spacy-lal.CharLSTM.v1``, Kitaev & Klein sec. 5.1) outputs;
    the model's first layer is that concatenation, whose width the component stores as ``nI``.

    ``lal_heads`` = None gives one label-attention head per label (span labels for
    ``lal_parser``, dependency labels for ``lal_dependency_parser``), as in the paper.
    ``dropout`` sets the encoder's attention, residual, input and (halved, as in Kitaev & Klein)
    ReLU dropouts (spaCy's own
    ``dropout`` training setting does not reach into torch modules). ``max_chart_cells`` bounds
    the padded chart of one forward pass (sentences x (length+1)^2): batches are run in
    length-sorted chunks below it.
    """
    hparams = {
        "d_model": d_model,
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
        "d_arc": d_arc,
        "d_dep_label": d_dep_label,
        "attention_dropout": dropout,
        "relu_dropout": dropout / 2,
        "residual_dropout": dropout,
        "input_dropout": dropout,
        "dep_dropout": dropout,
        "max_length": max_length,
    }
    inputs = [layer for layer in (tok2vec, tag_embed, char_encoder) if layer is not None]
    return Model(
        "lal_parser",
        _forward,
        init=init_tok2vec,
        layers=[concatenate_token_vectors(*inputs)],
        dims={"nI": None},
        attrs={
            "hparams": hparams,
            "max_length": max_length,
            "max_chart_cells": max_chart_cells,
        },
    )


def configure_parser_model(
    model: Model,
    n_span_labels: int,
    n_dep_labels: int,
    nI: int,
    dependency_decoder: str = "eisner",
    joint_weight: float = 1.0,
) -> None:
    """Build (or rebuild) the torch layer for these label counts; ``n_span_labels`` includes
    the empty label, 0 = no constituency head; ``n_dep_labels`` 0 = no dependency head. The
    decoding settings are those of ``set_decoding``."""
    from ..nn.parser import LabelAttentionParserModel

    hparams = dict(model.attrs["hparams"])
    if hparams["n_lal_heads"] is None:
        hparams["n_lal_heads"] = max(1, (n_span_labels - 1) if n_span_labels else n_dep_labels)
    module = _ParserAdapter(
        LabelAttentionParserModel(
            nI,
            n_span_labels,
            n_dep_labels=n_dep_labels,
            dependency=n_dep_labels > 0,
            **hparams,
        ),
        constituency=n_span_labels > 0,
        dependency_decoder=dependency_decoder,
        joint_weight=joint_weight,
    )
    wrapper = PyTorchWrapper_v3(
        module, convert_inputs=convert_padded_inputs, convert_outputs=convert_loss_outputs
    )
    model.set_dim("nI", nI, force=True)
    model._layers = [model.layers[0], wrapper]


def set_decoding(model: Model, dependency_decoder: str, joint_weight: float = 1.0) -> None:
    """Choose how a built parser model decodes: "eisner" (projective) or "mst"
    (non-projective) for the dependencies next to CKY for the tree, or "joint" for Zhou &
    Zhao's decoding of both at once, maximising span scores + ``joint_weight`` x arc scores."""
    adapter = model.layers[1].shims[0]._model
    adapter.dependency_decoder = dependency_decoder
    adapter.joint_weight = joint_weight


def _forward(model: Model, X: Tuple[List[Doc], Sequence[Unit], Optional[ParserTargets]], is_train: bool):
    """Run the torch layer over length-sorted chunks of units: padding stays small, and a
    chunk's chart (units x (length+1)^2 x labels) stays within ``max_chart_cells`` cells."""
    docs, units, targets = X
    if len(model.layers) < 2:
        raise ValueError("the parser model has no labels yet: initialize the component first")
    tok2vec, torch_layer = model.layers
    vectors, bp_vectors = tok2vec(docs, is_train)
    chunks = length_sorted_chunks(units, model.attrs["max_chart_cells"])
    results = []
    for chunk in chunks:
        padded, lengths, bp_padded = pad_units(model.ops, vectors, [units[b] for b in chunk])
        chunk_targets = None if targets is None else targets.select(chunk, int(lengths.max()) + 1)
        output, bp_torch = torch_layer((padded, lengths, chunk_targets), is_train)
        results.append((output, bp_torch, bp_padded))
    if targets is None:
        return DecodedParses.merge([r[0] for r in results], chunks, len(units)), lambda d: None
    # Each chunk's loss is a mean over its units: weight it to a mean over all units.
    weights = [len(chunk) / len(units) for chunk in chunks]
    loss = sum(w * output for w, (output, _, _) in zip(weights, results))

    def backprop(d_loss) -> List[Doc]:
        d_vectors = None
        for w, (_, bp_torch, bp_padded) in zip(weights, results):
            d_chunk = bp_padded(bp_torch(d_loss * w)[0])
            d_vectors = d_chunk if d_vectors is None else [a + b for a, b in zip(d_vectors, d_chunk)]
        return bp_vectors(d_vectors)

    return loss, backprop


class _ParserAdapter(torch.nn.Module):
    """Runs ``LabelAttentionParserModel`` for spaCy: losses in training, decoding otherwise."""

    def __init__(self, parser, *, constituency: bool, dependency_decoder: str, joint_weight: float = 1.0) -> None:
        super().__init__()
        self.parser = parser
        self.constituency = constituency
        # Decoding settings, read at each prediction (the component may change them).
        self.dependency_decoder = dependency_decoder
        self.joint_weight = joint_weight

    def forward(self, padded, lengths, targets: Optional[ParserTargets] = None):
        output = self.parser(padded, lengths)
        if targets is None:
            return self._decode(output)
        return self._loss(output, targets)

    def _loss(self, output, targets: ParserTargets):
        from ..decode import cky_batch
        from ..nn.biaffine import dependency_loss
        from ..nn.span import hinge_loss

        lengths = output.lengths.tolist()
        loss = output.chart.new_zeros(())
        if self.constituency:
            chart = output.chart.detach().float().cpu().numpy()
            rows = [b for b, gold in enumerate(targets.charts) if gold is not None]
            if rows:
                subcharts = [numpy.ascontiguousarray(chart[b, : lengths[b] + 1, : lengths[b] + 1]) for b in rows]
                golds = [targets.charts[b] for b in rows]
                gold_rows, pred_rows = [], []
                costs = numpy.zeros(len(lengths), dtype="float32")
                for b, gold, result in zip(rows, golds, cky_batch(subcharts, golds)):
                    costs[b] = result.cost
                    keep = result.spans[result.spans[:, 2] != 0]
                    pred_rows.append(numpy.column_stack([numpy.full(len(keep), b), keep]))
                    i, j = numpy.nonzero(gold)
                    gold_rows.append(numpy.column_stack([numpy.full(len(i), b), i, j, gold[i, j]]))
                device = output.chart.device
                loss = loss + hinge_loss(
                    output.chart,
                    torch.as_tensor(numpy.concatenate(gold_rows), dtype=torch.long, device=device),
                    torch.as_tensor(numpy.concatenate(pred_rows), dtype=torch.long, device=device),
                    torch.as_tensor(costs, device=device),
                    reduction="mean",
                )
        if self.parser.arc_scorer is not None:
            device = output.arc_scores.device
            heads = torch.as_tensor(targets.heads, device=device)
            labels = torch.as_tensor(targets.labels, device=device)
            label_scores = self.parser.dep_label_scores(output, heads.clamp(min=0))
            dep_loss, _ = dependency_loss(
                output.arc_scores, output.lengths, heads, label_scores, labels, reduction="mean"
            )
            loss = loss + dep_loss
        return loss

    def _decode(self, output) -> DecodedParses:
        from ..decode import chu_liu_edmonds_batch, cky_batch, eisner_batch, joint_batch

        lengths = output.lengths.tolist()
        n_units = len(lengths)
        spans: List[Optional[numpy.ndarray]] = [None] * n_units
        heads: List[Optional[numpy.ndarray]] = [None] * n_units
        labels: List[Optional[numpy.ndarray]] = [None] * n_units
        charts = arcs = None
        if self.constituency:
            chart = output.chart.float().cpu().numpy()
            charts = [numpy.ascontiguousarray(chart[b, : n + 1, : n + 1]) for b, n in enumerate(lengths)]
        if self.parser.arc_scorer is not None:
            arc_scores = output.arc_scores.float().cpu().numpy()
            arcs = [numpy.ascontiguousarray(arc_scores[b, : n + 1, : n + 1]) for b, n in enumerate(lengths)]
        if self.dependency_decoder == "joint" and charts is not None and arcs is not None:
            results = joint_batch(charts, arcs, self.joint_weight)
            spans = [result.spans for result in results]
            heads = [result.heads for result in results]
        else:
            if charts is not None:
                spans = [result.spans for result in cky_batch(charts)]
            if arcs is not None:
                decode = chu_liu_edmonds_batch if self.dependency_decoder == "mst" else eisner_batch
                heads = decode(arcs)
        if arcs is not None:
            T1 = output.arc_scores.shape[1]
            padded_heads = numpy.zeros((n_units, T1), dtype="int64")
            for b, h in enumerate(heads):
                padded_heads[b, 1 : len(h)] = h[1:]
            label_scores = self.parser.dep_label_scores(output, torch.as_tensor(padded_heads)).float().cpu().numpy()
            labels = [label_scores[b, 1 : n + 1] for b, n in enumerate(lengths)]
        return DecodedParses(spans, heads, labels)
