"""spacy_lal.evaluation.evaluate_raw_text: raw text in, CoNLL 2018 scores, roles and trees out.

A "pipeline" whose tokenizer hands back the gold document itself (words, sentences, tags, heads,
frames, trees) must score 100 everywhere: that tests the plumbing (documents, CoNLL-U export
with multi-word tokens, character alignment, sentence offsets for roles and trees) apart from any
model. A pipeline that splits sentences differently must lose Sentences and the trees of the
sentences it changed, and keep what it did not touch.
"""
from pathlib import Path

import pytest
import spacy
from spacy.language import Language
from spacy.tokens import Doc, DocBin

from spacy_lal.corpora import read_conllu, read_raw_documents, read_ud_documents
from spacy_lal.corpora.documents import RAW_TEXT_LAYOUTS
from spacy_lal.doc.extensions import set_frames, set_tree
from spacy_lal.doc.frames import FrameData
from spacy_lal.doc.tree import Tree
from spacy_lal.evaluation import evaluate_raw_text

SAMPLE = Path(__file__).parent / "data" / "corpora" / "sample.conllu"


def gold_sentences(vocab):
    """The sample's sentences with a flat tree and a frame on their first verb."""
    docs = []
    for doc in read_conllu(SAMPLE, vocab):
        tree = Tree.from_spans([t.text for t in doc], [t.tag_ for t in doc], [(0, len(doc), ("S",))])
        set_tree(doc[:], tree.to_spans())
        verbs = [t.i for t in doc if t.pos_ == "VERB"]
        if verbs:
            set_frames(doc, [FrameData(verbs[0], "x.01", ((0, 1, "ARG0"),) if verbs[0] > 0 else ())])
        docs.append(doc)
    return docs


@pytest.fixture
def gold_corpus(tmp_path, nlp):
    path = tmp_path / "gold.spacy"
    DocBin(store_user_data=True, docs=gold_sentences(nlp.vocab)).to_disk(path)
    return path


def oracle(nlp, split_first=False):
    """A pipeline whose tokenizer returns the gold document of a text (its sentences joined as
    ``read_ud_documents`` joins them: ``layout="joined"``); ``split_first`` cuts the first
    sentence in two (each half its own parse, no tree or frame)."""
    sentences = gold_sentences(nlp.vocab)
    if split_first:
        first = sentences[0]
        sentences[:1] = [first[:3].as_doc(), first[3:].as_doc()]
        sentences[0].user_data["doc_id"] = first.user_data["doc_id"]
        sentences[1].user_data["doc_id"] = first.user_data["doc_id"]
    by_doc = {}
    for doc in sentences:
        by_doc.setdefault(doc.user_data["doc_id"], []).append(doc)
    documents = {}
    for docs in by_doc.values():
        copies = [d.copy() for d in docs]
        for copy in copies:  # keep the extension values only: Doc.from_docs drops string keys
            for key in [k for k in copy.user_data if isinstance(k, str)]:
                del copy.user_data[key]
        merged = Doc.from_docs(copies, ensure_whitespace=True)
        documents[merged.text] = merged
    blank = spacy.blank("en")
    blank.tokenizer = lambda text: documents[text].copy()
    return blank


def test_the_gold_documents_score_100_everywhere(nlp, gold_corpus):
    assert [d.text for d in read_ud_documents(SAMPLE, nlp)]  # the sample has documents
    scores = evaluate_raw_text(oracle(nlp), SAMPLE, gold_corpus=gold_corpus, layout="joined")
    for key in ("ud_tokens", "ud_sentences", "ud_words", "ud_upos", "ud_xpos", "ud_lemmas", "ud_uas", "ud_las",
                "srl_f", "tree_f"):
        assert scores[key] == 100.0, key
    assert scores["tree_sentences"] == len(gold_sentences(nlp.vocab))


def test_other_sentence_boundaries_cost_sentences_and_those_trees(nlp, gold_corpus, tmp_path):
    system = tmp_path / "system.conllu"
    scores = evaluate_raw_text(oracle(nlp, split_first=True), SAMPLE, gold_corpus=gold_corpus, system_conllu=system,
                               layout="joined")
    n = len(gold_sentences(nlp.vocab))
    assert scores["ud_tokens"] == 100.0 and scores["ud_words"] == 100.0
    assert scores["ud_sentences"] < 100.0
    assert scores["tree_sentences"] == n - 1  # the cut sentence's words are no gold sentence's
    assert system.read_text(encoding="utf8").count("# sent_id") == n + 1


LAYOUT = Path(__file__).parent / "data" / "conll18" / "layout.conllu"


@Language.component("test_evaluation_layout_oracle")
def layout_oracle(doc: Doc) -> Doc:
    """Sentences and heads of layout.conllu's gold: a sentence starts at each gold sentence's first
    character (of the document whose text the Doc has), its first word is the root and heads the
    others, as the fixture's gold does."""
    raw = {raw.text: raw for layout in RAW_TEXT_LAYOUTS for raw in read_raw_documents(LAYOUT, layout)}[doc.text]
    starts = {offsets[0][0] for offsets in raw.word_offsets}
    heads, deps, root = [], [], 0
    for token in doc:  # whitespace goes with the sentence before it
        if not token.is_space and token.idx in starts:
            root = token.i
        heads.append(root)
        deps.append("root" if token.i == root else "dep")
    return Doc(doc.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc],
               heads=heads, deps=deps)


def test_conll18_layout_paragraphs_and_wrapped_lines_score_right(nlp):
    """The shared task's text (blank lines, wrapped lines, glued sentences): a pipeline that
    tokenizes it and puts the gold sentences and heads where the gold says scores 100; its
    whitespace tokens are no words."""
    pipeline = spacy.blank("en", config={"nlp": {"tokenizer": {"@tokenizers": "spacy-lal.EWTTokenizer.v1"}}})
    pipeline.add_pipe("test_evaluation_layout_oracle")
    texts = [raw.text for raw in read_raw_documents(LAYOUT)]
    assert any(t.is_space for t in pipeline(texts[0]))  # the layout does give whitespace tokens
    scores = evaluate_raw_text(pipeline, LAYOUT)
    assert scores["layout"] == "conll18"
    for key in ("ud_tokens", "ud_sentences", "ud_words", "ud_uas", "ud_las"):
        assert scores[key] == 100.0, key
    joined = evaluate_raw_text(pipeline, LAYOUT, layout="joined")
    assert joined["layout"] == "joined" and joined["ud_sentences"] == 100.0
