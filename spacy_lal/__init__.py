"""Label-attention constituency, dependency and semantic role parsing for spaCy."""
from typing import Any

from .doc.api import NonConstituentException, NotAConstituentError, register_extensions

__all__ = [
    "load", "pipeline_path", "shipped_pipelines", "parse_with_constraints", "mark_predicates", "quantize",
    "calibrate_int8", "NotAConstituentError", "NonConstituentException",
]
__version__ = "0.1.0.dev0"

register_extensions()


def __getattr__(name: str) -> Any:
    # `spacy_lal.load` / `spacy_lal.pipeline_path` without importing the pipeline machinery
    # on `import spacy_lal` (which spaCy does for every entry point of ours).
    if name == "parse_with_constraints":
        from .pipeline.parser.component import parse_with_constraints

        return parse_with_constraints
    if name == "mark_predicates":
        from .pipeline.srl.predicate_marking import mark_predicates

        return mark_predicates
    if name in ("quantize", "calibrate_int8"):
        from . import quantization

        return getattr(quantization, name)
    if name in __all__:
        from . import pretrained

        return getattr(pretrained, name)
    raise AttributeError(f"module 'spacy_lal' has no attribute {name!r}")
