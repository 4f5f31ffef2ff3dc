"""Optional per-token inputs of the parser architectures, next to the tok2vec output.

Both layers map ``List[Doc] -> List[Floats2d]`` (one row per token, like any spaCy tok2vec), so the
parser architecture concatenates them with its ``tok2vec`` output feature-wise:

* ``spacy-lal.TagEmbed.v1``: embeddings of the POS tags already on the Docs (``token.tag_`` from a
  tagger earlier in the pipeline; list it in ``[training] annotating_components`` so that the
  parser trains on predicted tags, as it will see them at run time).
* ``spacy-lal.CharLSTM.v1``: the character-level word encoder of Kitaev & Klein (2018, sec. 5.1),
  the torch ``spacy_lal.nn.embeddings.CharLSTM`` wrapped for Thinc.

And a tok2vec encoder: ``spacy-lal.BiLSTMEncoder.v1``, spaCy's ``spacy.TorchBiLSTMEncoder.v1``
(same layers, same saved weights) with the sentences packed (``spacy_lal.nn.lstm.PackedLSTM``),
so a sentence's vectors do not depend on the sentences batched with it; and a tok2vec,
``spacy-lal.SentenceTok2Vec.v1``, spaCy's ``spacy.Tok2Vec.v2`` with the encoder run on each
sentence of a Doc alone, as the models were trained.

Characters are mapped to ids without a vocabulary file, so that the layer has nothing to learn at
``initialize`` and nothing extra to serialize: see ``char_ids``.

``concatenate_token_vectors`` joins them with the tok2vec output. Thinc's own ``concatenate`` does
not fit here: its ``init`` tries to read an input width off the list of Docs (and fails on any
sublayer with an unset ``nI``, such as a ``PyTorchWrapper``), and its backward pass adds up the
sublayers' Doc "gradients" with ``+=``.
"""
from typing import Any, Callable, Iterator, List, Optional, Tuple, Union

import numpy
from spacy.attrs import IS_SPACE, POS, TAG
from spacy.ml.featureextractor import FeatureExtractor
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import (
    ArgsKwargs,
    HashEmbed,
    Model,
    PyTorchWrapper_v3,
    chain,
    noop,
    torch2xp,
    with_array,
    with_padded,
    xp2torch,
)
from thinc.types import Floats2d, Ints2d, Padded

from ..torch_bridge import thread_safe_prediction
from .gemm import prediction, set_int8, use_torch_gemm

# Knuth's multiplicative hash constant (2^32 / golden ratio): spreads neighbouring code points of
# one script over the buckets instead of aliasing them onto one run of ids.
_HASH_MULTIPLIER = 2654435761


def char_ids(words: List[str], n_buckets: int, max_chars: int) -> Ints2d:
    """Character ids ``(len(words), max_chars)`` int64, right-padded with 0.

    Code points below ``n_buckets - 1`` get their own id (``code point + 1``): with the default
    2048 buckets that covers ASCII, Latin-1, Latin Extended, Greek, Cyrillic, Hebrew and Arabic
    without collisions. Higher code points (CJK, emoji, ...) are hashed into ``[1, n_buckets)``
    and so share ids with other characters; raise ``n_buckets`` for text in such scripts.

    A word longer than ``max_chars`` keeps its first ``ceil(max_chars / 2)`` and last
    ``floor(max_chars / 2)`` characters: the middle of long tokens (URLs, numbers, compounds) says
    the least about their syntax, while prefixes and suffixes carry the morphology.
    """
    if n_buckets < 2:
        raise ValueError(f"CharLSTM n_buckets must be at least 2 (0 is padding), got {n_buckets}")
    if max_chars < 1:
        raise ValueError(f"CharLSTM max_chars must be positive, got {max_chars}")
    head = (max_chars + 1) // 2
    tail = max_chars - head
    words = [w if len(w) <= max_chars else w[:head] + (w[-tail:] if tail else "") for w in words]
    ids = numpy.zeros((len(words), max_chars), dtype="int64")
    if not words:
        return ids
    # One UTF-32 encoding of all words instead of a Python loop over characters ("surrogatepass":
    # a lone surrogate in broken input is a code point like any other, not an error).
    lengths = numpy.fromiter((len(w) for w in words), dtype="int64", count=len(words))
    points = numpy.frombuffer("".join(words).encode("utf-32-le", "surrogatepass"), dtype="uint32").astype("int64")
    hashed = ((points * _HASH_MULTIPLIER) & 0xFFFFFFFF) % (n_buckets - 1) + 1
    values = numpy.where(points < n_buckets - 1, points + 1, hashed)
    rows = numpy.repeat(numpy.arange(len(words)), lengths)
    starts = numpy.cumsum(lengths) - lengths
    cols = numpy.arange(len(points)) - numpy.repeat(starts, lengths)
    ids[rows, cols] = values
    return ids


@registry.architectures("spacy-lal.CharLSTM.v1")
def build_char_lstm(
    width: int = 128,
    char_width: int = 64,
    n_buckets: int = 2048,
    max_chars: int = 24,
    dropout: float = 0.2,
) -> Model[List[Doc], List[Floats2d]]:
    """Character BiLSTM word encoder (Kitaev & Klein 2018, sec. 5.1): one ``width`` vector per token.

    width (int): output size, half per LSTM direction (must be even).
    char_width (int): character embedding size (paper: 64).
    n_buckets (int): rows of the character table; id 0 is padding (see ``char_ids``).
    max_chars (int): characters read per token; longer tokens keep their first and last
        characters (see ``char_ids``).
    dropout (float): dropout on the character embeddings (paper: 0.2). spaCy's training
        ``dropout`` does not reach into torch modules, so it is set here.
    """
    from ...nn.embeddings import CharLSTM

    module = CharLSTM(n_buckets, width, d_char=char_width, char_dropout=dropout)
    model = thread_safe_prediction(
        PyTorchWrapper_v3(module, convert_inputs=_docs_to_char_ids, convert_outputs=_split_by_doc)
    )
    model.name = "char_lstm"
    model.attrs["n_buckets"] = n_buckets
    model.attrs["max_chars"] = max_chars
    model.set_dim("nO", width)
    return model


def _docs_to_char_ids(model: Model, docs: List[Doc], is_train: bool) -> Tuple[ArgsKwargs, object]:
    """All tokens of the batch as one ``(1, N, C)`` sentence with every word real: the CharLSTM
    reads each word on its own, so one packed LSTM call over the whole batch is the cheapest."""
    import torch

    words = [token.text for doc in docs for token in doc]
    ids = char_ids(words, model.attrs["n_buckets"], model.attrs["max_chars"])
    device = model.shims[0].device
    ids_t = torch.from_numpy(ids).to(device).unsqueeze(0)
    mask_t = torch.ones((1, len(words)), dtype=torch.bool, device=device)
    # Token texts get no gradient: the backward pass returns nothing for the Docs.
    return ArgsKwargs(args=(ids_t, mask_t), kwargs={}), lambda d_inputs: []


def _split_by_doc(model: Model, X_Ytorch, is_train: bool):
    """``(1, N, width)`` -> one ``(n_tokens, width)`` array per Doc, and back for the gradient."""
    docs, Ytorch = X_Ytorch
    lengths = [len(doc) for doc in docs]
    Y = torch2xp(Ytorch[0], ops=model.ops)
    splits = numpy.cumsum(lengths)[:-1].tolist()
    outputs = model.ops.xp.split(Y, splits) if docs else []

    def backprop(dY: List[Floats2d]) -> ArgsKwargs:
        if not Ytorch.requires_grad:
            # No tokens in the batch: the LSTM never ran, there is nothing to backpropagate.
            return ArgsKwargs(args=((),), kwargs={"grad_tensors": ()})
        d_flat = model.ops.xp.concatenate(list(dY), axis=0) if dY else model.ops.alloc2f(0, Y.shape[1])
        d_torch = xp2torch(model.ops.as_contig(d_flat), device=Ytorch.device).unsqueeze(0)
        return ArgsKwargs(args=(Ytorch,), kwargs={"grad_tensors": d_torch})

    return list(outputs), backprop


@registry.architectures("spacy-lal.TagEmbed.v1")
def build_tag_embed(width: int = 32, rows: int = 128, attr: str = "TAG") -> Model[List[Doc], List[Floats2d]]:
    """Embeddings of the POS tags already on the Docs (from an upstream tagger).

    width (int): embedding size.
    rows (int): hash-embedding rows. Tags are hashed (four hashes per tag, summed), so no tag set
        is stored and unseen tags still get a vector; a few hundred rows are plenty for PTB's 45
        tags or UD's 17.
    attr (str): "TAG" (``token.tag_``, fine-grained) or "POS" (``token.pos_``, universal).
        Tokens without a tag all share the embedding of the empty tag.
    """
    attrs = {"TAG": TAG, "POS": POS}
    if attr.upper() not in attrs:
        raise ValueError(f"TagEmbed attr must be 'TAG' or 'POS', got {attr!r}")
    model: Model[List[Doc], List[Floats2d]] = chain(
        FeatureExtractor([attrs[attr.upper()]]),
        with_array(HashEmbed(nO=width, nV=rows, column=0)),
    )
    model.name = "tag_embed"
    model.set_dim("nO", width)
    return model


def concatenate_token_vectors(*layers: Model[List[Doc], List[Floats2d]]) -> Model[List[Doc], List[Floats2d]]:
    """Feature-wise concatenation of per-token layers run on the same Docs.

    ``nO`` (the sum of the sublayers' widths) is known after ``initialize``; a sublayer whose width
    is only known from its output (e.g. a transformer listener) is measured on the sample Docs.
    One layer is returned as it is, so a parser without extra inputs keeps its plain tok2vec.
    """
    if len(layers) == 1:
        return layers[0]
    nO: Optional[int] = None
    if all(layer.has_dim("nO") for layer in layers):
        nO = sum(layer.get_dim("nO") for layer in layers)
    return Model(
        "|".join(layer.name for layer in layers),
        _concatenate_forward,
        init=_concatenate_init,
        layers=list(layers),
        dims={"nO": nO},
    )


def _concatenate_init(model: Model, X: Optional[List[Doc]] = None, Y: Any = None) -> None:
    for layer in model.layers:
        layer.initialize(X=X)
    widths = []
    for layer in model.layers:
        if layer.has_dim("nO"):
            widths.append(layer.get_dim("nO"))
        elif X:
            outputs = layer.predict(X)
            widths.append(max(output.shape[1] for output in outputs))
        else:
            return  # width unknown until the layer sees data
    model.set_dim("nO", sum(widths), force=True)


def _concatenate_forward(
    model: Model, docs: List[Doc], is_train: bool
) -> Tuple[List[Floats2d], Callable[[List[Floats2d]], List[Doc]]]:
    results = [layer(docs, is_train) for layer in model.layers]
    per_layer = [outputs for outputs, _ in results]
    xp = model.ops.xp
    # Widths per Doc and layer: a listener may return (0, 0) arrays for empty Docs.
    widths = [[outputs[i].shape[1] for outputs in per_layer] for i in range(len(docs))]
    concatenated = [xp.hstack([outputs[i] for outputs in per_layer]) for i in range(len(docs))]

    def backprop(d_concatenated: List[Floats2d]) -> List[Doc]:
        offsets = [numpy.cumsum([0] + doc_widths).tolist() for doc_widths in widths]
        for k, (_, bp_layer) in enumerate(results):
            bp_layer(
                [
                    model.ops.as_contig(d[:, offsets[i][k] : offsets[i][k + 1]])
                    for i, d in enumerate(d_concatenated)
                ]
            )
        return []

    return concatenated, backprop


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


def _slices(docs: List[Doc], max_tokens: int) -> Iterator[List[Doc]]:
    """Consecutive runs of ``docs`` of at most ``max_tokens`` tokens (a longer Doc alone)."""
    part: List[Doc] = []
    size = 0
    for doc in docs:
        if part and size + len(doc) > max_tokens:
            yield part
            part, size = [], 0
        part.append(doc)
        size += len(doc)
    if part:
        yield part


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
        for part in _slices(docs, PREDICT_SLICE_TOKENS):
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
