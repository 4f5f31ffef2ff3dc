"""spaCy's tagger model with its products on torch, for the tagger, morphologizer and
lemmatizer of our pipelines."""
from typing import List, Optional

from spacy.ml.models.tagger import build_tagger_model
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model
from thinc.types import Floats2d

from .gemm import use_torch_gemm

__all__ = ["build_tagger"]


@registry.architectures("spacy-lal.Tagger.v1")
def build_tagger(
    tok2vec: Model[List[Doc], List[Floats2d]], nO: Optional[int] = None, normalize: bool = False
) -> Model[List[Doc], List[Floats2d]]:
    """``spacy.Tagger.v2`` (the same layers, so the same weights load) whose products run on
    torch (``gemm.TorchGemmOps``) instead of BLIS: the morphologizer's ``(tokens x 192) x (192 x
    321)`` product, 3% of the shipped parser pipeline's time, becomes 2.8x faster. Under
    ``spacy_lal.quantize`` it stays in floating point (its products are not those of a tok2vec's
    prediction)."""
    return use_torch_gemm(build_tagger_model(tok2vec, nO=nO, normalize=normalize))
