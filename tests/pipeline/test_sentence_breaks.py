"""lal_sentence_breaks, after a sentence splitter: blank lines end sentences, none starts on
whitespace."""
import pytest
import spacy
from spacy.tokens import Doc

import spacy_lal  # noqa: F401  (the factory)


@pytest.fixture(scope="module")
def with_splitter():
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")  # a stand-in for the trained senter
    nlp.add_pipe("lal_sentence_breaks")
    return nlp


@pytest.mark.parametrize(
    "text, sentences",
    [
        ("Great food cheap\n\nEvery thing here is good", ["Great food cheap", "Every thing here is good"]),
        ("Great food cheap \n \n Every thing", ["Great food cheap", "Every thing"]),
        ("Title\n\n\nBody here. More.", ["Title", "Body here.", "More."]),
        ("hard wrapped\nline of one sentence.", ["hard wrapped\nline of one sentence."]),
        ("\n\nLeading blank lines.", ["Leading blank lines."]),
    ],
)
def test_blank_lines_end_sentences(with_splitter, text, sentences):
    doc = with_splitter(text)
    assert [s.text.strip() for s in doc.sents if s.text.strip()] == sentences


def test_a_sentence_start_on_whitespace_moves_to_the_next_word():
    nlp = spacy.blank("en")
    component = nlp.add_pipe("lal_sentence_breaks")
    doc = Doc(nlp.vocab, words=["Paris", ".", "  ", "She", "left"], spaces=[False, False, False, True, False],
              sent_starts=[True, False, True, False, False])
    assert [t.is_sent_start for t in component(doc)] == [True, False, False, True, False]
    assert [s.text for s in doc.sents] == ["Paris.  ", "She left"]


def test_given_sentences_without_breaks_are_kept_and_a_parsed_doc_is_left_alone():
    nlp = spacy.blank("en")
    component = nlp.add_pipe("lal_sentence_breaks")
    doc = Doc(nlp.vocab, words=["a", "b", "c"], sent_starts=[True, False, True])
    assert [t.is_sent_start for t in component(doc)] == [True, False, True]
    parsed = Doc(nlp.vocab, words=["a", "\n\n", "b"], spaces=[False] * 3, heads=[0, 0, 0], deps=["ROOT", "dep", "dep"])
    assert [t.is_sent_start for t in component(parsed)] == [t.is_sent_start for t in parsed]
