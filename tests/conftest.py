"""Shared fixtures: the tiny model configs, the gold sentences and Docs several test folders train
and check on, the training helpers, and a tiny lal_parser trained once per run.

Test modules never import each other (nor this file): whatever two of them share is here, as a
fixture. The data are session-scoped and shared, not copied: build on them (``{**tiny_parser,
"n_layers": 0}``), never change them in place.
"""
import os
from pathlib import Path
from typing import Callable, List, Tuple

# Never reach the Hugging Face hub: the transformer tests load the MiniLM stored in a package.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import pytest  # noqa: E402
import spacy  # noqa: E402
from spacy.language import Language  # noqa: E402
from spacy.tokens import Doc  # noqa: E402
from spacy.training import Example  # noqa: E402
from spacy.util import fix_random_seed  # noqa: E402

import spacy_lal  # noqa: E402,F401  (extensions)
from spacy_lal.doc.extensions import set_frames, set_tree  # noqa: E402
from spacy_lal.doc.frames import FrameData  # noqa: E402
from spacy_lal.doc.tree import Tree  # noqa: E402


# scripts/test_release.sh tests the installed package: a spacy_lal imported from the checkout
# would test code no user gets.
if os.environ.get("SPACY_LAL_INSTALLED") and Path(spacy_lal.__file__).resolve().parent == Path(__file__).resolve().parents[1] / "spacy_lal":
    raise pytest.UsageError(f"SPACY_LAL_INSTALLED is set but spacy_lal comes from the checkout: {spacy_lal.__file__}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """SPACY_LAL_STRICT_SKIPS=1 (the release check, hence CI): a skipped test fails, unless it
    needs a GPU. A missing optional dependency or pipeline must not turn a must into a skip."""
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("SPACY_LAL_STRICT_SKIPS") and report.skipped and item.get_closest_marker("gpu") is None:
        if not hasattr(report, "wasxfail"):
            report.outcome = "failed"
            report.longrepr = f"skipped under SPACY_LAL_STRICT_SKIPS: {report.longrepr}"


@pytest.fixture(scope="session")
def nlp() -> Language:
    """A blank English pipeline (tokenizer only)."""
    return spacy.blank("en")


@pytest.fixture(scope="session", autouse=True)
def one_torch_thread():
    """Every test runs torch on one thread: the tests' tensors are tiny, and intra-op threads only
    cost synchronisation there, 5-10x slower training steps on a loaded 2-core machine.
    (Subprocesses, such as the README's commands, keep torch's default.)"""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="session")
def shipped_labels() -> dict:
    """The label sets of the shipped en_lal_ewt's components, by behavioural check kind (their cfg
    files: no model loaded), for the behavioural sets' tests."""
    import json

    path = spacy_lal.pipeline_path("en_lal_ewt")
    parser, srl, tagger = (json.loads((path / name / "cfg").read_text()) for name in ("lal_parser", "lal_srl", "tagger"))
    spans = {label for chain in parser["span_labels"] for label in chain.split("::")}
    roles = {tag[2:] for tag in srl["labels"] if tag != "O"}
    return {"constituent": spans, "root_label": spans, "dependency": set(parser["dep_labels"]),
            "role": roles, "tag": set(tagger["labels"])}


@pytest.fixture(scope="session")
def everyday_texts() -> List[str]:
    """Six everyday sentences (a borrowing, a coordination, a question, ...) to parse with a
    shipped pipeline where any ordinary text will do."""
    return [
        "Mary borrowed a book from the library last week.",
        "The committee approved the plan, but the mayor vetoed it.",
        "I would like to know when the store opens on Sunday.",
        "Their new printer stopped working after two days.",
        "Can you send me the report before the meeting?",
        "We walked along the river until the sun went down.",
    ]


@pytest.fixture(scope="session")
def check_behaviour_sentence(shipped_labels) -> Callable:
    """``check_behaviour_sentence(s)``: what every behavioural sentence of any set must hold (its
    words spell its text, it has checks, every label is one the shipped pipeline knows, a
    dependency's head is itself exactly when it is the root)."""

    def check(s) -> None:
        assert "".join(s.words) == s.text.replace(" ", ""), s.id
        assert s.checks, s.id
        for c in s.checks:
            if c["kind"] in shipped_labels:
                assert c.get("label", c.get("tag")) in shipped_labels[c["kind"]], (s.id, c)
            if c["kind"] == "dependency":
                assert (c["head"] == c["token"]) == (c["label"] == "root"), (s.id, c)

    return check


# -- tiny models ---------------------------------------------------------------------------------

# A tiny tok2vec for overfitting tests, under every component's tiny model.
TINY_TOK2VEC = {
    "@architectures": "spacy.Tok2Vec.v2",
    "embed": {
        "@architectures": "spacy.MultiHashEmbed.v2",
        "width": 32,
        "attrs": ["ORTH", "SHAPE"],
        "rows": [500, 50],
        "include_static_vectors": False,
    },
    "encode": {
        "@architectures": "spacy.MaxoutWindowEncoder.v2",
        "width": 32,
        "depth": 1,
        "window_size": 1,
        "maxout_pieces": 2,
    },
}

TINY_PARSER = {
    "@architectures": "spacy-lal.LabelAttentionParser.v1",
    "d_model": 64,
    "n_layers": 1,
    "n_heads": 2,
    "d_kv": 16,
    "d_ff": 64,
    "lal_d_kv": 16,
    "lal_d_proj": 8,
    "d_span_hidden": 64,
    "d_arc": 64,
    "d_dep_label": 32,
    "dropout": 0.0,
    "max_length": 32,
    "tok2vec": TINY_TOK2VEC,
}

TINY_SRL = {
    "@architectures": "spacy-lal.SemanticRoleLabeler.v1",
    "n_layers": 1,
    "d_model": 32,
    "n_heads": 2,
    "d_ff": 64,
    "d_mask": 8,
    "dropout": 0.0,
    "d_head_hidden": 32,
    "max_length": 12,
    "tok2vec": TINY_TOK2VEC,
}


TINY_SPA = {
    "@architectures": "spacy-lal.SpaDependencyParser.v1",
    "encoder": "bot",
    "d_scan": 32,
    "d_rescan": 32,
    "d_label": 32,
    "d_hidden": 64,
    "dropout": 0.0,
    "max_length": 16,
    "tok2vec": TINY_TOK2VEC,
}


@pytest.fixture(scope="session")
def tiny_tok2vec() -> dict:
    """A tiny spacy.Tok2Vec.v2 (width 32) config."""
    return TINY_TOK2VEC


@pytest.fixture(scope="session")
def tiny_parser() -> dict:
    """A tiny spacy-lal.LabelAttentionParser.v1 config (lal_parser, lal_dependency_parser)."""
    return TINY_PARSER


@pytest.fixture(scope="session")
def tiny_spa() -> dict:
    """A tiny spacy-lal.SpaDependencyParser.v1 config (lal_spa_parser; BoT-SPA, add "parsing")."""
    return TINY_SPA


@pytest.fixture(scope="session")
def tiny_srl() -> dict:
    """A tiny spacy-lal.SemanticRoleLabeler.v1 config (lal_srl), max_length 12."""
    return TINY_SRL


# -- the parser's gold sentences -----------------------------------------------------------------

# (PTB tree, UD heads (1-based, 0 = root), UD deprels)
PARSER_SENTENCES = [
    (
        "(S (NP (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))) (. .))",
        [2, 3, 0, 6, 6, 3, 3],
        ["det", "nsubj", "root", "case", "det", "obl", "punct"],
    ),
    ("(S (NP (NNS Dogs)) (VP (VBP bark)) (. .))", [2, 0, 2], ["nsubj", "root", "punct"]),
    ("(S (VP (VB Go) (ADVP (RB home))) (. !))", [0, 1, 1], ["root", "advmod", "punct"]),
    ("(TOP (INTJ (UH Hello)))", [0], ["root"]),
    (
        "(S (NP (PRP I)) (VP (VBD saw) (NP (PRP$ her) (NN duck))))",
        [2, 0, 4, 2],
        ["nsubj", "root", "nmod:poss", "obj"],
    ),
]


def _parser_gold_doc(vocab, bracketed: str, heads: List[int], deps: List[str]) -> Doc:
    tree = Tree.from_string(bracketed).normalize()
    words, tags = tree.words(), tree.tags()
    doc = Doc(
        vocab,
        words=words,
        tags=tags,
        heads=[i if h == 0 else h - 1 for i, h in enumerate(heads)],
        deps=deps,
        sent_starts=[True] + [False] * (len(words) - 1),
    )
    set_tree(doc[:], tree.to_spans())
    return doc


def _parser_examples(nlp: Language) -> List[Example]:
    examples = []
    for bracketed, heads, deps in PARSER_SENTENCES:
        reference = _parser_gold_doc(nlp.vocab, bracketed, heads, deps)
        examples.append(Example(Doc(nlp.vocab, words=[t.text for t in reference]), reference))
    return examples


def _train_parser(factory: str, n_iter: int = 150, **config) -> Tuple[Language, List[Example]]:
    nlp = spacy.blank("en")
    nlp.add_pipe(factory, config={"model": TINY_PARSER, **config})
    examples = _parser_examples(nlp)
    optimizer = nlp.initialize(lambda: examples)
    optimizer.learn_rate = 0.003
    for _ in range(n_iter):
        nlp.update(examples, sgd=optimizer)
    return nlp, examples


def _parse_words(nlp: Language, examples: List[Example]) -> List[Doc]:
    return list(nlp.pipe(Doc(nlp.vocab, words=[t.text for t in eg.reference]) for eg in examples))


@pytest.fixture(scope="session")
def parser_sentences() -> list:
    """Five gold sentences: (PTB tree, UD heads (1-based, 0 = root), UD deprels); the first is
    "The cat sat on the mat .", the second "Dogs bark ."."""
    return PARSER_SENTENCES


@pytest.fixture(scope="session")
def parser_gold_doc() -> Callable[..., Doc]:
    """``parser_gold_doc(vocab, bracketed, heads, deps)``: a one-sentence Doc with the tree's tags,
    the dependencies and the tree."""
    return _parser_gold_doc


@pytest.fixture(scope="session")
def parser_examples() -> Callable[[Language], List[Example]]:
    """``parser_examples(nlp)``: Examples of the parser sentences (words only on the predicted side)."""
    return _parser_examples


@pytest.fixture(scope="session")
def train_parser() -> Callable[..., Tuple[Language, List[Example]]]:
    """``train_parser(factory, n_iter=150, **config)``: a blank pipeline with ``factory`` on the tiny
    parser model, overfitted on the parser sentences; returns ``(nlp, examples)``."""
    return _train_parser


@pytest.fixture(scope="session")
def parse_words() -> Callable[[Language, List[Example]], List[Doc]]:
    """``parse_words(nlp, examples)``: the examples' words, parsed by ``nlp``."""
    return _parse_words


@pytest.fixture(scope="session")
def trained_parser() -> Tuple[Language, List[Example]]:
    """A tiny lal_parser overfitted on the parser sentences (150 steps), trained once per run:
    ``(nlp, examples)``. Shared by several modules: a test that changes a setting of the
    pipeline restores it."""
    fix_random_seed(0)
    return _train_parser("lal_parser")


# -- the role labeller's gold sentences ----------------------------------------------------------

# (words, [(predicate, roleset, [(start, end, role), ...]), ...])
SRL_SENTENCES = [
    (
        "The man who saw the dog left .".split(),
        [
            (3, "see.01", [(0, 2, "ARG0"), (2, 3, "R-ARG0"), (4, 6, "ARG1")]),
            (6, "leave.11", [(0, 6, "ARG0")]),
        ],
    ),
    (
        "The results , he said , were good .".split(),
        [
            (4, "say.01", [(0, 2, "ARG1"), (3, 4, "ARG0"), (6, 8, "C-ARG1")]),
            (6, "be.01", [(0, 2, "ARG1"), (7, 8, "ARG2")]),
        ],
    ),
    (
        "Mary borrowed a book from John yesterday .".split(),
        [(1, "borrow.01", [(0, 1, "ARG0"), (2, 4, "ARG1"), (4, 6, "ARG2"), (6, 7, "ARGM-TMP")])],
    ),
    ("His decision surprised us .".split(), [(1, "decide.01", [(0, 1, "ARG0")]), (2, "surprise.01", [(0, 2, "ARG0"), (3, 4, "ARG1")])]),
    ("Hello there !".split(), []),
    ("He picked it up again .".split(), [(1, "pick_up.06", [(0, 1, "ARG0"), (2, 3, "ARG1"), (3, 4, "C-V"), (4, 5, "ARGM-TMP")])]),
]


def _srl_gold_doc(vocab, words: List[str], frames) -> Doc:
    doc = Doc(vocab, words=words, sent_starts=[True] + [False] * (len(words) - 1))
    set_frames(doc, [FrameData(p, sense, tuple(args)) for p, sense, args in frames])
    return doc


def _srl_examples(vocab) -> List[Example]:
    return [Example(Doc(vocab, words=words), _srl_gold_doc(vocab, words, frames)) for words, frames in SRL_SENTENCES]


@pytest.fixture(scope="session")
def srl_sentences() -> list:
    """Six gold sentences: (words, [(predicate, roleset, [(start, end, role), ...]), ...]); the
    third is "Mary borrowed a book from John yesterday ."."""
    return SRL_SENTENCES


@pytest.fixture(scope="session")
def srl_gold_doc() -> Callable[..., Doc]:
    """``srl_gold_doc(vocab, words, frames)``: a one-sentence Doc with these frames."""
    return _srl_gold_doc


@pytest.fixture(scope="session")
def srl_examples() -> Callable[..., List[Example]]:
    """``srl_examples(vocab)``: Examples of the role labeller's sentences."""
    return _srl_examples


# -- EWT sentences with dependencies -------------------------------------------------------------


@pytest.fixture(scope="session")
def ewt_sentences() -> list:
    """Five EWT-style sentences: words, heads (1-based, 0 = ROOT), UD labels; all projective."""
    return [
        ("Bush nominated Jenkins .".split(), [2, 0, 2, 2], ["nsubj", "root", "obj", "punct"]),
        ("The cat sat on the mat .".split(), [2, 3, 0, 6, 6, 3, 3],
         ["det", "nsubj", "root", "case", "det", "obl", "punct"]),
        ("I love you .".split(), [2, 0, 2, 2], ["nsubj", "root", "obj", "punct"]),
        ("What if Google morphed into GoogleOS ?".split(), [0, 4, 4, 1, 6, 4, 1],
         ["root", "mark", "nsubj", "advcl", "case", "obl", "punct"]),
        ("They wanted to leave early but could not .".split(), [2, 0, 4, 2, 4, 7, 2, 7, 2],
         ["nsubj", "root", "mark", "xcomp", "advmod", "cc", "conj", "advmod", "punct"]),
    ]


# -- a tok2vec shared with spaCy's tagger --------------------------------------------------------


def _gradients_to_a_shared_tok2vec(factory: str, model: dict, examples_of) -> dict:
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config={"model": TINY_TOK2VEC})
    listener = {"@architectures": "spacy.Tok2VecListener.v1", "width": 32, "upstream": "tok2vec"}
    nlp.add_pipe("tagger", config={"model": {"@architectures": "spacy.Tagger.v2", "tok2vec": listener}})
    nlp.add_pipe(factory, config={"model": {**model, "tok2vec": listener}})
    examples = examples_of(nlp)
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(5):
        nlp.update(examples, sgd=optimizer)
    squared_norms = {}
    for name in ("tagger", factory):
        losses = {}
        # Tok2Vec records the squared norm of each gradient its listeners send as its loss.
        nlp.update(examples, sgd=optimizer, losses=losses, exclude=[n for n in ("tagger", factory) if n != name])
        squared_norms[name] = losses["tok2vec"]
    return squared_norms


@pytest.fixture(scope="session")
def gradients_to_a_shared_tok2vec() -> Callable[[str, dict, Callable], dict]:
    """``gradients_to_a_shared_tok2vec(factory, model, examples_of)``: the squared norms of the
    gradients spaCy's tagger and a ``factory`` component with ``model``, both listening to one
    tiny tok2vec, send it in an update on ``examples_of(nlp)``, after five updates (the tagger's
    output layer starts at zero)."""
    return _gradients_to_a_shared_tok2vec
