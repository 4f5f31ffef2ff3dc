"""spacy-lal.Corpus.v1: sentence Docs keep their trees; the Docs are read from disk once."""
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc, DocBin
from spacy.util import registry

import spacy_lal  # noqa: F401  (extensions)
from spacy_lal.extensions import set_tree, stored_trees


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    nlp = spacy.blank("en")
    doc = Doc(nlp.vocab, words=["Dogs", "bark", ".", "Cats", "sleep", "."],
              sent_starts=[True, False, False, True, False, False])
    set_tree(doc[0:3], [(0, 1, ["NP"]), (1, 2, ["VP"])])
    set_tree(doc[3:6], [(0, 1, ["NP"]), (1, 2, ["VP"])])
    path = tmp_path / "train.spacy"
    DocBin(docs=[doc, Doc(nlp.vocab, words=["Hi", "."])], store_user_data=True).to_disk(path)
    return path


def _reader(path: Path, **settings):
    return registry.resolve({"r": {"@readers": "spacy-lal.Corpus.v1", "path": str(path), **settings}})["r"]


def test_sentences_keep_their_trees(corpus: Path):
    nlp = spacy.blank("en")
    examples = list(_reader(corpus)(nlp))
    assert [[t.text for t in eg.reference] for eg in examples] == [["Dogs", "bark", "."], ["Cats", "sleep", "."],
                                                                 ["Hi", "."]]
    assert [len(list(stored_trees(eg.reference))) for eg in examples] == [1, 1, 0]


@pytest.mark.parametrize("cache", [True, False])
def test_docs_are_read_once_per_vocab_unless_told_not_to(corpus: Path, monkeypatch, cache: bool):
    reads = []
    from_disk = DocBin.from_disk

    def counting(self, path):
        reads.append(path)
        return from_disk(self, path)

    monkeypatch.setattr(DocBin, "from_disk", counting)
    reader = _reader(corpus, cache=cache)
    nlp = spacy.blank("en")
    first, second = list(reader(nlp)), list(reader(nlp))
    assert len(reads) == (1 if cache else 2)
    # Fresh Examples (training annotates the predicted Docs), the same reference Docs if cached.
    assert all(a is not b and a.predicted is not b.predicted for a, b in zip(first, second))
    assert first[2].reference.text.split() == ["Hi", "."] and (first[2].reference is second[2].reference) == cache
    list(reader(spacy.blank("en")))  # another vocab: read again
    assert len(reads) == (2 if cache else 3)
