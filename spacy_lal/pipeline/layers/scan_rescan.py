"""Zhou et al.'s SCAN + RESCAN encoder (``spacy_lal.nn.spa_encoder.SpaEncoder``, eq. 1-3, 11-27) as the
``encode`` layer of a spaCy tok2vec, so that any component reading that tok2vec gets the SPA word
representations: ``lal_dependency_parser``, ``lal_parser`` (the encoder below its Label Attention
Layer) and ``lal_srl``.

    [components.tok2vec.model]
    @architectures = "spacy-lal.SentenceTok2Vec.v1"
    [components.tok2vec.model.embed]
    ...                                  # width = 96, say
    [components.tok2vec.model.encode]
    @architectures = "spacy-lal.SpaEncoder.v1"
    width = 96
    encoder = "bot"

The output of word i is ``r_i`` (eq. 27); ROOT's ``r_0`` is left out, as our parsers add their own
root. Sentences run in length-sorted chunks of at most ``max_cells`` ``sentences x (length + 1)^2``:
the rescan keeps a GRU state per (target, context word) pair, ``O(sum n^2 d)`` memory, and a
chunk pads only to its own longest sentence. Put it under ``spacy-lal.SentenceTok2Vec.v1`` so that
it reads sentences, not whole multi-sentence Docs.
"""
from typing import Callable, List, Tuple

from spacy.util import registry
from thinc.api import ArgsKwargs, Model, PyTorchWrapper_v2, torch2xp, xp2torch
from thinc.types import Floats2d

from ..torch_bridge import thread_safe_prediction
from ..units import length_sorted_chunks

__all__ = ["build_spa_encoder"]


@registry.architectures("spacy-lal.SpaEncoder.v1")
def build_spa_encoder(
    width: int,
    encoder: str = "bot",
    d_scan: int = 200,
    d_rescan: int = 100,
    d_attention: int = 100,
    scan_layers: int = 1,
    dropout: float = 0.3,
    max_cells: int = 200_000,
) -> Model[List[Floats2d], List[Floats2d]]:
    """SCAN + RESCAN over the embedded words of each sentence.

    ``width``: the embedding width in. ``encoder``: "birnn" (SCAN only), "attention" (+ vanilla
    attention, eq. 12-14), "tob" or "bot" (+ RESCAN, eq. 25 / 26). ``d_scan``: BiLSTM size per
    direction; ``d_rescan``: rescan GRU size per side; ``d_attention``: vanilla attention's MLP.
    ``dropout``: on the input vectors (the paper's 30% word dropout). The output width ``nO`` is
    ``2 d_scan`` plus ``2 d_rescan`` (tob, bot) or ``2 d_scan`` (attention).
    """
    from ...nn.spa_encoder import SpaEncoder

    if max_cells < 1:
        raise ValueError(f"SpaEncoder max_cells must be positive, got {max_cells}")
    module = SpaEncoder(width, encoder, d_scan=d_scan, d_rescan=d_rescan, d_attention=d_attention,
                        word_dropout=dropout, scan_layers=scan_layers)  # validates ``encoder``
    wrapper = thread_safe_prediction(
        PyTorchWrapper_v2(module, convert_inputs=_padded_inputs, convert_outputs=_word_outputs)
    )
    return Model(
        "spa_encoder",
        _forward,
        layers=[wrapper],
        dims={"nI": width, "nO": module.d_out},
        attrs={"max_cells": max_cells},
    )


def _forward(model: Model, X: List[Floats2d], is_train: bool) -> Tuple[List[Floats2d], Callable]:
    wrapper = model.layers[0]
    chunks = length_sorted_chunks(X, model.attrs["max_cells"])
    Y: List[Floats2d] = [None] * len(X)  # type: ignore[list-item]
    backprops = []
    for chunk in chunks:
        outputs, backprop = wrapper([X[i] for i in chunk], is_train)
        for i, y in zip(chunk, outputs):
            Y[i] = y
        backprops.append(backprop)

    def backprop(dY: List[Floats2d]) -> List[Floats2d]:
        dX: List[Floats2d] = [None] * len(X)  # type: ignore[list-item]
        for chunk, bp in zip(chunks, backprops):
            for i, dx in zip(chunk, bp([dY[i] for i in chunk])):
                dX[i] = dx
        return dX

    return Y, backprop


def _padded_inputs(model: Model, X: List[Floats2d], is_train: bool) -> Tuple[ArgsKwargs, Callable]:
    """A chunk of sentences -> ``(B, T, width)`` and the lengths, batch-major."""
    import torch

    ops = model.ops
    lengths = [len(x) for x in X]
    padded = ops.pad(X) if max(lengths) else ops.alloc3f(len(X), 0, X[0].shape[1])
    tokens = xp2torch(padded, requires_grad=is_train, device=model.shims[0].device)

    def backprop(d_inputs: ArgsKwargs) -> List[Floats2d]:
        d_padded = torch2xp(d_inputs.args[0])
        return [d_padded[b, :n] for b, n in enumerate(lengths)]

    return ArgsKwargs(args=(tokens, torch.tensor(lengths, dtype=torch.long, device=tokens.device)), kwargs={}), backprop


def _word_outputs(model: Model, X_Ytorch, is_train: bool) -> Tuple[List[Floats2d], Callable]:
    """``(B, T + 1, d_out)`` with ROOT at 0 -> the words' rows of each sentence."""
    X, Ytorch = X_Ytorch
    lengths = [len(x) for x in X]
    Y = torch2xp(Ytorch)
    outputs = [model.ops.as_contig(Y[b, 1 : n + 1]) for b, n in enumerate(lengths)]

    def backprop(dY: List[Floats2d]) -> ArgsKwargs:
        d_padded = model.ops.alloc3f(*Ytorch.shape)
        for b, (n, dy) in enumerate(zip(lengths, dY)):
            d_padded[b, 1 : n + 1] = dy
        d_torch = xp2torch(d_padded, device=Ytorch.device)
        return ArgsKwargs(args=(Ytorch,), kwargs={"grad_tensors": d_torch})

    return outputs, backprop
