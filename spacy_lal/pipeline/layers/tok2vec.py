"""The tok2vec of the CPU recipes and its encoder.

``spacy-lal.BiLSTMEncoder.v1``: spaCy's ``spacy.TorchBiLSTMEncoder.v1`` (same layers, same saved
weights) with the sentences packed (``spacy_lal.nn.lstm.PackedLSTM``), so a sentence's vectors do
not depend on the sentences batched with it. ``spacy-lal.SentenceTok2Vec.v1``: spaCy's
``spacy.Tok2Vec.v2`` with the encoder run on each sentence of a Doc alone, as the models were
trained, its products through ``gemm.py`` (int8 at prediction when asked).
"""
from typing import Any, Callable, List, Optional, Tuple, Union

import numpy
from spacy.attrs import IS_SPACE
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import ArgsKwargs, Model, noop, torch2xp, with_padded, xp2torch
from thinc.types import Floats2d, Padded

from ..torch_bridge import thread_safe_prediction
from ..units import doc_batches
from .gemm import prediction, set_int8, use_torch_gemm


def _packed_rnn_inputs(model: Model, Xp: Padded, is_train: bool) -> Tuple[ArgsKwargs, Callable]:
    """Thinc's RNN input conversion plus the lengths, for ``PackedLSTM.forward(x, lengths)``."""
    import torch

    shim = model.shims[0]
    X = xp2torch(Xp.data, requires_grad=True, device=shim.device)
    # pack_padded_sequence reads the lengths on the host, wherever the data are.
    lengths = torch.as_tensor(model.ops.to_numpy(Xp.lengths).astype("int64"))

    def backprop(d_inputs: ArgsKwargs) -> Padded:
        return Padded(torch2xp(d_inputs.args[0]), Xp.size_at_t, Xp.lengths, Xp.indices)

    return ArgsKwargs(args=(X, lengths), kwargs={}), backprop


@registry.architectures("spacy-lal.BiLSTMEncoder.v1")
def build_bilstm_encoder(width: int, depth: int, dropout: float) -> Model[List[Floats2d], List[Floats2d]]:
    """spaCy's ``spacy.TorchBiLSTMEncoder.v1`` (``width`` in and out, ``depth`` layers, dropout
    between them) reading each sentence only up to its length; its saved weights load either way."""
    from thinc.layers.pytorchwrapper import PyTorchRNNWrapper

    from ...nn.lstm import PackedLSTM

    if depth == 0:
        return noop()
    rnn = thread_safe_prediction(
        PyTorchRNNWrapper(PackedLSTM(width, width // 2, depth, bidirectional=True, dropout=dropout),
                          convert_inputs=_packed_rnn_inputs)
    )
    rnn.set_dim("nO", width)
    rnn.set_dim("nI", width)
    return with_padded(with_padded(rnn))


@registry.architectures("spacy-lal.SentenceTok2Vec.v1")
def build_sentence_tok2vec(
    embed: Model[List[Doc], List[Floats2d]], encode: Model[List[Floats2d], List[Floats2d]], int8: bool = False
) -> Model[List[Doc], List[Floats2d]]:
    """spaCy's ``spacy.Tok2Vec.v2`` (``embed``, then ``encode``) whose encoder reads each sentence
    of a Doc on its own, as it was trained (our corpora hold one sentence per Doc). A BiLSTM run
    over a whole multi-sentence Doc carries state across sentence boundaries, which cost the
    shipped parser 2.2 LAS on EWT test sentences parsed five to a Doc. Docs without sentence
    boundaries are read whole. The same layers as ``spacy.Tok2Vec.v2``, so its saved weights load.
    Its Thinc layers multiply through torch on CPU (``gemm.TorchGemmOps``: same products, faster).
    ``int8``: its prediction products multiply int8 weights from the start (what
    ``spacy_lal.quantize`` switches on after loading; CPU only, training stays in float).
    """
    model: Model[List[Doc], List[Floats2d]] = Model(
        "tok2vec", _sentence_tok2vec_forward, init=_sentence_tok2vec_init, layers=[embed, encode],
        dims={"nO": encode.get_dim("nO") if encode.has_dim("nO") else None},
    )
    model.set_ref("embed", embed)
    model.set_ref("encode", encode)
    # spaCy's replace_listeners gives a listening component a copy of this model, and Thinc's
    # copies are built on plain NumpyOps: this puts the copy's layers back on TorchGemmOps.
    # (Module-level functions, not closures: spaCy pickles pipelines, attrs included.)
    on_torch_gemm = _on_torch_gemm_int8 if int8 else use_torch_gemm
    model.attrs["replace_listener"] = on_torch_gemm
    return on_torch_gemm(model)


def _on_torch_gemm_int8(model: Model) -> Model:
    use_torch_gemm(model)
    set_int8(model, True)
    return model


def _sentence_tok2vec_init(model: Model, X: Optional[List[Doc]] = None, Y: Any = None) -> None:
    embed, encode = model.layers
    embed.initialize(X=X)
    encode.initialize(X=None if X is None else embed.predict(X))
    if encode.has_dim("nO"):
        model.set_dim("nO", encode.get_dim("nO"), force=True)


def sentence_bounds(doc: Doc) -> List[Tuple[int, int]]:
    """(start, end) of each sentence of ``doc`` (the whole Doc without sentence boundaries)."""
    if len(doc) and doc.has_annotation("SENT_START"):
        return [(sent.start, sent.end) for sent in doc.sents]
    return [(0, len(doc))] if len(doc) else []


def sentence_rows(doc: Doc) -> List[Union[slice, numpy.ndarray]]:
    """The rows of each sentence's words in ``doc`` (see ``sentence_bounds``), whitespace tokens
    left out: slices when the Doc has none (the usual case), else index arrays (a sentence of
    whitespace alone has none). Line breaks of hard-wrapped text and the blank line between
    paragraphs are whitespace tokens no training sentence has: read in a sentence's window, they
    cost the shipped pipeline 1.8 LAS on EWT test given as the CoNLL 2018 shared task's raw text
    (80-character lines)."""
    bounds = sentence_bounds(doc)
    spaces = doc.to_array(IS_SPACE) if bounds else None
    if spaces is None or not spaces.any():
        return [slice(start, end) for start, end in bounds]
    rows = [start + numpy.flatnonzero(spaces[start:end] == 0) for start, end in bounds]
    return [words for words in rows if len(words)]


def _regroup(
    ops, pieces: List[Floats2d], rows: List[List[Union[slice, numpy.ndarray]]], lengths: List[int], width: int
) -> List[Floats2d]:
    """Per Doc, its sentence pieces put back at their ``rows`` (zeros for whitespace tokens)."""
    out, k = [], 0
    for doc_rows, length in zip(rows, lengths):
        parts = pieces[k : k + len(doc_rows)]
        k += len(doc_rows)
        if doc_rows and isinstance(doc_rows[0], slice):  # the sentences tile the Doc
            out.append(parts[0] if len(parts) == 1 else ops.xp.vstack(parts))
            continue
        rows_out = ops.alloc2f(length, width)
        for words, part in zip(doc_rows, parts):
            rows_out[words] = part
        out.append(rows_out)
    return out


# At prediction, Docs are read in slices of about this many tokens: the embedding's
# (tokens x 1280) concatenations and products are 1.2-1.5x faster per token at a few thousand
# tokens than at the 7,000 of a component that reads eight nlp.pipe batches at once (lal_srl).
# Each sentence's vectors do not depend on the others read with it, so slicing changes nothing.
PREDICT_SLICE_TOKENS = 2048


def _sentence_tok2vec_forward(
    model: Model, docs: List[Doc], is_train: bool
) -> Tuple[List[Floats2d], Callable[[List[Floats2d]], List[Doc]]]:
    if not is_train and len(docs) > 1 and sum(len(doc) for doc in docs) > PREDICT_SLICE_TOKENS:
        outputs: List[Floats2d] = []
        for part in doc_batches(docs, PREDICT_SLICE_TOKENS):
            outputs.extend(_sentence_tok2vec_forward(model, part, is_train)[0])
        return outputs, lambda d_outputs: []
    if not is_train:
        with prediction():
            return _sentence_tok2vec_pass(model, docs, is_train)
    return _sentence_tok2vec_pass(model, docs, is_train)


def _sentence_tok2vec_pass(
    model: Model, docs: List[Doc], is_train: bool
) -> Tuple[List[Floats2d], Callable[[List[Floats2d]], List[Doc]]]:
    embed, encode = model.layers
    embedded, bp_embed = embed(docs, is_train)
    rows = [sentence_rows(doc) for doc in docs]
    lengths = [len(doc) for doc in docs]
    pieces = [model.ops.as_contig(embedded[i][words]) for i, doc_rows in enumerate(rows) for words in doc_rows]
    encoded, bp_encode = encode(pieces, is_train) if pieces else ([], lambda d: [])
    width = model.get_dim("nO") if model.has_dim("nO") else (encoded[0].shape[1] if encoded else 0)
    outputs = _regroup(model.ops, encoded, rows, lengths, width)

    def backprop(d_outputs: List[Floats2d]) -> List[Doc]:
        d_pieces = [model.ops.as_contig(d_outputs[i][words]) for i, doc_rows in enumerate(rows) for words in doc_rows]
        d_encoded = bp_encode(d_pieces) if d_pieces else []
        return bp_embed(_regroup(model.ops, d_encoded, rows, lengths, embedded[0].shape[1] if embedded else 0))

    return outputs, backprop
