"""Behavioural checks (issue #17): the checker logic, the data file, and the shipped pipeline's pass rate.

Data format of ``spacy_lal/data/behaviour.jsonl``, one JSON object a line:

- ``id`` (unique str), ``construction`` (str: "passive", "question_wh", ...), ``text`` (the
  sentence), ``words`` (its tokens as spaCy's English tokenizer splits them: "don't" -> "do", "n't";
  the sentence is parsed from these words, as one sentence), ``note`` (optional: the guideline a
  check follows where it is not obvious).
- ``checks``: a list of objects with a ``kind`` and, by kind (indices are 0-based word indices,
  spans ``start``..``end`` end-exclusive):
  - ``root_label``: ``label``: the outermost label of the sentence's tree (S, SQ, SBARQ, ...);
  - ``constituent``: ``start``, ``end``, ``label``: the words form a constituent with that label
    (PTB as in EWT/OntoNotes; either label of a unary chain counts);
  - ``tag``: ``token``, ``tag``: the PTB tag;
  - ``dependency``: ``token``, ``head``, ``label``: UD v2 as in EWT; the root has ``head`` equal
    to ``token`` and label ``root``;
  - ``frame``: ``predicate``, ``sense``: the predicate has a PropBank frame, with that roleset
    (``sense`` null: any);
  - ``role``: ``predicate``, ``start``, ``end``, ``label``: the predicate's frame has that argument.

Every expectation was written by hand from the guidelines, before looking at any model output.
"""
import json
from collections import Counter
from pathlib import Path

import pytest
from spacy.tokens import Doc
from spacy.vocab import Vocab

import spacy_lal
from spacy_lal.behaviour import BehaviourReport, CheckResult, check_problem, evaluate, read_sentences
from spacy_lal.decode import CORE_ROLES
from spacy_lal.doc import propbank
from spacy_lal.doc.api import NotAConstituentError
from spacy_lal.doc.extensions import set_frames, set_tree
from spacy_lal.doc.frames import FrameData

DATA = Path(spacy_lal.__file__).parent / "data" / "behaviour.jsonl"


@pytest.fixture
def dogs_bark() -> Doc:
    """ "Dogs bark ." parsed right: (S (NP Dogs) (VP bark) .), bark the root, [ARG0 Dogs] [V bark]."""
    doc = Doc(Vocab(), words=["Dogs", "bark", "."], heads=[1, 1, 1], deps=["nsubj", "root", "punct"],
              tags=["NNS", "VBP", "."])
    set_tree(doc[:], [(0, 3, ("S",)), (0, 1, ("NP",)), (1, 2, ("VP",))])
    set_frames(doc, [FrameData(1, "bark.01", ((0, 1, "ARG0"),))])
    return doc


@pytest.mark.parametrize(
    "check",
    [
        {"kind": "root_label", "label": "S"},
        {"kind": "constituent", "start": 0, "end": 1, "label": "NP"},
        {"kind": "tag", "token": 1, "tag": "VBP"},
        {"kind": "dependency", "token": 1, "head": 1, "label": "root"},
        {"kind": "dependency", "token": 0, "head": 1, "label": "nsubj"},
        {"kind": "frame", "predicate": 1, "sense": "bark.01"},
        {"kind": "frame", "predicate": 1, "sense": None},
        {"kind": "role", "predicate": 1, "start": 0, "end": 1, "label": "ARG0"},
    ],
)
def test_right_analysis_passes(dogs_bark, check):
    passed, reason = evaluate(dogs_bark, check)
    assert passed, reason


@pytest.mark.parametrize(
    "check, found",
    [
        ({"kind": "root_label", "label": "NP"}, "got S"),
        ({"kind": "constituent", "start": 0, "end": 1, "label": "VP"}, "got NP"),
        ({"kind": "constituent", "start": 0, "end": 2, "label": "NP"}, "not a constituent"),
        ({"kind": "tag", "token": 1, "tag": "NN"}, "got VBP"),
        ({"kind": "dependency", "token": 0, "head": 1, "label": "obj"}, "got nsubj"),
        ({"kind": "dependency", "token": 0, "head": 0, "label": "root"}, "of 'bark'"),
        ({"kind": "frame", "predicate": 0, "sense": None}, "has none"),
        ({"kind": "frame", "predicate": 1, "sense": "bark.02"}, "got bark.01"),
        ({"kind": "role", "predicate": 1, "start": 0, "end": 1, "label": "ARG1"}, "[ARG0 Dogs]"),
        ({"kind": "role", "predicate": 0, "start": 1, "end": 2, "label": "ARG0"}, "no frame"),
    ],
)
def test_wrong_analysis_fails_with_what_was_found(dogs_bark, check, found):
    passed, reason = evaluate(dogs_bark, check)
    assert not passed
    assert found in reason


def test_unparsed_doc_fails_every_syntactic_check():
    doc = Doc(Vocab(), words=["Dogs", "bark", "."])
    for check in [
        {"kind": "root_label", "label": "S"},
        {"kind": "constituent", "start": 0, "end": 2, "label": "S"},
        {"kind": "dependency", "token": 0, "head": 1, "label": "nsubj"},
    ]:
        assert not evaluate(doc, check)[0]


def test_report_rates_by_construction():
    check = {"kind": "tag", "token": 0, "tag": "NN"}
    report = BehaviourReport(
        [CheckResult("a", "passive", check, True, ""), CheckResult("a", "passive", check, False, "x"),
         CheckResult("b", "imperative", check, True, "")]
    )
    assert report.by_construction() == {"passive": (1, 2), "imperative": (1, 1)}
    assert report.passed == 2 and report.rate == pytest.approx(2 / 3)
    assert [r.reason for r in report.failures()] == ["x"]
    assert "66.7%" in report.table()


def test_malformed_check_named_with_file_and_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    good = {"id": "a", "construction": "c", "text": "Dogs bark.", "words": ["Dogs", "bark", "."], "checks": []}
    bad = dict(good, id="b", checks=[{"kind": "role", "predicate": 1, "start": 0, "end": 4, "label": "ARG0"}])
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(ValueError, match=r"bad.jsonl, line 2: .*end 4"):
        list(read_sentences(path))
    assert "predicate" in check_problem({"kind": "role", "predicate": 0, "start": 0, "end": 2, "label": "A"}, 3)
    assert "unknown kind" in check_problem({"kind": "lemma"}, 3)


def test_data_file_is_well_formed(check_behaviour_sentence):
    sentences = list(read_sentences(DATA))  # raises on a malformed check (indices, fields, kinds)
    assert len(sentences) >= 40
    assert len({s.id for s in sentences}) == len(sentences)
    constructions = {s.construction for s in sentences}
    for required in ["simple_intransitive", "passive", "relative_clause", "question_yes_no", "question_wh",
                     "coordination", "ditransitive", "control", "numbers_dates", "imperative"]:
        assert required in constructions
    for s in sentences:
        check_behaviour_sentence(s)
        for check in s.checks:
            if check["kind"] == "frame" and check["sense"] is not None:
                lemma, _, suffix = check["sense"].rpartition(".")
                assert lemma and suffix.isdigit(), (s.id, check)
        # A role expected of a predicate whose roleset is named must be one that roleset defines:
        # with frames = "propbank" no other can be predicted.
        senses = {c["predicate"]: c["sense"] for c in s.checks if c["kind"] == "frame" and c["sense"]}
        for check in s.checks:
            if check["kind"] == "role" and check["predicate"] in senses:
                roleset = propbank.roleset(senses[check["predicate"]])
                assert roleset is not None and roleset.defines(check["label"]), (s.id, check)
    assert sum(len(s.checks) for s in sentences) >= 250


# Sentences for the decoder test: what the model makes of them does not matter; each has arguments
# of several words for any labeller to find.
DECODER_SENTENCES = [
    ("Prices rose 5% last year.", ["Prices", "rose", "5", "%", "last", "year", "."], 1),
    ("But he has insisted that he wants nuclear power for peaceful purposes.",
     ["But", "he", "has", "insisted", "that", "he", "wants", "nuclear", "power", "for", "peaceful", "purposes",
      "."], 6),
    ("We pointed out to the PX that there was excess credit.",
     ["We", "pointed", "out", "to", "the", "PX", "that", "there", "was", "excess", "credit", "."], 1),
    ("The old man saw the boy with the telescope in New York yesterday.",
     ["The", "old", "man", "saw", "the", "boy", "with", "the", "telescope", "in", "New", "York", "yesterday", "."], 3),
]


def _core_roles_repeated(doc) -> list:
    return [
        (frame.predicate.text, role)
        for frame in doc._.srl
        for role, n in Counter(a.label_ for a in frame.arguments if a.label_ in CORE_ROLES).items()
        if n > 1
    ]


def _arguments_off_the_tree(doc) -> list:
    off = []
    for frame in doc._.srl:
        for argument in frame.arguments:
            if len(argument) == 1:
                continue
            try:
                argument._.labels
            except NotAConstituentError:
                off.append((frame.predicate.text, argument.label_, argument.text))
    return off


@pytest.mark.skipif("en_lal_ewt" not in spacy_lal.shipped_pipelines(), reason="the shipped pipeline is not built")
def test_cli_labels_roles_with_the_decoder_asked_for(tmp_path, capsys, monkeypatch):
    """``behaviour --srl-decoder NAME``: lal_srl decodes every sentence with NAME (its setting when
    the sentence is parsed, and the decoder its adapter runs), the Docs scored show that decoder's
    defining property (``tree``: every argument a word or a constituent of the Doc's tree;
    ``unique_roles``: no core role twice in a frame), and the report printed is the checks of
    those Docs. Whatever the model predicts: nothing here depends on its being right or wrong."""
    from spacy_lal import behaviour
    from spacy_lal.__main__ import main as cli
    from spacy_lal.pipeline.srl.adapter import SrlAdapter

    rows = [
        {"id": f"decoder-{k}", "construction": "decoder", "text": text, "words": words,
         "checks": [{"kind": "frame", "predicate": predicate, "sense": None},
                    {"kind": "role", "predicate": predicate, "start": 0, "end": 1, "label": "ARG0"}]}
        for k, (text, words, predicate) in enumerate(DECODER_SENTENCES)
    ]
    data = tmp_path / "decoders.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))

    # One load for every run; before each, lal_srl is set to another decoder than the one asked for,
    # so only the CLI can have set it.
    nlp = spacy_lal.load("en_lal_ewt")
    srl = nlp.get_pipe("lal_srl")

    def load(name, **kwargs):
        assert name == "en_lal_ewt" and not kwargs
        return nlp

    monkeypatch.setattr(spacy_lal, "load", load)
    parsed = []  # (lal_srl's decoder setting when the sentence was parsed, the Doc scored)
    parse = behaviour.parse

    def recording_parse(pipeline, words):
        cfg = pipeline.get_pipe("lal_srl").cfg
        setting = (cfg["decoder"], cfg["tree_penalty"])
        doc = parse(pipeline, words)
        parsed.append((setting, doc))
        return doc

    monkeypatch.setattr(behaviour, "parse", recording_parse)
    decoded_with = []  # the decoder argument of each batch the adapter decodes
    decode = SrlAdapter.decode_rows

    def recording_decode(self, *args, **kwargs):
        decoded_with.append(args[1] if len(args) > 1 else kwargs["decoder"])
        return decode(self, *args, **kwargs)

    monkeypatch.setattr(SrlAdapter, "decode_rows", recording_decode)

    docs = {}
    for decoder in ("tree", "unique_roles", "viterbi", "argmax"):
        srl.configure(decoder="viterbi" if decoder == "argmax" else "argmax", tree_penalty=2.0)
        parsed.clear()
        decoded_with.clear()
        # "tree" on the spans only (an infinite penalty), the others with the penalty as it was
        penalty = ["--srl-tree-penalty", "inf"] if decoder == "tree" else []
        assert cli(["behaviour", "--data", str(data), "--srl-decoder", decoder, *penalty, "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert [setting for setting, _ in parsed] == [(decoder, None if penalty else 2.0)] * len(rows)
        assert decoded_with and set(decoded_with) == {decoder}
        # The report printed is the checks evaluated on the Docs that decoder labelled.
        expected = [
            {"sentence": row["id"], "check": check, "reason": reason}
            for row, (_, doc) in zip(rows, parsed)
            for check in row["checks"]
            for passed, reason in [evaluate(doc, check)]
            if not passed
        ]
        assert report["failures"] == expected
        assert report["checks"] == 2 * len(rows) and report["passed"] == 2 * len(rows) - len(expected)
        docs[decoder] = [doc for _, doc in parsed]

    # Each decoder's defining property, on what it labelled. The arguments must exist for the
    # property to say something (every sentence has arguments of several words to find: a labeller
    # that finds none, or no core role, is broken, not better).
    tree_arguments = [a for doc in docs["tree"] for f in doc._.srl for a in f.arguments]
    assert any(len(a) > 1 for a in tree_arguments)
    assert all(doc._.trees for doc in docs["tree"])  # lal_parser's trees: what "tree" keeps to
    assert [off for doc in docs["tree"] for off in _arguments_off_the_tree(doc)] == []
    core = [a for doc in docs["unique_roles"] for f in doc._.srl for a in f.arguments if a.label_ in CORE_ROLES]
    assert core
    assert [r for doc in docs["unique_roles"] for r in _core_roles_repeated(doc)] == []

    srl.configure(decoder="viterbi", tree_penalty=None)
    assert cli(["behaviour", "--data", str(data), "--srl-decoder", "beam"]) == 1
    assert "decoder must be one of" in capsys.readouterr().err
    assert cli(["behaviour", "--data", str(data), "--srl-tree-penalty", "-1"]) == 1
    assert "tree_penalty must be a number >= 0" in capsys.readouterr().err
    assert (srl.cfg["decoder"], srl.cfg["tree_penalty"]) == ("viterbi", None)


# Shipped pipelines known to be under the bar, and by how much (docs/results.md, "Behavioural checks"):
# strict, so that the mark goes once one passes.
# None since session 28 (session 29's en_lal_ewt 93.9%, en_lal_ewt_trf 94.5%).
BELOW_BAR: dict = {}


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=BELOW_BAR[name])) if name in BELOW_BAR else name
    for name in spacy_lal.shipped_pipelines()
])
def test_shipped_pipeline_passes_nine_in_ten_checks(name):
    """Issue #17's bar: a shipped pipeline gets at least 90% of the behavioural checks right
    (``python -m spacy_lal behaviour --model NAME`` prints the failures). Run with ``-m slow``."""
    from spacy_lal.behaviour import run_checks

    if name.endswith("_trf"):
        pytest.importorskip("transformers")
    report = run_checks(spacy_lal.load(name), DATA)
    failures = "\n".join(f"{r.sentence}: {r.reason}" for r in report.failures())
    assert report.rate >= 0.9, f"{report.table()}\n{failures}"
