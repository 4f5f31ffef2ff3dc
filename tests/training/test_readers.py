"""spacy-lal.Corpus.v1: sentence Docs keep their trees; the Docs are read from disk once.
spacy-lal.MixedCorpus.v1: gold, then a share of silver shards."""
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc, DocBin
from spacy.util import registry

import spacy_lal  # noqa: F401  (extensions)
from spacy_lal.doc.extensions import set_tree, stored_trees
from spacy_lal.corpora.share import fixed_share


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
    # Each sentence Doc has its own tree (the root S added to the spans set), from its first token.
    tree = (0, 3, [(0, 3, ("S",)), (0, 1, ("NP",)), (1, 2, ("VP",))])
    assert [list(stored_trees(eg.reference)) for eg in examples] == [[tree], [tree], []]


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


def _silver_shards(folder: Path) -> Path:
    """Two parse-corpus-like shards of two-sentence documents, each word naming its document."""
    nlp = spacy.blank("en")
    folder.mkdir()
    for shard, first in (("shard-00001.spacy", 0), ("shard-00000.spacy", 4)):  # written out of order
        docs = []
        for k in range(first, first + 4):
            doc = Doc(nlp.vocab, words=[f"s{k}", "ran", ".", f"s{k}", "sat", "."],
                      sent_starts=[True, False, False, True, False, False])
            set_tree(doc[0:3], [(0, 1, ["NP"]), (1, 2, ["VP"])])
            docs.append(doc)
        DocBin(docs=docs, store_user_data=True).to_disk(folder / shard)
    return folder


def _silver_docs_read(corpus: Path, silver: Path, fraction: float):
    reader = registry.resolve({"r": {"@readers": "spacy-lal.MixedCorpus.v1", "gold": str(corpus),
                                     "silver": str(silver), "silver_fraction": fraction}})["r"]
    return list(reader(spacy.blank("en")))


# The silver Docs in the order MixedCorpus takes them: the shards sorted by name (shard-00000 holds
# s4..s7, shard-00001 s0..s3), then shuffled with seed 0: random.Random(0).shuffle of eight
# items puts them in the order [4, 1, 5, 2, 0, 3, 7, 6].
SILVER_ORDER = ["s0", "s5", "s1", "s6", "s4", "s7", "s3", "s2"]


@pytest.mark.parametrize("fraction, n_silver_docs", [(0.0, 0), (0.25, 2), (0.5, 4), (1.0, 8)])
def test_mixed_corpus_takes_a_share_of_the_silver_docs(corpus: Path, tmp_path: Path, fraction, n_silver_docs):
    silver = _silver_shards(tmp_path / "silver")
    examples = _silver_docs_read(corpus, silver, fraction)
    gold = [eg for eg in examples if not eg.reference[0].text.startswith("s")]
    silver_words = [eg.reference[0].text for eg in examples if eg.reference[0].text.startswith("s")]
    assert [eg.reference.text for eg in gold] == ["Dogs bark . ", "Cats sleep . ", "Hi . "]  # the gold, first
    # Whole Docs (each gives its two sentences, "ran" then "sat"), 12 words each: a share of 48
    # words takes the first 12 * fraction of them in the fixed order.
    assert silver_words == [word for word in SILVER_ORDER[:n_silver_docs] for _ in range(2)]
    assert [eg.reference[1].text for eg in examples[3:]] == ["ran", "sat"] * n_silver_docs
    # the silver trees come along (the first sentence of each silver Doc has one, the second none)
    with_trees = [eg.reference[1].text for eg in examples if list(stored_trees(eg.reference))]
    assert with_trees.count("ran") == n_silver_docs and "sat" not in with_trees


def test_fixed_share_counts_words_and_mixes_the_sources():
    nlp = spacy.blank("en")
    # a corpus whose first Docs are long (as the movie reviews lead the silver texts)
    docs = [Doc(nlp.vocab, words=["long"] * 50) for _ in range(4)] + [Doc(nlp.vocab, words=["short"] * 5) for _ in range(40)]
    total = sum(map(len, docs))
    for fraction in (0.25, 0.5):
        share = fixed_share(docs, fraction)
        words = sum(map(len, share))
        assert fraction * total <= words < fraction * total + 50  # whole Docs, just past the share
        assert {doc[0].text for doc in share} == {"long", "short"}
    assert fixed_share(docs, 0.25) == fixed_share(docs, 0.5)[: len(fixed_share(docs, 0.25))]
    assert fixed_share(docs, 0.0) == [] and len(fixed_share(docs, 1.0)) == len(docs)
    with pytest.raises(ValueError, match="between 0 and 1"):
        fixed_share(docs, 1.5)


def test_fixed_share_takes_whole_items_in_the_seeded_order():
    # Items of 1, 2, 3, 4 and 10 words (20 in all); random.Random(0).shuffle of five items gives
    # the order [2, 1, 0, 4, 3]: 3, 2, 1, 10 and 4 words.
    items = [["w"] * n for n in (1, 2, 3, 4, 10)]
    assert fixed_share(items, 0.05) == [items[2]]  # 1 word wanted: the first item reaches it
    assert fixed_share(items, 0.25) == [items[2], items[1]]  # 5 words: 3 + 2
    assert fixed_share(items, 0.3) == [items[2], items[1], items[0]]  # 6 words: 3 + 2 + 1
    assert fixed_share(items, 0.5) == [items[2], items[1], items[0], items[4]]  # 10 words: past it, 16
    assert fixed_share(items, 1.0) == [items[2], items[1], items[0], items[4], items[3]]
    assert fixed_share(["a", "bcd", "ef"], 0.5, length=len) == ["a", "ef"]  # order [0, 2, 1]: 1 + 2 of 6


def test_mixed_corpus_repeats_the_gold(corpus: Path, tmp_path: Path):
    silver = _silver_shards(tmp_path / "silver")
    reader = registry.resolve({"r": {"@readers": "spacy-lal.MixedCorpus.v1", "gold": str(corpus),
                                     "silver": str(silver), "silver_fraction": 0.25, "gold_copies": 3}})["r"]
    texts = [eg.reference.text for eg in reader(spacy.blank("en"))]
    gold = [t for t in texts if not t.startswith("s")]
    assert len(gold) == 9 and gold[:3] == gold[3:6] == gold[6:]  # the three gold sentences, three times
    assert len(texts) - len(gold) == 4  # the silver share is not repeated


def test_mixed_corpus_errors_are_clear(corpus: Path, tmp_path: Path):
    def resolve(**settings):
        return registry.resolve({"r": {"@readers": "spacy-lal.MixedCorpus.v1", "gold": str(corpus), **settings}})["r"]

    with pytest.raises(ValueError, match="silver_fraction"):
        resolve(silver=str(corpus), silver_fraction=1.5)
    with pytest.raises(ValueError, match="gold_copies"):
        resolve(gold_copies=0)
    with pytest.raises(ValueError, match="no silver corpus at"):
        resolve(silver=str(tmp_path / "missing"))
    assert len(list(resolve()(spacy.blank("en")))) == 3  # no silver: the gold corpus alone
