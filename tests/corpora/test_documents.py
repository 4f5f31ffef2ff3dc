"""read_ud_documents / convert ud-documents: one Doc per # newdoc document, gold sentences kept;
read_raw_documents: the CoNLL 2018 shared task's raw text, checked against UD's script."""
from pathlib import Path

import pytest
import spacy
from spacy.tokens import DocBin

from spacy_lal.__main__ import main as cli
from spacy_lal.corpora import read_ud_documents
from spacy_lal.corpora.conllu import read_ud_sentences
from spacy_lal.corpora.documents import RAW_TEXT_LAYOUTS, read_raw_documents

CONLLU = """# newdoc id = doc-a
# sent_id = doc-a-1
# text = I don't know.
1\tI\tI\tPRON\tPRP\t_\t4\tnsubj\t_\t_
2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_
2\tdo\tdo\tAUX\tVBP\t_\t4\taux\t_\t_
3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t_\t_
4\tknow\tknow\tVERB\tVB\t_\t0\troot\t_\tSpaceAfter=No
5\t.\t.\tPUNCT\t.\t_\t4\tpunct\t_\t_

# sent_id = doc-a-2
# text = Fine
1\tFine\tfine\tADJ\tJJ\t_\t0\troot\t_\t_

# newdoc id = doc-b
# sent_id = doc-b-1
# text = Hello!
1\tHello\thello\tINTJ\tUH\t_\t0\troot\t_\tSpaceAfter=No
2\t!\t!\tPUNCT\t.\t_\t1\tpunct\t_\t_

"""


@pytest.fixture
def conllu(tmp_path):
    path = tmp_path / "two.conllu"
    path.write_text(CONLLU, encoding="utf8")
    return path


def test_one_doc_per_document_with_its_sentences_joined_by_a_space(conllu, nlp):
    docs = list(read_ud_documents(conllu, nlp))
    assert [doc.user_data["doc_id"] for doc in docs] == ["doc-a", "doc-b"]
    assert [[s.text.strip() for s in doc.sents] for doc in docs] == [["I don't know.", "Fine"], ["Hello!"]]
    assert docs[0].text.startswith("I don't know. Fine")
    assert [t.text for t in docs[0]][:4] == ["I", "do", "n't", "know"]
    # Annotation comes along: heads within each sentence, tags, lemmas.
    first = docs[0]
    assert [t.dep_ for t in first] == ["nsubj", "aux", "advmod", "root", "punct", "root"]
    assert first[5].head.i == 5 and first[0].head.i == 3
    assert [t.tag_ for t in docs[1]] == ["UH", "."]


def test_convert_ud_documents_writes_them(conllu, tmp_path, nlp):
    output = tmp_path / "docs.spacy"
    assert cli(["convert", "ud-documents", str(conllu), str(output)]) == 0
    docs = list(DocBin().from_disk(output).get_docs(nlp.vocab))
    assert len(docs) == 2 and [len(list(d.sents)) for d in docs] == [2, 1]


# -- read_raw_documents: the text a raw-text evaluation gives a pipeline ----------------------------

LAYOUT = Path(__file__).resolve().parents[1] / "data" / "conll18" / "layout.conllu"


def test_conll18_text_is_conllu_to_text_pl_output():
    """Paragraphs, 80-character lines, a run longer than a line, SpaceAfter=No across sentences:
    each document's text, one after the other with a blank line, is what UD's script prints."""
    docs = list(read_raw_documents(LAYOUT))
    assert [d.doc_id for d in docs] == ["d1", "d2"]
    assert "\n".join(d.text for d in docs) == LAYOUT.with_suffix(".txt").read_text(encoding="utf8")
    assert "Thanks!John" in docs[0].text and "\n\nThanks" in docs[0].text


@pytest.mark.parametrize("layout", RAW_TEXT_LAYOUTS)
def test_word_offsets_spell_the_gold_words(layout):
    sentences = list(read_ud_sentences(LAYOUT))
    docs = list(read_raw_documents(LAYOUT, layout))
    offsets = [o for d in docs for o in d.word_offsets]
    assert [sid for d in docs for sid in d.sent_ids] == [s.sent_id for s in sentences]
    texts = [d.text for d in docs for _ in d.word_offsets]
    for sent, sent_offsets, text in zip(sentences, offsets, texts):
        assert [text[a:b] for a, b in sent_offsets] == sent.words
    assert sum(d.n_words for d in docs) == sum(len(s) for s in sentences)


def test_joined_text_is_read_ud_documents_text(nlp):
    joined = [d.text for d in read_raw_documents(LAYOUT, "joined")]
    assert [t.strip() for t in joined] == [d.text.strip() for d in read_ud_documents(LAYOUT, nlp)]
    assert "\n" not in "".join(joined) and "Thanks! John" in joined[0]


def test_unknown_layout_is_refused():
    with pytest.raises(ValueError, match="conll18, joined"):
        next(read_raw_documents(LAYOUT, "paragraphs"))


def test_conll18_docs_are_the_texts_tokens_with_gold_sentence_starts(nlp, tmp_path):
    """For a splitter to learn what it meets: the shared task's text, its whitespace tokens where
    spaCy's tokenizer makes them, a sentence starting at each gold sentence's first word."""
    raws = list(read_raw_documents(LAYOUT))
    docs = list(read_ud_documents(LAYOUT, nlp, "conll18"))
    assert [d.text for d in docs] == [r.text for r in raws] and [d.user_data["doc_id"] for d in docs] == ["d1", "d2"]
    tokenizer = spacy.blank("en", config={"nlp": {"tokenizer": {"@tokenizers": "spacy-lal.EWTTokenizer.v1"}}})
    for doc in docs:
        assert [(t.idx, t.text) for t in doc if t.is_space] == [(t.idx, t.text) for t in tokenizer(doc.text) if t.is_space]
    starts = [[doc[s.start].idx for s in doc.sents] for doc in docs]
    assert starts == [[offsets[0][0] for offsets in r.word_offsets] for r in raws]
    assert [s.text.strip() for s in docs[1].sents][0].startswith("See\nhttp://")
    output = tmp_path / "docs.spacy"
    assert cli(["convert", "ud-documents", str(LAYOUT), str(output), "--layout", "conll18"]) == 0
    assert [d.text for d in DocBin().from_disk(output).get_docs(nlp.vocab)] == [r.text for r in raws]
