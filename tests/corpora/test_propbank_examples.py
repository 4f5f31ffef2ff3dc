"""convert propbank-examples: PropBank frame-file examples as partially annotated SRL Docs."""
import json

import pytest
import spacy
from spacy.tokens import DocBin

import spacy_lal  # noqa: F401  (extensions)
from spacy_lal.__main__ import main as cli_main
from spacy_lal.corpora import CorpusFormatError
from spacy_lal.corpora.propbank_examples import ExampleStats, held_out_source, read_frame_examples, write_propbank_examples
from spacy_lal.doc.extensions import PARTIAL_SRL
from spacy_lal.tokenizer import ewt_tokenizer

GIVE = """<?xml version="1.0" encoding="UTF-8"?>
<frameset>
  <predicate lemma="give">
    <roleset id="give.01" name="transfer">
      <roles><role descr="giver" f="PAG" n="0"/><role descr="thing given" f="PPT" n="1"/></roles>
      <example name="double object" src="">
        <text>The executives gave the chefs a standing ovation .</text>
        <propbank>
          <rel relloc="2">gave</rel>
          <arg type="ARG0" start="0" end="1">The executives</arg>
          <arg type="ARG2" start="3" end="4">the chefs</arg>
          <arg type="ARG1" start="5" end="7">a standing ovation</arg>
        </propbank>
      </example>
      <example name="from the WSJ" src="wsj-nw">
        <text>Mr. Smith gave $ 5 million .</text>
        <propbank><rel relloc="2">gave</rel><arg type="ARG0" start="0" end="1">Mr. Smith</arg></propbank>
      </example>
      <example name="trace and clitic" src="web">
        <text>*PRO* Do n't give *trace* up the fight</text>
        <propbank>
          <rel relloc="3">give</rel>
          <arg type="ARG0" start="?" end="?">*PRO*</arg>
          <arg type="ARGM-NEG" start="2" end="2">n't</arg>
          <arg type="ARG1" start="7" end="8">the fight</arg>
        </propbank>
      </example>
      <example name="arg text not in the sentence" src="">
        <text>She gave it away .</text>
        <propbank><rel relloc="1">gave</rel><arg type="ARG1" start="2" end="2">the book</arg></propbank>
      </example>
      <example name="empty" src=""><text>  </text><propbank><rel relloc="0">give</rel></propbank></example>
    </roleset>
    <roleset id="give_up.06" name="surrender">
      <example name="phrasal" src="Brown">
        <text>He gave up .</text>
        <propbank><rel relloc="1 2">gave up</rel><arg type="ARG0" start="0" end="0">He</arg></propbank>
      </example>
      <example name="phrasal kept" src="BOLT">
        <text>They gave up the search .</text>
        <propbank><rel relloc="1 2">gave up</rel><arg type="ARG1" start="3" end="4">the search</arg></propbank>
      </example>
    </roleset>
  </predicate>
</frameset>
"""


@pytest.fixture(scope="module")
def tokenize():
    return ewt_tokenizer(spacy.blank("en"))


def frames_of(doc):
    return [(f.predicate.text, f.sense, [(a.label_, a.text) for a in f.arguments]) for f in doc._.srl]


def test_kept_examples_are_docs_with_words_sense_and_argument_spans(tmp_path, tokenize):
    path = tmp_path / "give.xml"
    path.write_text(GIVE, encoding="utf8")
    stats = ExampleStats()
    docs = list(read_frame_examples(path, tokenize, stats))
    assert [[t.text for t in doc] for doc in docs] == [
        "The executives gave the chefs a standing ovation .".split(),
        "Do n't give up the fight".split(),
        "They gave up the search .".split(),
    ]
    assert [frames_of(doc) for doc in docs] == [
        [("gave", "give.01", [("ARG0", "The executives"), ("ARG2", "the chefs"), ("ARG1", "a standing ovation")])],
        [("give", "give.01", [("ARGM-NEG", "n't"), ("ARG1", "the fight")])],
        [("gave", "give_up.06", [("V", "gave up"), ("ARG1", "the search")])],
    ]
    assert all(doc.user_data[PARTIAL_SRL] is True for doc in docs)
    assert docs[0].user_data["sent_id"] == "give.xml#give.01#1" and docs[1].user_data["src"] == "web"
    assert all(len(list(doc.sents)) == 1 for doc in docs)
    assert stats.examples == 7 and stats.kept == 3 and stats.trace_arguments == 1
    assert stats.left_out["source: WSJ / Penn Treebank"] == 1
    assert stats.left_out["source: Brown"] == 1
    assert stats.left_out["argument not located"] == 1
    assert stats.left_out["empty text"] == 1
    assert stats.sources["wsj-nw"] == 1 and stats.sources[""] == 3


@pytest.mark.parametrize("src, reason", [
    ("", None), ("internet", None), ("BOLT-6", None), ("web usage", None), ("wsj-nw", "WSJ"), ("WSJ", "WSJ"),
    ("NomBank Frames", "WSJ"), ("nouns 0080", "WSJ"), ("Brown corpus", "Brown"), ("ON sense 1", "OntoNotes"),
    ("ontonotes mz/sinorama/10/ectb_1057", "OntoNotes"), ("on499-nouns-be", "OntoNotes"), ("EWT", "EWT"),
    ("BOLT P01, parts 2,3That would be extremely distracting when you 're on the look out", None),
])
def test_held_out_sources(src, reason):
    found = held_out_source(src)
    assert (found is None) if reason is None else (reason in found)


def test_command_writes_the_corpus_its_card_and_a_table(tmp_path, capsys):
    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "give.xml").write_text(GIVE, encoding="utf8")
    output = tmp_path / "out" / "examples.spacy"
    assert cli_main(["convert", "propbank-examples", str(frames), str(output)]) == 0
    printed = capsys.readouterr().out
    assert "argument not located" in printed and "kept (Docs written)" in printed
    docs = list(DocBin().from_disk(output).get_docs(spacy.blank("en").vocab))
    assert len(docs) == 3 and docs[0].user_data[PARTIAL_SRL] and docs[0]._.srl[0].sense == "give.01"
    card = json.loads(output.with_suffix(".card.json").read_text())
    assert card["license"] == "CC BY-SA 4.0" and card["revision"].startswith("c66e0ccf")
    assert card["docs"] == 3 and card["left_out"]["source: Brown"] == 1 and card["sources"]["BOLT"] == 1


def test_a_malformed_file_is_an_error_naming_file_and_line(tmp_path, capsys):
    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "give.xml").write_text(GIVE, encoding="utf8")
    (frames / "take.xml").write_text("<frameset>\n  <predicate lemma='take'>\n  </frameset>\n", encoding="utf8")
    with pytest.raises(CorpusFormatError, match=r"take\.xml, line 3: malformed frame file"):
        write_propbank_examples(frames, tmp_path / "x.spacy")
    assert cli_main(["convert", "propbank-examples", str(frames), str(tmp_path / "x.spacy")]) == 1
    assert "take.xml, line 3" in capsys.readouterr().err


def test_a_file_broken_only_inside_an_example_loses_that_example(tmp_path, tokenize):
    broken = GIVE.replace('<example name="empty" src="">', '<example name="empty" src=unquoted>')
    path = tmp_path / "give.xml"
    path.write_text(broken, encoding="utf8")
    stats = ExampleStats()
    assert len(list(read_frame_examples(path, tokenize, stats))) == 3
    assert stats.left_out["malformed example"] == 1 and stats.repaired_files == ["give.xml"]
    assert stats.examples == 7
