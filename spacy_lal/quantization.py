"""int8 prediction on CPU for a whole pipeline: ``spacy_lal.quantize(nlp)``.

One call, each component answering for itself (``UnitPipe.set_int8``): every tok2vec on
``pipeline/layers/gemm.py:TorchGemmOps`` (the shipped ones, and the private copies that
pretrained ``lal_parser``/``lal_srl`` components carry) multiplies its prediction products with
int8 weights, and ``lal_parser``/``lal_dependency_parser`` also decode with an int8 copy of their
wider Linear layers (their ``quantize`` setting); both quantize each input row
with its own scale (``nn/int8.py``), so a sentence's parse does not depend on its batch. Training
is never quantized. What it costs in accuracy and buys in speed: docs/speed.md, "int8 prediction".

Both are CPU paths: a pipeline loaded on a GPU (``spacy.require_gpu()`` before ``spacy.load``) is
left in float32, with a warning.
"""
from typing import Any, Dict, List, Tuple

from spacy.language import Language

from .logs import logger
from .pipeline.layers.gemm import set_int8

__all__ = ["quantize", "runs_on_gpu", "int8_settings"]

INT8_TOK2VEC = "spacy-lal.SentenceTok2Vec.v1"  # the tok2vec architecture with an ``int8`` setting
INT8_COMPONENTS = ("lal_parser", "lal_dependency_parser")  # factories with a ``quantize`` setting


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


def runs_on_gpu(nlp: Language) -> bool:
    """Whether any of ``nlp``'s trainable components keeps its arrays on a GPU (Thinc's CupyOps)."""
    return any(
        layer.ops.device_type == "gpu"
        for _, component in nlp.components
        for layer in (component.model.walk() if hasattr(getattr(component, "model", None), "walk") else ())
    )


def int8_settings(config: Dict[str, Any], enabled: bool = True) -> List[Tuple[str, bool]]:
    """The config settings that make a saved pipeline predict as ``quantize(nlp, enabled)``
    leaves it, as ``(dotted path, value)`` pairs: every ``spacy-lal.SentenceTok2Vec.v1``'s
    ``int8`` and the parsers' ``quantize``. The shipped pipelines are saved with them on;
    ``spacy.load(..., config={path: False ...})`` or ``quantize(nlp, False)`` turns them off."""
    settings = []

    def walk(block: Dict[str, Any], path: str) -> None:
        if block.get("@architectures") == INT8_TOK2VEC:
            settings.append((f"{path}.int8", enabled))
        for key, value in block.items():
            if isinstance(value, dict):
                walk(value, f"{path}.{key}")

    for name, block in config.get("components", {}).items():
        if block.get("factory") in INT8_COMPONENTS:
            settings.append((f"components.{name}.quantize", enabled))
        walk(block, f"components.{name}")
    return settings
