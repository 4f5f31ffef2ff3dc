"""Long sentences at prediction: pieces of at most ``piece_length`` words, time linear beyond it.

Uses the tiny pipelines of ``tests/data/saved_pipelines`` (no training here). The time bar itself
(1,000 unpunctuated words at most 3x the time per word of punctuated text) is measured by
``benchmarks/long_input.py``, not asserted in a test.
"""
import logging
from pathlib import Path

import pytest
import spacy
from hypothesis import given
from hypothesis import strategies as st
from spacy.tokens import Doc

from spacy_lal.pipeline.units import make_units, piece_bounds

SAVED = Path(__file__).parents[1] / "data" / "saved_pipelines"
WORDS = "the cat sat on the mat and the dog sat on the rug while it rained".split()


@given(st.integers(1, 3000), st.integers(1, 200))
def test_pieces_are_few_equal_and_within_the_length(n_words, max_length):
    bounds = piece_bounds(n_words, max_length)
    sizes = [b - a for a, b in zip(bounds, bounds[1:])]
    assert bounds[0] == 0 and bounds[-1] == n_words
    assert max(sizes) <= max_length
    assert len(sizes) == -(-n_words // max_length)  # no more pieces than needed
    assert max(sizes) - min(sizes) <= 1  # no stub at the end


def test_pieces_tile_the_sentence_with_its_whitespace(nlp):
    doc = Doc(nlp.vocab, words=["a", "b", "  ", "c", "d", "e"], spaces=[True, False, False, True, True, False])
    units = make_units([doc], 2)
    assert [list(u.words) for u in units] == [[0, 1], [3, 4], [5]]
    assert units[0].start == 0 and units[-1].end == len(doc)
    assert all(a.end == b.start for a, b in zip(units, units[1:]))


@pytest.fixture(scope="module")
def pipeline():
    return spacy.load(SAVED / "lal_parser_srl", config={"components": {"lal_parser": {"piece_length": 4},
                                                                        "lal_srl": {"piece_length": 4}}})


def test_a_long_sentence_is_parsed_in_pieces_with_one_warning(pipeline, caplog):
    text = " ".join(WORDS)
    with caplog.at_level(logging.WARNING, logger="spacy_lal"):
        doc = pipeline(text)
    parser_warnings = [r for r in caplog.records if r.getMessage().startswith("lal_parser:")]
    assert len(parser_warnings) == 1
    assert "longer than 4 words" in parser_warnings[0].getMessage()
    # One sentence, one tree over every word, one root.
    assert len(doc._.trees) == 1 and len(doc._.trees[0]) == len(WORDS)
    assert sum(1 for t in doc if t.head.i == t.i) == 1
    units = pipeline.get_pipe("lal_parser")._units([doc], piece_length=4)
    assert max(len(u) for u in units) <= 4 and len(units) == -(-len(WORDS) // 4)


def test_training_reads_whole_sentences(pipeline):
    parser = pipeline.get_pipe("lal_parser")
    doc = Doc(pipeline.vocab, words=WORDS)
    assert len(parser._units([doc], [[range(0, len(WORDS))]])) == 1


def test_piece_length_comes_from_the_config_and_is_checked():
    default = spacy.load(SAVED / "lal_parser_srl")
    assert default.get_pipe("lal_parser").cfg["piece_length"] == 100
    with pytest.raises(ValueError, match="piece_length must be a positive number of words"):
        spacy.load(SAVED / "lal_parser_srl", config={"components": {"lal_parser": {"piece_length": 0}}})
