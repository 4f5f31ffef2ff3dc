"""scripts/silver_propbank.py: PropBank examples parsed by a teacher (or an ensemble), the
annotated predicate's frame and the Doc's user data kept."""
import json
import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc, DocBin

import spacy_lal  # noqa: F401  (extensions)
from spacy_lal.doc.extensions import PARTIAL_SRL, set_frames, set_trees
from spacy_lal.doc.frames import FrameData
from spacy_lal.pretrained import shipped_pipelines

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import silver_propbank  # noqa: E402


@pytest.mark.skipif("en_lal_ewt" not in shipped_pipelines(), reason="the shipped pipeline is not built yet")
@pytest.mark.parametrize("ensemble", [[], ["en_lal_ewt"]])
def test_examples_get_the_teachers_parse_and_keep_their_gold_frame(tmp_path, ensemble):
    vocab = spacy.blank("en").vocab
    examples = [("John gave up smoking last year .", FrameData(1, "give_up.04", ((0, 1, "ARG0"), (2, 3, "C-V"), (3, 4, "ARG1"), (4, 6, "ARGM-TMP")))),
                ("Water the plants every morning .", FrameData(0, "water.01", ((1, 3, "ARG1"), (3, 5, "ARGM-TMP"))))]
    source = DocBin(store_user_data=True)
    for n, (text, frame) in enumerate(examples):
        doc = Doc(vocab, words=text.split())
        set_frames(doc, [frame])
        doc.user_data.update({PARTIAL_SRL: True, "sent_id": f"x.xml#{frame.sense}#{n}"})
        source.add(doc)
    source.to_disk(tmp_path / "examples.spacy")
    (tmp_path / "examples.card.json").write_text(json.dumps({"license": "CC BY-SA 4.0"}))
    out = tmp_path / "silver.spacy"
    argv = [str(tmp_path / "examples.spacy"), str(out), "--teacher", "en_lal_ewt"]
    assert silver_propbank.main(argv + (["--ensemble", *ensemble] if ensemble else [])) == 0
    docs = list(DocBin().from_disk(out).get_docs(vocab))
    assert [d.text for d in docs] == [Doc(vocab, words=t.split()).text for t, _ in examples]
    for doc, (_, frame) in zip(docs, examples):
        assert doc._.tree is not None and doc._.tree.words() == [t.text for t in doc]  # the teacher's tree
        assert all(t.tag_ and t.pos_ and t.dep_ for t in doc) and sum(t.dep_ == "root" for t in doc) == 1
        assert [f.data for f in doc._.srl] == [frame]  # the gold frame alone, not the teacher's
        assert doc.user_data[PARTIAL_SRL] is True and doc.user_data["sent_id"].startswith("x.xml#")
    card = json.loads(out.with_suffix(".card.json").read_text())
    assert card["license"] == "CC BY-SA 4.0" and card["silver"]["teachers"] == ["en_lal_ewt", *ensemble]


def _accompanied(pan_head: int, predicate_tag: str = "VBD") -> Doc:
    words = "John accompanied the travellers from the pan .".split()
    heads = [1, 1, 3, 1, 6, 6, pan_head, 1]
    deps = ["nsubj", "root", "det", "obj", "case", "det", "nmod" if pan_head == 3 else "obl", "punct"]
    tags = ["NNP", predicate_tag, "DT", "NNS", "IN", "DT", "NN", "."]
    doc = Doc(spacy.blank("en").vocab, words=words, heads=heads, deps=deps, tags=tags,
              lemmas=["John", "accompany", "the", "traveller", "from", "the", "pan", "."])
    set_frames(doc, [FrameData(1, "accompany.01", ((0, 1, "ARG0"), (2, 4, "ARG1"), (4, 7, "ARG3")))])
    return doc


def test_an_argument_hung_inside_the_frames_arg1_is_a_disagreement():
    assert silver_propbank.disagreeing_arguments(_accompanied(pan_head=3)) == [(4, 7, "ARG3")]
    assert silver_propbank.disagreeing_arguments(_accompanied(pan_head=1)) == []
    # a nominal predicate's arguments sit inside its noun phrase: not read as disagreements
    assert silver_propbank.disagreeing_arguments(_accompanied(pan_head=3, predicate_tag="NN")) == []


def test_without_parse_keeps_words_tags_and_lemmas_and_gives_no_arc_targets():
    doc = _accompanied(pan_head=3)
    bare = silver_propbank.without_parse(doc)
    assert [t.text for t in bare] == [t.text for t in doc] and bare.text == doc.text
    assert [t.tag_ for t in bare] == [t.tag_ for t in doc] and [t.lemma_ for t in bare] == [t.lemma_ for t in doc]
    assert not bare.has_annotation("DEP") and bare._.tree is None
    assert len(list(bare.sents)) == 1


def _borrowed(library_dep: str = "nmod", predicate_dep: str = "root") -> Doc:
    """The README's sentence as a teacher misparses it: *from the library* inside the object."""
    words = "Mary borrowed a book from the library last week .".split()
    heads = [1, 1, 3, 1, 6, 6, 3, 8, 1, 1]
    deps = ["nsubj", predicate_dep, "det", "obj", "case", "det", library_dep, "amod", "obl:unmarked", "punct"]
    tags = ["NNP", "VBD", "DT", "NN", "IN", "DT", "NN", "JJ", "NN", "."]
    doc = Doc(spacy.blank("en").vocab, words=words, heads=heads, deps=deps, tags=tags)
    set_trees(doc, [(doc[:], [(0, 10, ("S",)), (0, 1, ("NP",)), (1, 9, ("VP",)), (2, 7, ("NP",)), (2, 4, ("NP",)),
                              (4, 7, ("PP",)), (5, 7, ("NP",)), (7, 9, ("NP",))])])
    set_frames(doc, [FrameData(1, "borrow.01", ((0, 1, "ARG0"), (2, 4, "ARG1"), (4, 7, "ARG2"), (7, 9, "ARGM-TMP")))])
    return doc


def test_repair_moves_the_argument_to_its_verb_in_the_tree_and_the_dependencies():
    doc = _borrowed()
    assert silver_propbank.disagreeing_arguments(doc) == [(4, 7, "ARG2")]
    repaired = silver_propbank.repair_disagreeing(doc)
    assert [t.text for t in repaired] == [t.text for t in doc] and [t.tag_ for t in repaired] == [t.tag_ for t in doc]
    assert repaired[6].head.i == 1 and repaired[6].dep_ == "obl"  # nmod under the noun, obl under the verb
    assert [t.head.i for t in repaired if t.i != 6] == [t.head.i for t in doc if t.i != 6]
    assert repaired._.tree.to_string() == ("(S (NP (NNP Mary)) (VP (VBD borrowed) (NP (DT a) (NN book)) "
                                    "(PP (IN from) (NP (DT the) (NN library))) (NP (JJ last) (NN week))) (. .))")
    set_frames(repaired, [frame.data for frame in doc._.srl])
    assert silver_propbank.disagreeing_arguments(repaired) == []


def test_a_flat_noun_phrase_is_cut_back_to_the_arg1():
    doc = _borrowed()
    set_trees(doc, [(doc[:], [(0, 1, ("NP",)), (1, 9, ("VP",)), (2, 7, ("NP",)), (4, 7, ("PP",)), (5, 7, ("NP",)),
                              (7, 9, ("NP",))])])
    repaired = silver_propbank.repair_disagreeing(doc)
    inside = [(s.start, s.end, s._.labels) for s in repaired[:]._.constituents if 2 <= s.start and s.end <= 7]
    assert [span for span in inside if span[1] - span[0] > 1] == [(2, 4, ("NP",)), (4, 7, ("PP",)), (5, 7, ("NP",))]


@pytest.mark.parametrize("library_dep, predicate_dep", [("conj", "root"), ("nmod", "amod")])
def test_repair_gives_up_where_the_teachers_parse_is_wrong_beyond_the_attachment(library_dep, predicate_dep):
    assert silver_propbank.repair_disagreeing(_borrowed(library_dep, predicate_dep)) is None


def test_drop_and_repair_exclude_each_other(tmp_path):
    with pytest.raises(SystemExit):
        silver_propbank.main([str(tmp_path / "a.spacy"), str(tmp_path / "b.spacy"), "--teacher", "en_lal_ewt",
                              "--drop-disagreeing", "--repair-disagreeing"])
