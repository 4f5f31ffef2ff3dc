"""Optional per-token inputs of the parser architectures, next to the tok2vec output.

Both layers map ``List[Doc] -> List[Floats2d]`` (one row per token, like any spaCy tok2vec), so the
parser architecture concatenates them with its ``tok2vec`` output feature-wise:

* ``spacy-lal.TagEmbed.v1``: embeddings of the POS tags already on the Docs (``token.tag_`` from a
  tagger earlier in the pipeline; list it in ``[training] annotating_components`` so that the
  parser trains on predicted tags, as it will see them at run time).
* ``spacy-lal.CharLSTM.v1``: the character-level word encoder of Kitaev & Klein (2018, sec. 5.1),
  the torch ``spacy_lal.nn.embeddings.CharLSTM`` wrapped for Thinc.

The tok2vec they sit beside is ``tok2vec.py``'s.

Characters are mapped to ids without a vocabulary file, so that the layer has nothing to learn at
``initialize`` and nothing extra to serialize: see ``char_ids``.

``concatenate_token_vectors`` joins them with the tok2vec output. Thinc's own ``concatenate`` does
not fit here: its ``init`` tries to read an input width off the list of Docs (and fails on any
sublayer with an unset ``nI``, such as a ``PyTorchWrapper``), and its backward pass adds up the
sublayers' Doc "gradients" with ``+=``.
"""
from typing import Any, Callable, List, Optional, Tuple

import numpy
from spacy.attrs import POS, TAG
from spacy.ml.featureextractor import FeatureExtractor
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import (
    ArgsKwargs,
    HashEmbed,
    Model,
    PyTorchWrapper_v3,
    chain,
    torch2xp,
    with_array,
    xp2torch,
)
from thinc.types import Floats2d, Ints2d

from ..torch_bridge import thread_safe_prediction

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
