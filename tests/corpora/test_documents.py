"""read_ud_documents / convert ud-documents: one Doc per # newdoc document, gold sentences kept."""
import pytest
from spacy.tokens import DocBin

from spacy_lal.__main__ import main as cli
from spacy_lal.corpora import read_ud_documents

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
