"""What ``lal_parser`` and ``lal_srl`` share: one skeleton for a trainable component whose model
is ``[tok2vec, torch layer]`` over units (sentences, ``units.py``).

:class:`UnitPipe` owns serialization (the torch layer is rebuilt from the saved cfg before the
weights load), pretrained adoption (``spacy-lal.Pretrained.v1``), the ``initialize`` / ``update``
/ ``predict`` skeleton and the one training step. A component subclass supplies only what is its
own: reading and storing labels, building its torch layer, the batch it passes to the model
(targets in training, decoding settings otherwise) and ``set_annotations``.
"""
import copy
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, NamedTuple, Optional, Tuple, Union

import srsly
from spacy import util
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc
from spacy.training import Example, validate_examples, validate_get_examples
from spacy.vocab import Vocab
from thinc.api import Config, Model, Optimizer, set_dropout_rate

from ..logs import logger
from ..pretrained import DEFAULT_PIPELINE
from .gold import training_sentences
from .layers.gemm import set_int8
from .layers.pretrained_model import PRETRAINED_ATTR, adopt_pretrained
from .settings import Settings
from .torch_bridge import torch_module
from .units import Unit, make_units

DEFAULT_TOK2VEC = """
[tok2vec]
@architectures = "spacy-lal.SentenceTok2Vec.v1"

[tok2vec.embed]
@architectures = "spacy.MultiHashEmbed.v2"
width = 128
attrs = ["NORM", "PREFIX", "SUFFIX", "SHAPE"]
rows = [5000, 1000, 2500, 2500]
include_static_vectors = false

[tok2vec.encode]
@architectures = "spacy.MaxoutWindowEncoder.v2"
width = 128
depth = 2
window_size = 1
maxout_pieces = 3
"""


def pretrained_model(component: str) -> Dict[str, str]:
    """A factory's default ``model``: the shipped English ``component`` (``layers/pretrained_model.py``), so
    ``nlp.add_pipe(component)`` starts from trained weights, as benepar users expect."""
    return {"@architectures": "spacy-lal.Pretrained.v1", "pipeline": DEFAULT_PIPELINE, "component": component}


def untrained_model(architecture: str) -> Config:
    """``architecture`` over the default tok2vec, with the architecture's own defaults: the
    model config that trains from scratch."""
    text = f'[model]\n@architectures = "{architecture}"\n' + DEFAULT_TOK2VEC.replace("[tok2vec", "[model.tok2vec")
    return Config().from_str(text)["model"]


def label_set(key: str, doc: str) -> property:
    """A read-only property giving the label set stored under ``cfg[key]`` as a tuple."""
    return property(lambda self: tuple(self.cfg[key]), doc=doc)


class Predictions(NamedTuple):
    """What ``predict`` returns: the units and what the model decoded for them (None when the
    Docs have no words)."""

    units: List[Unit]
    decoded: Any


class UnitPipe(TrainablePipe):
    """A ``TrainablePipe`` whose model is ``[tok2vec, torch layer]`` over units.

    The torch layer's shape depends on the labels, so it is built by :meth:`_build_torch_model`
    in ``initialize`` and, on loading, from the saved cfg before the weights are read.
    """

    # The component's settings (``settings.py``): one class per factory.
    SETTINGS: Settings = Settings()
    # How many of nlp.pipe's batches ``pipe`` predicts at once. A model that runs its units in
    # length-sorted chunks (``max_chart_cells``) pads less the more units it sorts together.
    BUCKET_BATCHES = 1
    # What the component does with the pieces of a sentence longer than max_length (the warning).
    LONG_SENTENCES = "each piece is read on its own"
    # The cfg keys that hold what training data teaches (``label_data``), with their empty values.
    LABEL_DATA: Dict[str, Any] = {}

    def __init__(
        self,
        vocab: Vocab,
        model: Model,
        name: str,
        settings: Mapping[str, Any],
        *,
        scorer: Optional[Callable] = None,
    ) -> None:
        self.vocab = vocab
        self.model = model
        self.name = name
        self.scorer = scorer
        self.cfg: Dict[str, Any] = {"nI": None}
        self.cfg.update(self.SETTINGS.check(name, settings))
        self._set_labels({})

    @property
    def runtime_settings(self) -> Tuple[str, ...]:
        """The settings whose config values win over the saved ones on load."""
        return self.SETTINGS.runtime

    def configure(self, **values: Any) -> None:
        """Change settings of the component, each checked as its factory checks it:
        ``nlp.get_pipe("lal_srl").configure(decoder="tree", sense_prior=0.25)``. A run-time
        setting takes effect at the next call; one the model was trained with (such as
        ``sense_loss``) at the next training step."""
        current = {key: self.cfg[key] for key in self.SETTINGS.defaults()}
        checked = self.SETTINGS.check(self.name, {**current, **values})
        self.cfg.update({key: checked[key] for key in values})

    @property
    def label_data(self) -> Dict[str, Any]:
        """The label sets, as ``initialize(labels=...)`` takes them."""
        return {key: copy.copy(self.cfg[key]) for key in self.LABEL_DATA}

    def _set_labels(self, labels: Dict[str, Any]) -> None:
        for key, empty in self.LABEL_DATA.items():
            self.cfg[key] = copy.copy(labels.get(key, empty))

    # What a component supplies ------------------------------------------------------------------

    def _read_labels(self, examples: Iterable[Example]) -> Dict[str, Any]:
        """The label sets of the training data, in ``label_data``'s layout."""
        raise NotImplementedError

    def _build_torch_model(self) -> None:
        """Build the torch layer for the labels and input width in ``cfg``."""
        raise NotImplementedError

    def _training_batch(self, examples: List[Example], units: List[Unit]) -> Any:
        """What the model needs besides the units to compute the loss: the targets."""
        raise NotImplementedError

    def _prediction_batch(self, docs: List[Doc], units: List[Unit], **options: Any) -> Any:
        """What the model needs besides the units to decode: the component's settings (and
        the ``options`` of :meth:`_predict`)."""
        raise NotImplementedError

    def _training_examples(self, examples: List[Example]) -> List[Example]:
        """The Examples ``update`` learns from (all by default)."""
        return examples

    # The skeleton -------------------------------------------------------------------------------

    @property
    def max_length(self) -> int:
        """The longest sentence, in words, the model reads in one piece (see ``units.py``)."""
        return int(self.model.attrs["max_length"])

    @property
    def torch_module(self) -> Any:
        """The built torch adapter (``parser_adapter.ParserAdapter``, ``srl_adapter.SrlAdapter``),
        or None before ``initialize``."""
        return torch_module(self.model)

    def add_label(self, label: str) -> int:
        raise NotImplementedError(
            f"{self.name}: labels are read from the training data by initialize(), or given "
            f"there as labels={{...}} with the keys of `label_data`: {sorted(self.label_data)}"
        )

    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]],
        *,
        nlp: Optional[Language] = None,
        labels: Optional[Dict[str, Any]] = None,
    ) -> None:
        """Read the label sets from the examples (or ``labels``, as ``label_data`` gives them)
        and build the model; a pretrained model keeps its labels and weights (training then
        fine-tunes it)."""
        validate_get_examples(get_examples, f"{self.name}.initialize")
        if self.keeps_pretrained_weights():
            return
        self._set_labels(self._read_labels(get_examples()) if labels is None else labels)
        # The tok2vec is initialized on a sample; the torch layer's input width is its output's.
        sample = [eg.x for _, eg in zip(range(10), get_examples())]
        self.model.initialize(X=(sample, make_units(sample, self.max_length), None))
        self.cfg["nI"] = self.model.layers[0].get_dim("nO")
        self._build_torch_model()

    def update(
        self,
        examples: Iterable[Example],
        *,
        drop: float = 0.0,
        sgd: Optional[Optimizer] = None,
        losses: Optional[Dict[str, float]] = None,
    ) -> Dict[str, float]:
        """One training step: the model returns the loss itself, as a float, and its backprop
        takes the loss's gradient (the losses live in torch, ``spacy_lal.nn``)."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, f"{self.name}.update")
        examples = self._training_examples(examples)
        docs = [eg.x for eg in examples]
        units = self._units(docs, [training_sentences(eg) for eg in examples])
        if not units:
            return losses
        set_dropout_rate(self.model, drop)
        loss, backprop = self.model.begin_update((docs, units, self._training_batch(examples, units)))
        backprop(1.0)
        if sgd is not None:
            self.finish_update(sgd)
        losses[self.name] += loss
        return losses

    def get_loss(self, examples: Iterable[Example], scores: Any) -> Tuple[float, Any]:
        raise NotImplementedError(f"{self.name} computes its loss inside update(), in its torch model")

    def predict(self, docs: Iterable[Doc]) -> Predictions:
        return self._predict(docs)

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        """``TrainablePipe.pipe``, predicting ``BUCKET_BATCHES`` batches at a time."""
        error_handler = self.get_error_handler()
        for docs in util.minibatch(stream, size=batch_size * self.BUCKET_BATCHES):
            try:
                self.set_annotations(docs, self.predict(docs))
                yield from docs
            except Exception as e:
                error_handler(self.name, self, docs, e)

    def _predict(self, docs: Iterable[Doc], **options: Any) -> Predictions:
        docs = list(docs)
        units = self._units(docs, piece_length=self.cfg["piece_length"])
        if not units:
            return Predictions(units, None)
        output = self.model.predict((docs, units, self._prediction_batch(docs, units, **options)))
        return Predictions(units, self._decode_output(docs, units, output))

    def _decode_output(self, docs: List[Doc], units: List[Unit], output: Any) -> Any:
        """What ``set_annotations`` reads, from the model's output (by default the output)."""
        return output

    def _units(
        self, docs: List[Doc], sentences: Optional[List[List[range]]] = None, *, piece_length: Optional[int] = None
    ) -> List[Unit]:
        """The units of ``docs``: pieces of at most ``max_length`` words, or of ``piece_length``
        when that is shorter (prediction: training reads whole sentences up to ``max_length``)."""
        length = self.max_length if piece_length is None else min(self.max_length, piece_length)
        return make_units(docs, length, sentences, component=self.name, pieces=self.LONG_SENTENCES)

    def set_int8(self, enabled: bool) -> None:
        """Predict with int8 products on CPU (or float32): here the layers of the model's own
        tok2vec copy, if it has one (``layers/gemm.py``); ``spacy_lal.quantize`` calls it."""
        set_int8(self.model, enabled)

    # Pretrained weights -------------------------------------------------------------------------

    def adopt_pretrained(self, factory: str) -> bool:
        """Take labels and shapes from a pretrained model, keeping the run-time settings the
        factory was given; returns whether the model is pretrained."""
        settings = {key: self.cfg[key] for key in self.runtime_settings}
        return adopt_pretrained(self.name, factory, self.model, self.cfg, settings, self.vocab)

    def keeps_pretrained_weights(self) -> bool:
        """Whether ``initialize`` must leave the model alone: its weights are pretrained."""
        info = self.model.attrs.get(PRETRAINED_ATTR)
        if info is not None:
            logger.info(
                "%s: keeping the pretrained weights of %s (%r); training fine-tunes them. "
                "Give the component a model config of its own to train from scratch.",
                self.name, info["component"], info["pipeline"],
            )
        return info is not None

    # Serialization ------------------------------------------------------------------------------

    def _load_cfg(self, saved: Dict[str, Any]) -> None:
        settings = {key: self.cfg[key] for key in self.runtime_settings}
        self.cfg.update(saved)
        self.cfg.update(settings)

    def _load_model(self, data: bytes) -> None:
        # Attrs built as settings.ConfigSetting keep their config values as the weights load.
        self._build_torch_model()
        self.model.from_bytes(data)

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "UnitPipe":
        deserialize = {
            "cfg": lambda b: self._load_cfg(srsly.json_loads(b)),
            "vocab": lambda b: self.vocab.from_bytes(b, exclude=exclude),
            "model": self._load_model,
        }
        util.from_bytes(bytes_data, deserialize, exclude)
        self._loaded()
        return self

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> "UnitPipe":
        def load_model(p: Path) -> None:
            with open(p, "rb") as file_:
                self._load_model(file_.read())

        deserialize = {
            "cfg": lambda p: self._load_cfg(srsly.read_json(p)),
            "vocab": lambda p: self.vocab.from_disk(p, exclude=exclude),
            "model": load_model,
        }
        util.from_disk(path, deserialize, exclude)
        self._loaded()
        return self

    def _loaded(self) -> None:
        """Called after ``from_disk``/``from_bytes``, with the saved labels and model in place."""
