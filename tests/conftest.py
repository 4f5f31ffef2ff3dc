"""Shared fixtures."""

import pytest
import spacy
from spacy.language import Language


@pytest.fixture(scope="session")
def nlp() -> Language:
    """A blank English pipeline (tokenizer only)."""
    return spacy.blank("en")


@pytest.fixture(scope="module")
def one_torch_thread():
    """For modules of tiny tensors (use with ``pytestmark = pytest.mark.usefixtures(...)``):
    intra-op threads only cost synchronisation there, 10x slower steps on a loaded 2-core machine."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
