"""Constrained decoding in the components: lal_parser's `constraints` (doc.ents, span groups,
per-call spans) and lal_srl's "tree" and "unique_roles" decoders, on the unit mapping and on the
shipped pipeline. The shipped pipeline's tests check what each mechanism promises whatever the
models get right (a better model must pass them), on inputs built to make the mechanism act."""
import logging
import re
from collections import Counter
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc, Span

import spacy_lal
from spacy_lal.decode import CORE_ROLES
from spacy_lal.doc.api import NotAConstituentError
from spacy_lal.evaluation import arguments_on_tree
from spacy_lal.pipeline.constraints import check_constraints, constrain_units, unit_spans
from spacy_lal.pipeline.units import Unit
from spacy_lal.pretrained import shipped_pipelines

TEXT = "The old man saw the boy with the telescope in New York City yesterday."
CITY = (10, 12)  # "New York"
BANK_TEXT = "She works for the Bank of America in Charlotte."


def crosses(a, b) -> bool:
    return a[0] < b[0] < a[1] < b[1] or b[0] < a[0] < b[1] < a[1]


def constituents(doc):
    """(start, end) of every labelled constituent of the Doc's trees, in Doc offsets."""
    return [(c.start, c.end) for sent in doc.sents for c in [sent, *sent._.constituents] if c._.labels]


def conflicting_spans(doc, avoid=()):
    """Spans of the first sentence of a parsed Doc that its parse does not have, found from that
    parse (whatever the parser made of the sentence), shortest and leftmost first, each with a
    labelled constituent of the parse it crosses (None if it crosses none: a span of several
    words that is no constituent, as every one is under a flat tree). None crosses a span of
    ``avoid`` or is one. Those crossing a constituent come first: a constraint on one of them
    must change that bracket."""
    sent = next(doc.sents)
    have = constituents(doc)
    found = []
    for length in range(2, len(sent)):
        for start in range(sent.start, sent.end - length + 1):
            span = (start, start + length)
            if span in have or span in avoid or any(crosses(span, a) for a in avoid):
                continue
            found.append((span, next((c for c in have if crosses(span, c)), None)))
    return sorted(found, key=lambda pair: pair[1] is None)


# ----------------------------------------------------------------------------- the unit mapping


def test_spans_map_to_unit_words_and_bad_ones_are_dropped_with_a_warning(caplog):
    nlp = spacy.blank("en")
    # Tokens: 0 A, 1 "  " (whitespace), 2 b, 3 c, 4 ., | 5 D, 6 e, 7 f, 8 g, 9 h (a long sentence)
    words = ["A", "  ", "b", "c", ".", "D", "e", "f", "g", "h"]
    doc = Doc(nlp.vocab, words=words, spaces=[False] * 10, sent_starts=[1, 0, 0, 0, 0, 1, 0, 0, 0, 0])
    # The second sentence in two pieces, (5, 9) and (9, 10).
    units = [Unit(0, 0, 5, (0, 2, 3, 4)), Unit(0, 5, 9, (5, 6, 7, 8)), Unit(0, 9, 10, (9,), 1)]
    wanted = [{
        "require": [(0, 3), (2, 4), (4, 6), (1, 2), (6, 8), (8, 10), (9, 10), (9, 12)],
        "no_cross": [(2, 5), (0, 2), (5, 7)],
    }]
    with caplog.at_level(logging.WARNING, logger="spacy_lal"):
        require, no_cross = constrain_units("p", [doc], units, wanted)
    # (0, 3) = words A b (positions 0..1): whitespace token 1 is no word.
    assert require == [[(0, 2)], [(1, 3)], [(0, 1)]]
    assert no_cross == [[(0, 1)], [], []]
    message = caplog.text
    assert "require (2, 4) 'bc' in Doc 0: crosses the kept span (0, 3) 'A  b'" in message
    assert "require (4, 6) '.D' in Doc 0: crosses a sentence boundary" in message
    assert "require (1, 2) '  ' in Doc 0: covers whitespace tokens only" in message
    assert "require (8, 10) 'gh' in Doc 0: crosses a sentence boundary (or the boundary of a piece" in message
    assert "require (9, 12) in Doc 0: outside the Doc of 10 tokens" in message
    assert "no_cross (2, 5) 'bc.' in Doc 0: crosses the kept span (0, 3)" in message
    assert "no_cross (5, 7) 'De' in Doc 0: crosses the kept span (6, 8) 'ef'" in message
    assert "7 constraint span(s) cannot hold" in message
    # The SRL's argument spans: the same mapping, silently left out where they do not fit.
    assert unit_spans([doc], units, [[(0, 3), (4, 6), (8, 10), (9, 10)]]) == [[(0, 2)], [], [(0, 1)]]


def test_constraints_setting_is_checked():
    assert check_constraints("p", {"require": ["ents"]}) == {"require": ["ents"], "no_cross": []}
    assert check_constraints("p", None) == {"require": [], "no_cross": []}
    with pytest.raises(ValueError, match="unknown keys"):
        check_constraints("p", {"required": ["ents"]})
    with pytest.raises(ValueError, match="unknown span source 'entities'"):
        check_constraints("p", {"require": ["entities"]})
    with pytest.raises(ValueError, match="a list of sources, got the string"):
        check_constraints("p", {"no_cross": "ents"})
    with pytest.raises(ValueError, match="unknown span source 'tree'"):  # SRL only
        check_constraints("p", {"require": ["tree"]})


# ----------------------------------------------------------------------------- the shipped pipeline

shipped = pytest.mark.skipif("en_lal_ewt" not in shipped_pipelines(), reason="the shipped pipeline is not built")


@pytest.fixture(scope="module")
def nlp():
    return spacy_lal.load()


def with_city(nlp):
    doc = nlp.make_doc(TEXT)
    doc.ents = [Span(doc, *CITY, label="GPE")]
    return doc


def with_ents(nlp, text, spans, label="ORG"):
    doc = nlp.make_doc(text)
    doc.ents = [Span(doc, start, end, label=label) for start, end in spans]
    return doc


def assert_heads_follow_the_tree(doc):
    """Every constituent has exactly one word whose head lies outside it (or is the root): the
    dependencies are lexical heads of the tree."""
    for start, end in constituents(doc):
        outside = [t for t in doc[start:end] if t.head == t or not start <= t.head.i < end]
        assert len(outside) == 1, (doc[start:end].text, [t.text for t in outside])


@shipped
@pytest.mark.parametrize("decoder", ["joint", "eisner"])
def test_ents_become_constituents(nlp, decoder):
    """An entity the unconstrained parse does not have as a constituent (chosen from that parse:
    one crossing one of its brackets; under a flat tree, any span of several words) is a
    labelled constituent once ``require = ["ents"]``, and the bracket it crossed is gone."""
    parser = nlp.get_pipe("lal_parser")
    parser.set_decoder(decoder)
    try:
        plain = nlp(with_ents(nlp, BANK_TEXT, []))
        (ent, crossed), *_ = conflicting_spans(plain)
        with pytest.raises(NotAConstituentError):
            plain[ent[0] : ent[1]]._.labels
        unconstrained = nlp(with_ents(nlp, BANK_TEXT, [ent]))  # the setting is off: ents change nothing
        parser.set_constraints(require=["ents"])
        doc = nlp(with_ents(nlp, BANK_TEXT, [ent]))
    finally:
        parser.set_constraints(require=[], no_cross=[])
        parser.set_decoder("joint")
    assert constituents(unconstrained) == constituents(plain)
    assert [(e.start, e.end) for e in doc.ents] == [ent]
    assert doc[ent[0] : ent[1]]._.labels  # a labelled constituent
    have = constituents(doc)
    assert crossed not in have and not any(crosses(ent, c) for c in have)  # crossed None: flat
    if decoder == "joint":
        assert_heads_follow_the_tree(doc)


@shipped
def test_no_cross_and_per_call_constraints(nlp, caplog):
    """Constraints chosen against the unconstrained parse (whatever it is): a no_cross span
    crossing one of its brackets removes that bracket; two required spans it lacks become
    labelled constituents; a per-call span crossing a configured one wins."""
    parser = nlp.get_pipe("lal_parser")
    plain = nlp(TEXT)
    (forbidden, crossed), *_ = conflicting_spans(plain)
    # no_cross can only remove brackets: a parse with none under its root (no sensible parse of
    # this sentence) would leave it nothing to do.
    assert crossed is not None, plain._.tree
    with parser.constrained(no_cross=[forbidden]):
        doc = nlp(TEXT)
    assert parser._call_constraints == []  # the block is over
    have = constituents(doc)
    assert crossed not in have and not any(crosses(forbidden, c) for c in have)
    assert constituents(nlp(TEXT)) == constituents(plain)  # the block's constraint is gone with it
    # Two spans the unconstrained parse lacks, not crossing each other, both required.
    (other, _), *_ = conflicting_spans(plain, avoid=[forbidden])
    assert other != forbidden and not crosses(other, forbidden) and other not in constituents(plain)
    doc = spacy_lal.parse_with_constraints(nlp, TEXT, require=[forbidden, other])
    have = constituents(doc)
    assert forbidden in have and other in have and crossed not in have
    assert doc[forbidden[0] : forbidden[1]]._.labels and doc[other[0] : other[1]]._.labels
    assert_heads_follow_the_tree(doc)
    assert parser._call_constraints == []
    # Crossing spans: the per-call one wins, the configured one is dropped and named.
    parser.set_constraints(require=["ents"])
    try:
        with caplog.at_level(logging.WARNING, logger="spacy_lal"):
            doc = spacy_lal.parse_with_constraints(nlp, with_city(nlp), require=[(9, 11)])
    finally:
        parser.set_constraints(require=[])
    assert "require (10, 12) 'New York' in Doc 0: crosses the kept span (9, 11) 'in New'" in caplog.text
    assert doc[9:11]._.labels and CITY not in constituents(doc)
    with pytest.raises(ValueError, match="not a constituency lal_parser"):
        spacy_lal.parse_with_constraints(nlp, TEXT, component="tagger")


@shipped
def test_inconsistent_constraints_never_crash(nlp, caplog):
    text = "Mary lives in Paris.  She likes New York."
    doc = nlp.make_doc(text)
    space = next(t.i for t in doc if t.is_space)
    doc.spans["mine"] = [doc[3:7], doc[space : space + 1], doc[7:10]]  # "Paris .  She" crosses sentences
    with caplog.at_level(logging.WARNING, logger="spacy_lal"):
        with nlp.get_pipe("lal_parser").constrained(require=[(0, 40)]):
            parsed = spacy_lal.parse_with_constraints(nlp, doc, no_cross=doc.spans["mine"])
    assert "crosses a sentence boundary" in caplog.text
    assert "covers whitespace tokens only" in caplog.text
    assert "outside the Doc" in caplog.text
    assert len(parsed._.trees) == 2
    assert parsed[7:10]._.labels is not None  # "She likes New": kept as no_cross, so a node...
    assert not any(crosses((7, 10), c) for c in constituents(parsed))


@shipped
def test_constraints_setting_is_saved_and_restored(nlp, tmp_path):
    path = spacy_lal.pipeline_path()
    setting = {"require": ["ents"], "no_cross": ["spans:mine"]}
    # A pipeline saved with this version has the setting's section in its config, so a load can
    # override it.
    nlp.to_disk(tmp_path / "saved")
    assert spacy.load(tmp_path / "saved").config["components"]["lal_parser"]["constraints"]["require"] == []
    loaded = spacy.load(tmp_path / "saved", config={"components": {"lal_parser": {"constraints": setting}}})
    assert loaded.get_pipe("lal_parser").cfg["constraints"] == setting
    loaded.to_disk(tmp_path / "p")
    again = spacy.load(tmp_path / "p")
    assert again.get_pipe("lal_parser").cfg["constraints"] == setting
    doc = again(with_city(again))
    assert doc[CITY[0] : CITY[1]]._.labels
    assert spacy.load(path).get_pipe("lal_parser").cfg["constraints"] == {"require": [], "no_cross": []}


# ----------------------------------------------------------------------------- SRL


def labelled_with(nlp, decoder: str, text: str, tree_penalty=None):
    """``text`` through the shipped pipeline with lal_srl's ``decoder`` and ``tree_penalty``
    (None: decoder "tree" keeps every argument on the spans), its own settings restored."""
    srl = nlp.get_pipe("lal_srl")
    own = {key: srl.cfg[key] for key in ("decoder", "tree_penalty")}
    try:
        srl.configure(decoder=decoder, tree_penalty=tree_penalty)
        return nlp(text)
    finally:
        srl.configure(**own)


# Everyday sentences with arguments of several words (whatever a labeller makes of them).
SRL_TEXTS = [
    "Mary borrowed a book from the library last week.",
    "The committee approved the new plan, but the mayor vetoed it.",
    "But he has insisted that he wants nuclear power for peaceful purposes.",
    "We pointed out to the PX that there was excess credit.",
    "Their new printer stopped working after two days.",
]


def arguments(doc):
    return [(a.start, a.end) for f in doc._.srl for a in f.arguments]


def assert_arguments_in_the_tree(doc):
    """Every argument of ``doc`` is one word or a labelled constituent of its tree."""
    trees = set(constituents(doc))
    outside = [doc[s:e].text for s, e in arguments(doc) if e - s > 1 and (s, e) not in trees]
    assert not outside, (outside, doc._.tree)


@shipped
def test_srl_tree_decoder_keeps_arguments_inside_the_tree(nlp, caplog):
    """What decoder "tree" promises, whatever the models get right: every argument is one word or
    a constituent of the Doc's tree, on everyday sentences (with arguments of several words), and
    on a tree made to lack an argument the free decoder gives (so the decoder must act)."""
    docs = [labelled_with(nlp, "tree", text) for text in SRL_TEXTS]
    for doc in docs:
        assert_arguments_in_the_tree(doc)
    assert any(e - s > 1 for doc in docs for s, e in arguments(doc))  # not only single words
    # A tree that cannot have the free (BIO Viterbi) decoder's first argument of several words:
    # a no_cross constraint on the parser crossing that argument's first word.
    text = SRL_TEXTS[0]
    free = labelled_with(nlp, "viterbi", text)
    start, end = next((s, e) for s, e in arguments(free) if e - s > 1)
    crossing = (start - 1, start + 1) if start > 0 else (end - 1, end + 1)
    with nlp.get_pipe("lal_parser").constrained(no_cross=[crossing]):
        doc = labelled_with(nlp, "tree", text)
    assert (start, end) not in constituents(doc)
    assert_arguments_in_the_tree(doc)
    assert (start, end) not in arguments(doc)
    # Without a tree: BIO Viterbi, one warning per call.
    srl = nlp.get_pipe("lal_srl")
    two_sentences = "But he has insisted that he wants nuclear power for peaceful purposes. He said they left."
    own = dict(srl.cfg)
    srl.configure(decoder="tree", tree_penalty=None)
    try:
        with nlp.select_pipes(disable=["lal_parser"]):
            with caplog.at_level(logging.WARNING, logger="spacy_lal"):
                fallback = nlp(two_sentences)
            srl.set_decoder("viterbi")
            viterbi = nlp(two_sentences)
    finally:
        srl.configure(decoder=own["decoder"], tree_penalty=own["tree_penalty"])
    assert caplog.text.count("decoder 'tree': 2 of 2 sentences have no spans") == 1
    assert [f.data for f in fallback._.srl] == [f.data for f in viterbi._.srl]


def core_roles(frame_data):
    return Counter(label for _, _, label in frame_data.arguments if label in CORE_ROLES)


@shipped
def test_srl_unique_roles_decoder_never_repeats_a_core_role(nlp):
    """Decoder "unique_roles" never gives a frame a core role twice, on everyday sentences and
    on scores made to repeat one (ARG1 raised at two words: BIO Viterbi takes both); a frame
    that BIO Viterbi gives no repeated core role it leaves as BIO Viterbi has it."""
    for text in SRL_TEXTS:
        free, doc = (labelled_with(nlp, decoder, text) for decoder in ("viterbi", "unique_roles"))
        assert [f.data.predicate for f in doc._.srl] == [f.data.predicate for f in free._.srl]
        for before, after in zip(free._.srl, doc._.srl):
            assert all(n == 1 for n in core_roles(after.data).values()), str(after)
            if all(n == 1 for n in core_roles(before.data).values()):
                assert after.data == before.data
    # Scores that repeat ARG1: the labeller's output layer raised for B-ARG1 at "Mary" and "week"
    # in the frame of "borrowed" (given as the only predicate).
    text, predicate, raised = SRL_TEXTS[0], 1, [0, 8]
    adapter = nlp.get_pipe("lal_srl").torch_module
    b_arg1 = adapter.scheme.index["B-ARG1"]

    def raise_arg1(module, inputs, output):
        output = output.clone()
        output[:, raised, b_arg1] += 50.0
        return output

    hook = adapter.tagger.output.register_forward_hook(raise_arg1)
    try:
        forced = {}
        for decoder in ("viterbi", "unique_roles"):
            doc = nlp.make_doc(text)
            spacy_lal.mark_predicates(doc, [predicate])
            forced[decoder] = labelled_with(nlp, decoder, doc)
    finally:
        hook.remove()
    (free,), (frame,) = forced["viterbi"]._.srl, forced["unique_roles"]._.srl
    assert free.data.predicate == frame.data.predicate == predicate
    assert core_roles(free.data)["ARG1"] >= 2  # the raised scores bite
    assert all(n == 1 for n in core_roles(frame.data).values()), str(frame)


@shipped
def test_srl_tree_penalty_runs_from_viterbi_to_the_tree(nlp):
    """``tree_penalty`` 0 charges nothing for an argument off the tree (BIO Viterbi's frames), a
    huge one charges more than any score difference (the hard "tree" decoder's frames), on the
    everyday sentences and on a tree made to lack an argument the free decoder gives."""
    text = SRL_TEXTS[0]
    free = labelled_with(nlp, "viterbi", text)
    start, end = next((s, e) for s, e in arguments(free) if e - s > 1)
    crossing = (start - 1, start + 1) if start > 0 else (end - 1, end + 1)
    with nlp.get_pipe("lal_parser").constrained(no_cross=[crossing]):
        lacking = {penalty: labelled_with(nlp, "tree", text, penalty) for penalty in (0.0, 1e9, None)}
        lacking["viterbi"] = labelled_with(nlp, "viterbi", text)
    assert (start, end) in arguments(lacking[0.0]) and (start, end) not in arguments(lacking[1e9])
    assert arguments_on_tree([lacking["viterbi"]]) < 1.0 == arguments_on_tree([lacking[None]])
    for docs in [lacking] + [{p: labelled_with(nlp, "tree", t, p) for p in (0.0, 1e9, None)} for t in SRL_TEXTS[1:]]:
        viterbi = docs.get("viterbi") or labelled_with(nlp, "viterbi", docs[None].text)
        assert [f.data for f in docs[0.0]._.srl] == [f.data for f in viterbi._.srl]
        assert [f.data for f in docs[1e9]._.srl] == [f.data for f in docs[None]._.srl]
    with pytest.raises(ValueError, match="tree_penalty must be a number >= 0"):
        nlp.get_pipe("lal_srl").configure(tree_penalty=-1)


@shipped
def test_srl_user_spans_and_settings_round_trip(nlp):
    srl = nlp.get_pipe("lal_srl")
    text = "The old man saw the boy with the telescope."
    doc = nlp.make_doc(text)
    allowed = [(0, 3), (4, 6)]
    doc.spans["args"] = [doc[s:e] for s, e in allowed]
    own = {key: srl.cfg[key] for key in ("decoder", "argument_spans", "tree_penalty")}
    srl.configure(decoder="tree", argument_spans=["spans:args"], tree_penalty=None)
    try:
        with nlp.select_pipes(disable=["lal_parser"]):
            doc = nlp(doc)
    finally:
        srl.configure(**own)
    args = [(a.start, a.end) for f in doc._.srl for a in f.arguments]
    assert (4, 6) in args  # the span the user allowed, not only single words
    assert all(e - s == 1 or (s, e) in allowed for s, e in args)
    with pytest.raises(ValueError, match="unknown span source"):
        srl.set_decoder("tree", argument_spans=["constituents"])
    with pytest.raises(ValueError, match="decoder must be one of"):
        srl.set_decoder("beam")
    config = {"components": {"lal_srl": {"decoder": "tree", "argument_spans": ["tree", "ents"], "tree_penalty": 1.5}}}
    loaded = spacy.load(spacy_lal.pipeline_path(), config=config)
    assert loaded.get_pipe("lal_srl").cfg["decoder"] == "tree"
    assert loaded.get_pipe("lal_srl").cfg["tree_penalty"] == 1.5
    assert loaded.get_pipe("lal_srl").cfg["argument_spans"] == ["tree", "ents"]
    assert loaded.config["components"]["lal_srl"]["argument_spans"] == ["tree", "ents"]  # what to_disk saves


README_EXAMPLE = re.compile(
    r'text = "(?P<text>[^"]+)"\n'
    r"nlp\(text\)\[(?P<start>\d+):(?P<end>\d+)\]\._\.labels .*\n"
    r"doc = spacy_lal\.parse_with_constraints\(nlp, text, require=\[\((?P=start), (?P=end)\)\]\)\n"
    r"print\(doc\[(?P=start):(?P=end)\]\._\.labels\) +# \('[A-Z]+',\): (?P<tree>.+)\n"
)


@shipped
def test_the_readme_example_changes_the_tree(nlp):
    """The README's example (read from the README): the span it requires is a labelled constituent
    of the constrained parse, with the rest of the sentence parsed around it. Whether the
    unconstrained parse already has it depends on the model, so the constraint's effect is checked
    on a span that parse lacks, found from it: that span is a constituent once required."""
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf8")
    example = README_EXAMPLE.search(readme)
    assert example, "the README's constrained-parsing example has changed: update this test"
    text, span = example["text"], (int(example["start"]), int(example["end"]))
    doc = spacy_lal.parse_with_constraints(nlp, text, require=[span])
    assert [t.text for t in doc] == text.replace(".", " .").split()
    assert doc[span[0] : span[1]]._.labels  # a labelled constituent, as the README prints
    readme_words = re.findall(r"\(\S+ ([^()\s]+)\)", example["tree"])
    assert doc[span[0] : span[1]].text.split() == readme_words[span[0] : span[1]]  # the README's tree
    have = constituents(doc)
    assert span in have and not any(crosses(span, c) for c in have)
    assert_heads_follow_the_tree(doc)
    # The constraint at work: a span the unconstrained parse of the sentence lacks (crossing one of
    # its brackets if it has any under the root) is a labelled constituent of the constrained one.
    plain = nlp(text)
    (lacking, crossed), *_ = conflicting_spans(plain)
    doc = spacy_lal.parse_with_constraints(nlp, text, require=[lacking])
    have = constituents(doc)
    assert lacking in have and doc[lacking[0] : lacking[1]]._.labels
    assert crossed not in have and not any(crosses(lacking, c) for c in have)
