"""int8 prediction on CPU for a whole pipeline: ``spacy_lal.quantize(nlp)``.

One call, each component answering for itself (``UnitPipe.set_int8``): every tok2vec on
``pipeline/layers/gemm.py:TorchGemmOps`` (the shipped ones, and the private copies that
pretrained ``lal_parser``/``lal_srl`` components carry) multiplies its prediction products with
int8 weights (but the sentence splitter's, which stays float: it cost sentence F1), and
``lal_parser``/``lal_dependency_parser`` also decode with an int8 copy of their wider Linear
layers (their ``quantize`` setting); both quantize each input row
with its own scale (``nn/int8.py``), so a sentence's parse does not depend on its batch. Training
is never quantized. What it costs in accuracy and buys in speed: docs/speed.md, "int8 prediction".

``spacy_lal.calibrate_int8(nlp, docs)`` measures, on text the components did not score on
(the packaging script gives it training sentences), the inputs of the parsers' Linear layers and
saves the peaks with them: their int8 copies are then smoothed (SmoothQuant) and take the narrow
layers too (docs/speed.md, "Smoothed int8"). The shipped pipelines are calibrated.

Both are CPU paths: a pipeline loaded on a GPU (``spacy.require_gpu()`` before ``spacy.load``) is
left in float32, with a warning.
"""
import inspect
from importlib.metadata import entry_points
from typing import Any, Dict, Iterable, List, Tuple

from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import registry

from .logs import logger
from .pipeline.layers.gemm import set_int8

__all__ = ["quantize", "calibrate_int8", "runs_on_gpu", "int8_settings"]


def quantize(nlp: Language, enabled: bool = True) -> Language:
    """Turn int8 prediction on (or off, ``enabled=False``) for ``nlp``'s components; returns ``nlp``.

    Not saved with the pipeline: call it after ``spacy.load``. On a GPU it does nothing but warn.
    """
    if enabled and runs_on_gpu(nlp):
        logger.warning(
            "spacy_lal.quantize: int8 prediction runs on CPUs only, and this pipeline is on a GPU: "
            "it stays in float32 (load it without spacy.require_gpu() to quantize it)"
        )
        return nlp
    for _, component in nlp.components:
        if hasattr(component, "set_int8"):  # lal_parser, lal_srl, ...: each answers for itself
            component.set_int8(enabled)
            continue
        model = getattr(component, "model", None)
        if hasattr(model, "walk"):  # spaCy's tok2vec, tagger, ...: their layers' products
            set_int8(model, enabled)
    return nlp


def calibrate_int8(nlp: Language, docs: Iterable[Doc], batch_size: int = 64) -> List[str]:
    """Measure the input peaks of every component that smooths its int8 copy with them
    (``measure_int8_peaks``: ``lal_parser``, ``lal_dependency_parser``) by running ``nlp`` over
    copies of ``docs``' words (their annotations are not read), and keep them in the components,
    saved with ``nlp.to_disk``. Returns the names of the components measured; raises ValueError
    for no Docs."""
    words = [([t.text for t in doc], [bool(t.whitespace_) for t in doc]) for doc in docs]
    if not words:
        raise ValueError("calibrate_int8: no Docs to measure on")
    names = [name for name, component in nlp.components if hasattr(component, "measure_int8_peaks")]
    for name in names:
        # Only what runs before the component feeds it; each run parses fresh copies.
        before = nlp.pipe_names[: nlp.pipe_names.index(name) + 1]
        with nlp.select_pipes(enable=before):
            nlp.get_pipe(name).measure_int8_peaks(lambda: list(nlp.pipe(
                (Doc(nlp.vocab, words=w, spaces=s) for w, s in words), batch_size=batch_size)))
    return names


def runs_on_gpu(nlp: Language) -> bool:
    """Whether any of ``nlp``'s trainable components keeps its arrays on a GPU (Thinc's CupyOps)."""
    return any(
        layer.ops.device_type == "gpu"
        for _, component in nlp.components
        for layer in (component.model.walk() if hasattr(getattr(component, "model", None), "walk") else ())
    )


def int8_settings(config: Dict[str, Any], enabled: bool = True) -> List[Tuple[str, bool]]:
    """The config settings that make a saved pipeline predict as ``quantize(nlp, enabled)``
    leaves it, as ``(dotted path, value)`` pairs: the ``int8`` argument of every architecture that
    takes one (``spacy-lal.SentenceTok2Vec.v1``) and the ``quantize`` setting of every component
    whose factory has one (``lal_parser``, ``lal_dependency_parser``), each found from what the
    registered function or factory declares, not from a list of names. The shipped pipelines are
    saved with them on; ``spacy.load(..., config={path: False ...})`` or ``quantize(nlp, False)``
    turns them off."""
    settings = []

    def walk(block: Dict[str, Any], path: str) -> None:
        if _takes_argument(block.get("@architectures"), "int8"):
            settings.append((f"{path}.int8", enabled))
        for key, value in block.items():
            if isinstance(value, dict):
                walk(value, f"{path}.{key}")

    for name, block in config.get("components", {}).items():
        if _factory_has_setting(block.get("factory"), "quantize"):
            settings.append((f"components.{name}.quantize", enabled))
        walk(block, f"components.{name}")
    return settings


def _takes_argument(architecture: Any, name: str) -> bool:
    if not isinstance(architecture, str) or architecture not in registry.architectures:
        return False
    return name in inspect.signature(registry.architectures.get(architecture)).parameters


def _factory_has_setting(factory: Any, name: str) -> bool:
    if not isinstance(factory, str):
        return False
    if not Language.has_factory(factory):
        # spaCy registers installed packages' factories when it builds a pipeline; a config read
        # before that has to load the one it names (what spacy.blank would do for all of them).
        for entry_point in entry_points(group="spacy_factories", name=factory):
            entry_point.load()
    if not Language.has_factory(factory):
        return False
    return name in Language.get_factory_meta(factory).default_config
