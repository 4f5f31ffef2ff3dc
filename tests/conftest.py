"""Shared fixtures."""

import pytest
import spacy
from spacy.language import Language


@pytest.fixture(scope="session")
def nlp() -> Language:
    """A blank English pipeline (tokenizer only)."""
    return spacy.blank("en")
