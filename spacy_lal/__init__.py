"""Label-attention constituency, dependency and semantic role parsing for spaCy."""

from .extensions import register_extensions
from .pretrained import load, pipeline_path

__all__ = ["load", "pipeline_path"]
__version__ = "0.1.0.dev0"

register_extensions()
