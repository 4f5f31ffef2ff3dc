"""Corpus readers, the EWT join and the exports (spacy_lal.corpora, cli convert/export)."""
from __future__ import annotations

import random
from pathlib import Path
from typing import List

import pytest
import spacy
from spacy.tokens import Doc, DocBin
from spacy.training import Example

import spacy_lal  # noqa: F401  (extensions)
from spacy_lal.__main__ import main as cli
from spacy_lal.corpora import (
    CorpusFormatError,
    join_ewt_split,
    read_conll05,
    read_conll12,
    read_conllu,
    read_conllx,
    read_ptb,
    write_conll05,
    write_conllu,
    write_ptb,
)
from spacy_lal.corpora.ewt import SPLITS, align_sentences, format_table
from spacy_lal.doc.extensions import clear_frames, set_frames
from spacy_lal.doc.frames import FrameData
from spacy_lal.doc.propbank import frame_lemma
from spacy_lal.doc.tree import TreeFormatError
from spacy_lal.scoring.spacy_scorers import doc_propositions, score_srl_frames
from spacy_lal.scoring.srl_eval import SrlResult, read_props, score_props_files, score_sentence

DATA = Path(__file__).parents[1] / "data" / "corpora"
EWT = DATA / "ewt"
ASSETS = Path(__file__).parents[2] / ".." / "shared" / "assets"


@pytest.fixture(scope="module")
def vocab():
    return spacy.blank("en").vocab


def frames(doc: Doc) -> List[FrameData]:
    return [FrameData(f.predicate.i, f.sense, tuple((a.start, a.end, a.label_) for a in f.arguments)) for f in doc._.srl]


def trees(doc: Doc) -> List[str]:
    return [tree.to_string() for tree in doc._.trees]


def annotation(doc: Doc) -> tuple:
    return (
        [(t.text, t.whitespace_, t.lemma_, t.pos_, t.tag_, str(t.morph), t.head.i, t.dep_, t.is_sent_start) for t in doc],
        trees(doc),
        frames(doc),
    )


# tests/data/corpora/sample.conllu by hand, as annotation() gives it: (text, whitespace, lemma, UPOS,
# tag, morph, head, dep, sentence start) per token (heads 0-based in the Doc); no trees, no frames.
PRS1 = "Person=1|PronType=Prs"
IT = "Case=Acc|Gender=Neut|Number=Sing|Person=3|PronType=Prs"
FIN_PAST = "Mood=Ind|Tense=Past|VerbForm=Fin"
SAMPLE_TOKENS = [
    [("I", " ", "I", "PRON", "PRP", f"Case=Nom|Number=Sing|{PRS1}", 3, "nsubj", True),
     ("do", "", "do", "AUX", "VBP", "Mood=Ind|Number=Sing|Person=1|Tense=Pres|VerbForm=Fin", 3, "aux", False),
     ("n't", " ", "not", "PART", "RB", "", 3, "advmod", False),
     ("like", " ", "like", "VERB", "VB", "VerbForm=Inf", 3, "root", False),
     ("it", "", "it", "PRON", "PRP", IT, 3, "obj", False),
     (".", " ", ".", "PUNCT", ".", "", 3, "punct", False)],
    [("We", " ", "we", "PRON", "PRP", f"Case=Nom|Number=Plur|{PRS1}", 1, "nsubj", True),
     ("can", "", "can", "AUX", "MD", "VerbForm=Fin", 1, "root", False),
     ("not", "", "not", "PART", "RB", "", 1, "advmod", False),
     (".", " ", ".", "PUNCT", ".", "", 1, "punct", False)],
    [("Mary", "", "Mary", "PROPN", "NNP", "Number=Sing", 5, "nsubj", True),
     (",", " ", ",", "PUNCT", ",", "", 3, "punct", False),
     ("who", " ", "who", "PRON", "WP", "PronType=Rel", 3, "nsubj", False),
     ("left", "", "leave", "VERB", "VBD", FIN_PAST, 0, "acl:relcl", False),
     (",", " ", ",", "PUNCT", ",", "", 3, "punct", False),
     ("said", " ", "say", "VERB", "VBD", FIN_PAST, 5, "root", False),
     ("it", "", "it", "PRON", "PRP", IT, 5, "obj", False),
     (".", " ", ".", "PUNCT", ".", "", 5, "punct", False)],
    [("Hello", " ", "hello", "INTJ", "UH", "", 0, "root", True)],
]
SAMPLE_USER_DATA = [
    {"doc_id": "email-test01", "sent_id": "email-test01-0001", "multiword_tokens": ((1, 3, "don't"),)},
    {"doc_id": "email-test01", "sent_id": "email-test01-0002", "multiword_tokens": ((1, 3, "cannot"),)},
    {"doc_id": "email-test01", "sent_id": "email-test01-0003", "multiword_tokens": ()},
    {"doc_id": "email-test02", "sent_id": "email-test02-0001", "multiword_tokens": ()},
]
# What write_conllu makes of it: the same lines but DEPS (not kept) and the empty node 3.1.
SAMPLE_WRITTEN = """# newdoc id = email-test01
# sent_id = email-test01-0001
# text = I don't like it.
1\tI\tI\tPRON\tPRP\tCase=Nom|Number=Sing|Person=1|PronType=Prs\t4\tnsubj\t_\t_
2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_
2\tdo\tdo\tAUX\tVBP\tMood=Ind|Number=Sing|Person=1|Tense=Pres|VerbForm=Fin\t4\taux\t_\t_
3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t_\t_
4\tlike\tlike\tVERB\tVB\tVerbForm=Inf\t0\troot\t_\t_
5\tit\tit\tPRON\tPRP\tCase=Acc|Gender=Neut|Number=Sing|Person=3|PronType=Prs\t4\tobj\t_\tSpaceAfter=No
6\t.\t.\tPUNCT\t.\t_\t4\tpunct\t_\t_

# sent_id = email-test01-0002
# text = We cannot.
1\tWe\twe\tPRON\tPRP\tCase=Nom|Number=Plur|Person=1|PronType=Prs\t2\tnsubj\t_\t_
2-3\tcannot\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No
2\tcan\tcan\tAUX\tMD\tVerbForm=Fin\t0\troot\t_\t_
3\tnot\tnot\tPART\tRB\t_\t2\tadvmod\t_\t_
4\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_

# sent_id = email-test01-0003
# text = Mary, who left, said it.
1\tMary\tMary\tPROPN\tNNP\tNumber=Sing\t6\tnsubj\t_\tSpaceAfter=No
2\t,\t,\tPUNCT\t,\t_\t4\tpunct\t_\t_
3\twho\twho\tPRON\tWP\tPronType=Rel\t4\tnsubj\t_\t_
4\tleft\tleave\tVERB\tVBD\tMood=Ind|Tense=Past|VerbForm=Fin\t1\tacl:relcl\t_\tSpaceAfter=No
5\t,\t,\tPUNCT\t,\t_\t4\tpunct\t_\t_
6\tsaid\tsay\tVERB\tVBD\tMood=Ind|Tense=Past|VerbForm=Fin\t0\troot\t_\t_
7\tit\tit\tPRON\tPRP\tCase=Acc|Gender=Neut|Number=Sing|Person=3|PronType=Prs\t6\tobj\t_\tSpaceAfter=No
8\t.\t.\tPUNCT\t.\t_\t6\tpunct\t_\t_

# newdoc id = email-test02
# sent_id = email-test02-0001
# text = Hello
1\tHello\thello\tINTJ\tUH\t_\t0\troot\t_\t_

"""
# tests/data/corpora/trees.mrg normalized: traces, function tags and the wrappers gone.
TREES_WRITTEN = [
    "(S (NP (DT The) (NN cat)) (VP (VBD was) (VP (VBN seen))) (. .))",
    "(S (NP (PRP He)) (VP (VBD left) (-LRB- -LRB-) (NP (NN home)) (-RRB- -RRB-)) (. .))",
]
# tests/data/corpora/sample.props / sample.words: the frames (A0 ... as written there).
SAMPLE_FRAMES = [
    [FrameData(1, None, ((0, 1, "A0"), (2, 3, "A1"), (3, 4, "C-V")))],
    [FrameData(1, None, ((0, 1, "A0"),))],
]


# -- CoNLL-U / CoNLL-X -----------------------------------------------------------------------


def test_conllu_words_spaces_and_annotation(vocab):
    docs = list(read_conllu(DATA / "sample.conllu", vocab))
    assert len(docs) == 4
    doc = docs[0]
    assert [t.text for t in doc] == ["I", "do", "n't", "like", "it", "."]
    # Inside "don't" no space; its last word takes the range's SpaceAfter; "it" has SpaceAfter=No.
    assert [t.whitespace_ for t in doc] == [" ", "", " ", " ", "", " "]
    assert doc.text == "I don't like it. "
    assert [t.lemma_ for t in doc] == ["I", "do", "not", "like", "it", "."]
    assert [t.pos_ for t in doc] == ["PRON", "AUX", "PART", "VERB", "PRON", "PUNCT"]
    assert [t.tag_ for t in doc] == ["PRP", "VBP", "RB", "VB", "PRP", "."]
    assert str(doc[0].morph) == "Case=Nom|Number=Sing|Person=1|PronType=Prs"
    assert [t.head.i for t in doc] == [3, 3, 3, 3, 3, 3]
    assert [t.dep_ for t in doc] == ["nsubj", "aux", "advmod", "root", "obj", "punct"]
    assert [t.is_sent_start for t in doc] == [True] + [False] * 5
    assert doc.user_data["sent_id"] == "email-test01-0001"
    assert doc.user_data["doc_id"] == "email-test01"
    # The range line's SpaceAfter=No goes to the last word of "cannot"; the empty node is no word.
    doc = docs[1]
    assert [t.text for t in doc] == ["We", "can", "not", "."]
    assert doc.text == "We cannot. "
    assert docs[3].user_data["doc_id"] == "email-test02"


def test_conllx(vocab):
    (doc,) = read_conllx(DATA / "sample.conllx", vocab)
    assert [t.text for t in doc] == ["The", "cat", "sleeps"]
    assert doc.text == "The cat sleeps "
    assert [t.tag_ for t in doc] == ["DT", "NN", "VBZ"]
    assert [t.pos_ for t in doc] == ["", "", ""]  # CPOSTAG "DT" is not a UD tag
    assert [str(t.morph) for t in doc] == ["", "", ""]  # free-form CoNLL-X features
    assert [t.head.i for t in doc] == [1, 2, 2]
    assert [t.dep_ for t in doc] == ["NMOD", "SBJ", "ROOT"]


def test_conllx_rejects_multiword_tokens(tmp_path, vocab):
    path = tmp_path / "mwt.conll"
    path.write_text((DATA / "sample.conllu").read_text(encoding="utf8"), encoding="utf8")
    with pytest.raises(CorpusFormatError, match=r"mwt.conll, line 5: expected an integer word id"):
        list(read_conllx(path, vocab))


def test_conllu_error_names_file_line_and_expectation(vocab):
    with pytest.raises(CorpusFormatError) as info:
        list(read_conllu(DATA / "bad.conllu", vocab))
    assert str(info.value).endswith("bad.conllu, line 3: expected 10 tab-separated columns, got 7")
    assert info.value.line_no == 3


@pytest.mark.parametrize(
    "line,expected",
    [
        ("2\tx\tx\tNOUN\tNN\t_\t9\tobj\t_\t_", "expected HEAD to be a word id 0..2"),
        ("3\tx\tx\tNOUN\tNN\t_\t1\tobj\t_\t_", "expected word id 2, got '3'"),
        ("2\tx\tx\tNN\tNN\t_\t1\tobj\t_\t_", "expected a UD UPOS tag"),
        ("2\tx\tx\tNOUN\tNN\tsg\t1\tobj\t_\t_", "expected FEATS as Name=Value pairs"),
    ],
)
def test_conllu_bad_values(tmp_path, vocab, line, expected):
    path = tmp_path / "bad.conllu"
    path.write_text("1\tI\tI\tPRON\tPRP\t_\t0\troot\t_\t_\n" + line + "\n", encoding="utf8")
    with pytest.raises(CorpusFormatError, match=rf"bad.conllu, line 2: {expected}"):
        list(read_conllu(path, vocab))


def test_conllu_round_trip(tmp_path, vocab):
    docs = list(read_conllu(DATA / "sample.conllu", vocab))
    assert [annotation(d) for d in docs] == [(tokens, [], []) for tokens in SAMPLE_TOKENS]
    assert write_conllu(docs, tmp_path / "out.conllu") == 4
    # UD puts SpaceAfter of a multi-word token on its range line ("2-3 cannot").
    assert (tmp_path / "out.conllu").read_text(encoding="utf8") == SAMPLE_WRITTEN
    again = list(read_conllu(tmp_path / "out.conllu", vocab))
    assert [annotation(d) for d in again] == [(tokens, [], []) for tokens in SAMPLE_TOKENS]
    assert [d.user_data for d in again] == SAMPLE_USER_DATA


# -- PTB -------------------------------------------------------------------------------------


def test_ptb_traces_and_several_trees(vocab):
    docs = list(read_ptb(DATA / "trees.mrg", vocab))
    assert len(docs) == 2
    assert [t.text for t in docs[0]] == ["The", "cat", "was", "seen", "."]
    assert [t.tag_ for t in docs[0]] == ["DT", "NN", "VBD", "VBN", "."]
    assert trees(docs[0]) == ["(S (NP (DT The) (NN cat)) (VP (VBD was) (VP (VBN seen))) (. .))"]
    assert [t.text for t in docs[1]] == ["He", "left", "(", "home", ")", "."]
    assert docs[1].text == "He left ( home ) . "
    assert trees(docs[1]) == ["(S (NP (PRP He)) (VP (VBD left) (-LRB- -LRB-) (NP (NN home)) (-RRB- -RRB-)) (. .))"]


def test_ptb_untagged(vocab):
    (doc,) = read_ptb(DATA / "untagged.mrg", vocab, tagged=False)
    assert [t.text for t in doc] == ["John", "Smith", "sleeps"]
    assert [t.tag_ for t in doc] == ["", "", ""]
    assert trees(doc) == ["(S (NP (XX John) (XX Smith)) (VP (XX sleeps)))"]


def test_ptb_error(vocab):
    with pytest.raises(TreeFormatError, match=r"bad.mrg, line 3: expected '\)'"):
        list(read_ptb(DATA / "bad.mrg", vocab))


def test_ptb_round_trip(tmp_path, vocab):
    docs = list(read_ptb(DATA / "trees.mrg", vocab))
    assert write_ptb(docs, tmp_path / "out.mrg") == 2
    assert (tmp_path / "out.mrg").read_text() == "".join(tree + "\n" for tree in TREES_WRITTEN)
    again = list(read_ptb(tmp_path / "out.mrg", vocab))
    assert [trees(d) for d in again] == [[tree] for tree in TREES_WRITTEN]
    assert [d.text for d in again] == ["The cat was seen . ", "He left ( home ) . "]
    assert [[t.tag_ for t in d] for d in again] == [
        ["DT", "NN", "VBD", "VBN", "."], ["PRP", "VBD", "-LRB-", "NN", "-RRB-", "."]
    ]
    assert [[t.is_sent_start for t in d] for d in again] == [[True] + [False] * 4, [True] + [False] * 5]
    assert not any(d.has_annotation(attr) for d in again for attr in ("DEP", "LEMMA", "POS")) and frames(again[0]) == []


def test_ptb_export_keeps_alignment_without_tree(tmp_path, vocab):
    doc = Doc(vocab, words=["Hi", " ", "!"], tags=["UH", "_SP", "."])
    with pytest.warns(UserWarning, match=r"write_ptb: 1 of 1 sentences had no constituency tree") as caught:
        write_ptb([doc], tmp_path / "flat.mrg")
    assert str(tmp_path) not in str(caught[0].message)  # the CLI writes through temporary files
    assert (tmp_path / "flat.mrg").read_text() == "(S (UH Hi) (. !))\n"  # whitespace is no word


# -- CoNLL-2005 / CoNLL-2012 -----------------------------------------------------------------


def test_conll05(vocab):
    docs = list(read_conll05(DATA / "sample.props", vocab, words=DATA / "sample.words", synt=DATA / "sample.synt"))
    assert [[t.text for t in d] for d in docs] == [["He", "picked", "it", "up", "."], ["Mary", "sat", "."]]
    assert [t.tag_ for t in docs[0]] == ["PRP", "VBD", "PRP", "RP", "."]
    assert trees(docs[0]) == ["(S (NP (PRP He)) (VP (VBD picked) (NP (PRP it)) (PRT (RP up))) (. .))"]
    assert frames(docs[0]) == [FrameData(1, None, ((0, 1, "A0"), (2, 3, "A1"), (3, 4, "C-V")))]
    assert frames(docs[1]) == [FrameData(1, None, ((0, 1, "A0"),))]
    assert str(docs[0]._.srl[0]) == "[A0 He] [V picked] [A1 it] [C-V up] ."


def test_conll05_without_synt(vocab):
    docs = list(read_conll05(DATA / "sample.props", vocab, words=DATA / "sample.words"))
    assert trees(docs[0]) == [] and docs[0][0].tag_ == ""
    assert frames(docs[1]) == [FrameData(1, None, ((0, 1, "A0"),))]


def test_conll05_error(vocab):
    with pytest.raises(CorpusFormatError, match=r"bad.props, line 5: expected '\)' to close '\(V' opened on line 2"):
        list(read_conll05(DATA / "bad.props", vocab, words=DATA / "sample.words"))


def test_conll05_round_trip(tmp_path, vocab):
    docs = list(read_conll05(DATA / "sample.props", vocab, words=DATA / "sample.words", synt=DATA / "sample.synt"))
    assert [t.lemma_ for t in docs[0]] == ["", "pick", "", "", ""]  # the props' first column
    write_conll05(docs, tmp_path / "out.props", words=tmp_path / "out.words")
    # The props come back as they were: predicate lemmas, then the bracket columns.
    assert (tmp_path / "out.props").read_text() == (DATA / "sample.props").read_text()
    assert (tmp_path / "out.words").read_text() == "He\npicked\nit\nup\n.\n\nMary\nsat\n.\n\n"
    again = list(read_conll05(tmp_path / "out.props", vocab, words=tmp_path / "out.words"))
    assert [frames(d) for d in docs] == [frames(d) for d in again] == SAMPLE_FRAMES
    assert [d.text for d in again] == ["He picked it up . ", "Mary sat . "]


def test_conll05_export_writes_the_predicate_lemma(tmp_path, vocab):
    doc = Doc(vocab, words=["Sales", "expanded", "and", "Prices", "rose", "and", "fell", "."])
    doc[6].lemma_ = "fall"
    set_frames(doc, [
        FrameData(1, "expand.01", ((0, 1, "ARG1"),)),
        FrameData(4, None, ((3, 4, "ARG1"),)),  # no sense, no lemma: the lowercased word
        FrameData(6, None, ((3, 4, "ARG1"),)),  # no sense: the token's lemma
    ])
    write_conll05([doc], tmp_path / "out.props")
    lines = (tmp_path / "out.props").read_text().splitlines()
    assert [line.split("\t")[0] for line in lines[:-1]] == ["-", "expand", "-", "-", "rose", "-", "fall", "-"]


def test_conll12(vocab):
    docs = list(read_conll12(DATA / "sample.gold_conll", vocab))
    assert len(docs) == 2
    assert [t.text for t in docs[0]] == ["They", "bought", "(", "books", ")", "."]
    assert trees(docs[0]) == ["(S (NP (PRP They)) (VP (VBD bought) (-LRB- -LRB-) (NP (NNS books)) (-RRB- -RRB-)) (. .))"]
    assert frames(docs[0]) == [FrameData(1, "buy.01", ((0, 1, "ARG0"), (3, 4, "ARG1")))]
    assert trees(docs[1]) == ["(INTJ (UH Yes) (. .))"] and frames(docs[1]) == []
    assert (docs[1].user_data["doc_id"], docs[1].user_data["sent_id"]) == ("bc/test/00/test_0001", "bc/test/00/test_0001-0-1")


def test_conll12_error(vocab):
    with pytest.raises(CorpusFormatError, match=r"bad.gold_conll, line 1: expected a bracket cell like"):
        list(read_conll12(DATA / "bad.gold_conll", vocab))


# -- EWT join --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ewt_dev(vocab):
    return join_ewt_split(EWT / "ud" / "en_ewt-ud-dev.conllu", EWT / "propbank", "dev", vocab)


def test_ewt_join_content(ewt_dev):
    docs, stats = ewt_dev
    assert [d.user_data["sent_id"] for d in docs] == ["email-test01-0001", "email-test01-0003"]
    doc = docs[0]
    assert [t.text for t in doc] == ["I", "do", "n't", "like", "it", "."]
    assert doc.text == "I don't like it. "
    assert [t.lemma_ for t in doc][2] == "not" and doc[3].dep_ == "root" and doc[0].head.i == 3
    assert trees(doc) == ["(S (NP (PRP I)) (VP (VBP do) (RB n't) (VP (VB like) (NP (PRP it)))) (. .))"]
    assert frames(doc) == [FrameData(3, "like.01", ((0, 1, "ARG0"), (2, 3, "ARGM-NEG"), (4, 5, "ARG1")))]
    doc = docs[1]
    assert [t.tag_ for t in doc] == ["NNP", ",", "WP", "VBD", ",", "VBD", "PRP", "."]
    assert trees(doc) == [
        "(S (NP (NP (NNP Mary)) (, ,) (SBAR (WHNP (WP who)) (S (VP (VBD left)))) (, ,)) "
        "(VP (VBD said) (NP (PRP it))) (. .))"
    ]
    assert frames(doc) == [
        FrameData(3, "leave.01", ((0, 1, "ARG0"), (2, 3, "R-ARG0"))),
        FrameData(5, "say.01", ((0, 1, "ARG0"), (2, 4, "C-ARG0"), (6, 7, "ARG1"))),
    ]


def test_ewt_join_counts(ewt_dev):
    _, stats = ewt_dev
    assert (stats.sentences, stats.kept, stats.skipped_mismatch, stats.skipped_no_skeleton) == (4, 2, 1, 1)
    assert (stats.tokens, stats.trees, stats.propositions) == (14, 2, 3)
    assert stats.documents_without_skeleton == ["email-test02"]
    assert stats.documents_not_in_list == ["email-test02"]
    assert stats.documents_not_in_ud == ["email-test03"]
    assert stats.skipped_sentences[0] == ("email-test01-0002", "token count mismatch")
    assert "skip:tokens" in format_table({"dev": stats})


def test_align_sentences_resynchronizes():
    class S:
        def __init__(self, n):
            self.tags = ["X"] * n

        def __len__(self):
            return len(self.tags)

    ud = [S(n) for n in (5, 13, 8, 5, 13)]
    skeleton = [S(n) for n in (5, 21, 5, 13, 2)]  # UD split the skeleton's second sentence
    assert align_sentences(ud, skeleton) == [(0, 0), (3, 2), (4, 3)]


def test_ewt_cli_and_exports(tmp_path):
    ud = tmp_path / "ud"
    ud.mkdir()
    for split in SPLITS:
        (ud / f"en_ewt-ud-{split}.conllu").write_bytes((EWT / "ud" / "en_ewt-ud-dev.conllu").read_bytes())
    out = tmp_path / "corpus"
    assert cli(["convert", "ewt", "--ud", str(ud), "--propbank", str(EWT / "propbank"), "--output", str(out)]) == 0
    vocab = spacy.blank("en").vocab
    docs = list(DocBin().from_disk(out / "dev.spacy").get_docs(vocab))
    assert [d.user_data["sent_id"] for d in docs] == ["email-test01-0001", "email-test01-0003"]
    assert len(frames(docs[1])) == 2 and len(trees(docs[1])) == 1
    for fmt in ("ptb", "conllu", "conll05"):
        assert cli(["export", str(out / "dev.spacy"), "--format", fmt, str(tmp_path / f"dev.{fmt}"),
                    *(["--words", str(tmp_path / "dev.words")] if fmt == "conll05" else [])]) == 0
    # What was exported, by hand (the trees and frames of test_ewt_join_content; the UD sentences
    # are sample.conllu's first and third).
    assert [trees(d) for d in read_ptb(tmp_path / "dev.ptb", vocab)] == [
        ["(S (NP (PRP I)) (VP (VBP do) (RB n't) (VP (VB like) (NP (PRP it)))) (. .))"],
        ["(S (NP (NP (NNP Mary)) (, ,) (SBAR (WHNP (WP who)) (S (VP (VBD left)))) (, ,)) "
         "(VP (VBD said) (NP (PRP it))) (. .))"],
    ]
    back = list(read_conllu(tmp_path / "dev.conllu", vocab))
    strip = lambda d: [row[:3] + row[4:] for row in annotation(d)[0]]  # noqa: E731
    assert [strip(d) for d in back] == [[row[:3] + row[4:] for row in SAMPLE_TOKENS[i]] for i in (0, 2)]
    back = list(read_conll05(tmp_path / "dev.conll05", vocab, words=tmp_path / "dev.words"))
    assert [[(f.predicate, f.arguments) for f in frames(d)] for d in back] == [
        [(3, ((0, 1, "ARG0"), (2, 3, "ARGM-NEG"), (4, 5, "ARG1")))],
        [(3, ((0, 1, "ARG0"), (2, 3, "R-ARG0"))), (5, ((0, 1, "ARG0"), (2, 4, "C-ARG0"), (6, 7, "ARG1")))],
    ]
    # The first column holds PropBank's lemma of each roleset, its frame file's name (like.01 is in
    # liken.xml, say.01 in say.xml; leave.01, not in PropBank 3.4, gets its id's lemma), as srl-eval.pl expects.
    assert [[t.lemma_ for t in d if t.lemma_ and t.i in {f.predicate.i for f in d._.srl}] for d in back] == [
        ["liken"], ["leave", "say"]
    ]


def test_convert_cli_reports_format_errors(tmp_path, capsys):
    assert cli(["convert", "conllu", str(DATA / "bad.conllu"), str(tmp_path / "x.spacy")]) == 1
    assert "bad.conllu, line 3: expected 10 tab-separated columns, got 7" in capsys.readouterr().err


def test_convert_cli_directory(tmp_path):
    assert cli(["convert", "ptb", str(DATA), str(tmp_path / "t.spacy"), "--pattern", "trees.mrg"]) == 0
    assert len(DocBin().from_disk(tmp_path / "t.spacy")) == 2


@pytest.fixture(scope="module")
def ewt_test(vocab):
    """The gold EWT test split (2,058 sentences, about 5 s to join)."""
    if not (ASSETS / "UD_English-EWT").exists():
        pytest.skip("needs ../shared/assets")
    docs, _ = join_ewt_split(
        ASSETS / "UD_English-EWT" / "en_ewt-ud-test.conllu", ASSETS / "propbank-release", "test", vocab
    )
    return docs


def perturb(docs: List[Doc], seed: int = 0) -> List[Doc]:
    """Copies of gold Docs with wrong predictions of every kind srl-eval.pl tells apart: arguments
    dropped, relabelled, shrunk or added, whole frames dropped, frames on other words, other
    senses of the same lemma, senses left out (the lemma then comes from the token)."""
    rng = random.Random(seed)
    out = []
    for gold in docs:
        doc = gold.copy()
        predicted = []
        for frame in gold._.srl:
            if rng.random() < 0.1:
                continue
            args = []
            for arg in frame.arguments:
                start, end, label = arg.start, arg.end, arg.label_
                roll = rng.random() if label != "V" else 1.0  # a longer V must keep its predicate
                if roll < 0.1:
                    continue
                if roll < 0.2:
                    label = "ARGM-TMP" if label != "ARGM-TMP" else "ARG1"
                elif roll < 0.3 and end - start > 1:
                    end -= 1
                args.append((start, end, label))
            free = [i for i in range(frame.sentence.start, frame.sentence.end) if i != frame.predicate.i
                    and not any(s <= i < e for s, e, _ in args)]
            if free and rng.random() < 0.2:
                args.append((free[0], free[0] + 1, "ARGM-ADV"))
            # Sense errors that keep the props file's lemma column, the frame file's name: a
            # changed column makes srl-eval.pl count every argument missed (test_conll05_lemma).
            sense = frame.sense
            lemma = frame_lemma(sense) if sense else None
            if sense and rng.random() < 0.2:
                if lemma == sense.rpartition(".")[0]:  # an unknown id falls back on its lemma
                    sense = lemma + ".99"
            elif sense and rng.random() < 0.2:
                doc[frame.predicate.i].lemma_ = lemma
                sense = None
            predicted.append(FrameData(frame.predicate.i, sense, tuple(args)))
        taken = {f.predicate.i for f in gold._.srl}
        spare = [i for i in range(len(doc)) if i not in taken and not doc[i].is_space]
        if spare and rng.random() < 0.2:
            predicted.append(FrameData(spare[-1], "extra.01", ()))
        clear_frames(doc)
        set_frames(doc, predicted)
        out.append(doc)
    return out


@pytest.mark.slow  # the whole EWT test split
def test_conll05_export_scores_as_srl_eval_on_ewt_test(ewt_test, tmp_path):
    """Gold EWT test exported and scored with the srl-eval.pl-equal scorer: 100 against itself,
    and on perturbed predictions exactly what the project's own scorer gives from the Docs."""
    gold_props = tmp_path / "gold.props"
    assert write_conll05(ewt_test, gold_props) == len(ewt_test)
    # The example: "expanded" (expand.01) is written as its lemma, as in CoNLL-2005.
    (expanded,) = [f for f in ewt_test[1]._.srl if f.predicate.text == "expanded"]
    gold_sents = read_props(gold_props)
    (prop,) = [p for p in gold_sents[1].propositions if p.position == expanded.predicate.i]
    assert prop.verb == "expand"
    n_frames = sum(len(doc._.srl) for doc in ewt_test)
    assert sum(len(s.propositions) for s in gold_sents) == n_frames > 4000

    same = score_props_files(gold_props, gold_props)
    assert (same.overall.f1, same.perfect, same.warnings) == (1.0, 1.0, [])
    assert same.propositions == n_frames

    predicted = perturb(ewt_test)
    pred_props = tmp_path / "pred.props"
    write_conll05(predicted, pred_props)
    official = score_props_files(gold_props, pred_props)
    ours = SrlResult()
    for i, (gold, pred) in enumerate(zip(ewt_test, predicted), start=1):
        score_sentence(doc_propositions(gold), doc_propositions(pred), ours, i)
    counts = lambda r: (r.overall.correct, r.overall.excess, r.overall.missed, r.perfect_propositions)  # noqa: E731
    assert counts(official) == counts(ours)
    assert 0.5 < official.overall.f1 < 0.95  # the perturbation did perturb
    assert score_srl_frames(
        Example(pred, gold) for gold, pred in zip(ewt_test, predicted)
    )["srl_f"] == pytest.approx(official.overall.f1, abs=1e-12)
    # Dropped and extra frames are warned about, but no predicate lemma differs from gold.
    assert official.warnings and not [w for w in official.warnings if "expected verb" in w]


@pytest.mark.slow
@pytest.mark.skipif(not (ASSETS / "UD_English-EWT").exists(), reason="needs ../shared/assets")
def test_real_ewt_join(vocab):
    total = skipped = 0
    for split in SPLITS:
        docs, stats = join_ewt_split(
            ASSETS / "UD_English-EWT" / f"en_ewt-ud-{split}.conllu", ASSETS / "propbank-release", split, vocab
        )
        assert stats.documents_not_in_list == [] and stats.documents_not_in_ud == []
        # Sentences that could not be joined (as opposed to documents PropBank lacks).
        assert stats.skipped_mismatch / stats.sentences < 0.005
        assert len(docs) == stats.kept == stats.trees
        total += stats.sentences
        skipped += stats.skipped
    assert skipped / total < 0.005
