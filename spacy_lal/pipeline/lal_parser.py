"""``lal_parser`` and ``lal_dependency_parser``: the trainable label-attention parsers.

One component class serves both factories: ``lal_parser`` predicts constituency trees (CKY over
span scores, hinge loss; Mrini et al. eq. 5-9) and, by default, dependencies (biaffine arcs with
Eisner or Chu-Liu-Edmonds; eq. 10-11), trained jointly (eq. 12); ``lal_dependency_parser``
predicts dependencies only.

What the component does with awkward input (see also ``units.py``):
- It parses ``doc.sents`` where sentence boundaries are set, else the whole Doc as one sentence.
- Whitespace tokens are not shown to the model: each is attached to the nearest preceding word
  of its sentence (the following one at the start) with the label ``dep`` and, in the tree, sits
  inside the smallest constituent spanning its neighbours.
- Sentences longer than the model's ``max_length`` words are parsed in pieces (a warning is
  logged); the root of each later piece is attached to the first piece's root with ``dep``.
- Empty Docs and Docs of whitespace only get no tree and keep their tokens unattached.
- Gold labels not seen at ``initialize`` are trained as "no constituent" / skipped, and counted
  in a warning.
"""
import logging
from collections import Counter
from typing import TYPE_CHECKING, Callable, Dict, Iterable, List, NamedTuple, Optional, Tuple

import numpy
from spacy.attrs import DEP, HEAD
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc
from spacy.training import Example, validate_examples, validate_get_examples
from spacy.vocab import Vocab
from thinc.api import Config, Model, Optimizer

from ..extensions import clear_trees, set_tree
from ..pretrained import DEFAULT_PIPELINE
from .gold import (
    EMPTY,
    ROOT_ONLY,
    chain_to_label,
    dependency_target,
    gold_trees_by_start,
    label_to_chain,
    stored_trees,
    training_sentences,
    tree_target,
)
from .torch_bridge import BuildsTorchLayerOnLoad
from .units import Unit, make_units

if TYPE_CHECKING:
    from .parser_model import ParserTargets

logger = logging.getLogger("spacy_lal")

ATTACH_LABEL = "dep"  # label of attachments the model does not predict (see module docstring)

DEFAULT_TOK2VEC = """
[tok2vec]
@architectures = "spacy.Tok2Vec.v2"

[tok2vec.embed]
@architectures = "spacy.MultiHashEmbed.v2"
width = 128
attrs = ["NORM", "PREFIX", "SUFFIX", "SHAPE"]
rows = [5000, 1000, 2500, 2500]
include_static_vectors = false

[tok2vec.encode]
@architectures = "spacy.MaxoutWindowEncoder.v2"
width = 128
depth = 2
window_size = 1
maxout_pieces = 3
"""

# ``nlp.add_pipe("lal_parser")`` starts from the shipped English parser (``pretrained.py``);
# ``UNTRAINED_PARSER_MODEL`` is the architecture a config trains from scratch.
PRETRAINED_PARSER_MODEL = {
    "@architectures": "spacy-lal.Pretrained.v1",
    "pipeline": DEFAULT_PIPELINE,
    "component": "lal_parser",
}
UNTRAINED_PARSER_MODEL = Config().from_str(
    """
[model]
@architectures = "spacy-lal.LabelAttentionParser.v1"
"""
    + DEFAULT_TOK2VEC.replace("[tok2vec", "[model.tok2vec")
)["model"]


class Parses(NamedTuple):
    """What ``predict`` returns: per unit, the decoded spans (k, 3) and heads/labels of words."""

    units: List[Unit]
    spans: List[Optional[numpy.ndarray]]
    heads: List[Optional[numpy.ndarray]]
    dep_labels: List[Optional[numpy.ndarray]]


@Language.factory(
    "lal_parser",
    assigns=["token.head", "token.dep", "token.is_sent_start", "doc.sents", "token._.lal_tree"],
    default_config={
        "model": PRETRAINED_PARSER_MODEL,
        "dependencies": True,
        "dependency_decoder": "eisner",
        "joint_weight": 1.0,
        "scorer": {"@scorers": "spacy-lal.parser_scorer.v1"},
    },
    default_score_weights={
        "tree_f": 0.5,
        "dep_las": 0.5,
        "tree_p": 0.0,
        "tree_r": 0.0,
        "dep_uas": 0.0,
    },
)
def make_lal_parser(
    nlp: Language,
    name: str,
    model: Model,
    dependencies: bool,
    dependency_decoder: str,
    joint_weight: float,
    scorer: Optional[Callable],
) -> "LabelAttentionParser":
    """Constituency parser with (by default) a jointly trained dependency head.

    ``dependency_decoder``: "eisner" (projective) or "mst" (non-projective) dependencies decoded
    next to the CKY tree, or "joint": tree and dependencies decoded together as Zhou & Zhao
    (2019) and Mrini et al. do, maximising span scores + ``joint_weight`` x arc scores, so the
    dependencies are the tree's lexical heads (projective).

    The default ``model`` is the shipped English parser (``spacy-lal.Pretrained.v1``); give a
    ``spacy-lal.LabelAttentionParser.v1`` model config to train one from scratch.
    """
    parser = LabelAttentionParser(
        nlp.vocab,
        model,
        name,
        constituency=True,
        dependencies=dependencies,
        dependency_decoder=dependency_decoder,
        joint_weight=joint_weight,
        scorer=scorer,
    )
    settings = {"dependency_decoder": dependency_decoder, "joint_weight": joint_weight}
    if parser.adopt_pretrained("lal_parser", settings):
        if parser.cfg["dependencies"] != dependencies:
            raise ValueError(
                f"{name}: the pretrained parser was trained with dependencies = "
                f"{parser.cfg['dependencies']}; give a model config of your own to train one "
                f"with dependencies = {dependencies}."
            )
        parser.set_decoder(dependency_decoder, joint_weight)
    return parser


@Language.factory(
    "lal_dependency_parser",
    assigns=["token.head", "token.dep", "token.is_sent_start", "doc.sents"],
    default_config={
        "model": UNTRAINED_PARSER_MODEL,
        "dependency_decoder": "mst",
        "scorer": {"@scorers": "spacy-lal.dependency_scorer.v1"},
    },
    default_score_weights={"dep_las": 1.0, "dep_uas": 0.0},
)
def make_lal_dependency_parser(
    nlp: Language,
    name: str,
    model: Model,
    dependency_decoder: str,
    scorer: Optional[Callable],
) -> "LabelAttentionParser":
    """Dependency parser on the label-attention encoder (no constituency head)."""
    return LabelAttentionParser(
        nlp.vocab,
        model,
        name,
        constituency=False,
        dependencies=True,
        dependency_decoder=dependency_decoder,
        scorer=scorer,
    )


class LabelAttentionParser(BuildsTorchLayerOnLoad, TrainablePipe):
    """A spaCy component around the label-attention parser model (``spacy_lal.nn.parser``).

    Its torch layer is built once the labels are known (``initialize``, or the saved cfg when
    loading: see ``BuildsTorchLayerOnLoad``)."""

    RUNTIME_SETTINGS = ("dependency_decoder", "joint_weight")

    def __init__(
        self,
        vocab: Vocab,
        model: Model,
        name: str = "lal_parser",
        *,
        constituency: bool = True,
        dependencies: bool = True,
        dependency_decoder: str = "eisner",
        joint_weight: float = 1.0,
        scorer: Optional[Callable] = None,
    ) -> None:
        if not (constituency or dependencies):
            raise ValueError(f"{name}: at least one of constituency and dependencies must be on")
        _check_decoder(name, dependency_decoder, constituency)
        self.vocab = vocab
        self.model = model
        self.name = name
        self.scorer = scorer
        self.cfg: Dict = {
            "constituency": constituency,
            "dependencies": dependencies,
            "dependency_decoder": dependency_decoder,
            "joint_weight": joint_weight,
            "span_labels": [],
            "dep_labels": [],
            "root_label": None,
            "nI": None,
        }

    # Labels ---------------------------------------------------------------------------------

    @property
    def span_labels(self) -> Tuple[str, ...]:
        """Constituent labels (unary chains joined by ``::``); model label id = index + 1."""
        return tuple(self.cfg["span_labels"])

    @property
    def dep_labels(self) -> Tuple[str, ...]:
        return tuple(self.cfg["dep_labels"])

    @property
    def labels(self) -> Tuple[str, ...]:
        return self.span_labels if self.cfg["constituency"] else self.dep_labels

    @property
    def label_data(self) -> Dict:
        return {
            "span_labels": list(self.span_labels),
            "dep_labels": list(self.dep_labels),
            "root_label": self.cfg["root_label"],
        }

    # Initialization -------------------------------------------------------------------------

    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]],
        *,
        nlp: Optional[Language] = None,
        labels: Optional[Dict] = None,
    ) -> None:
        """Read the label sets from the examples (or ``labels``) and build the model; a
        pretrained model keeps its labels and weights (training then fine-tunes it)."""
        validate_get_examples(get_examples, f"{self.name}.initialize")
        if self.keeps_pretrained_weights():
            return
        if labels is None:
            labels = self._read_labels(get_examples())
        self.cfg["span_labels"] = list(labels.get("span_labels", []))
        self.cfg["dep_labels"] = list(labels.get("dep_labels", []))
        self.cfg["root_label"] = labels.get("root_label")
        self._initialize_model(get_examples)

    def _read_labels(self, examples: Iterable[Example]) -> Dict:
        span_labels: Counter = Counter()
        dep_labels: Counter = Counter()
        root_labels: Counter = Counter()
        n_examples = n_trees = n_heads = 0
        for eg in examples:
            n_examples += 1
            for _, n, spans in stored_trees(eg.reference):
                n_trees += 1
                span_labels.update(chain_to_label(labels) for _, _, labels in spans)
                if not any(s == 0 and e == n for s, e, _ in spans):
                    span_labels[ROOT_ONLY] += 1
            if eg.reference.has_annotation("DEP"):
                for token in eg.reference:
                    if token.dep_:
                        n_heads += 1
                        dep_labels[token.dep_] += 1
                        if token.head.i == token.i:
                            root_labels[token.dep_] += 1
        if self.cfg["constituency"] and not n_trees:
            raise ValueError(
                f"{self.name}: none of the {n_examples} training examples has a constituency "
                "tree. Convert your treebank with `python -m spacy_lal convert` (the trees are "
                "stored on the Doc, see doc._.trees)."
            )
        if self.cfg["dependencies"] and not n_heads:
            raise ValueError(
                f"{self.name}: none of the {n_examples} training examples has dependency heads. "
                "Set dependencies = false, or train on a corpus with heads (CoNLL-U, or "
                "`python -m spacy_lal convert ewt`)."
            )
        return {
            "span_labels": sorted(span_labels) if self.cfg["constituency"] else [],
            "dep_labels": sorted(dep_labels) if self.cfg["dependencies"] else [],
            "root_label": root_labels.most_common(1)[0][0] if root_labels else None,
        }

    def _build_torch_model(self) -> None:
        from .parser_model import configure_parser_model

        n_span = len(self.span_labels) + 1 if self.cfg["constituency"] else 0
        n_dep = len(self.dep_labels) if self.cfg["dependencies"] else 0
        configure_parser_model(
            self.model, n_span, n_dep, self.cfg["nI"], self.cfg["dependency_decoder"], self.cfg["joint_weight"]
        )

    def set_decoder(self, dependency_decoder: str, joint_weight: Optional[float] = None) -> None:
        """Switch decoding on a trained parser: "eisner", "mst" or "joint" (see the factory)."""
        from .parser_model import set_decoding

        _check_decoder(self.name, dependency_decoder, self.cfg["constituency"])
        self.cfg["dependency_decoder"] = dependency_decoder
        if joint_weight is not None:
            self.cfg["joint_weight"] = joint_weight
        set_decoding(self.model, dependency_decoder, self.cfg["joint_weight"])

    # Training -------------------------------------------------------------------------------

    def update(
        self,
        examples: Iterable[Example],
        *,
        drop: float = 0.0,
        sgd: Optional[Optimizer] = None,
        losses: Optional[Dict[str, float]] = None,
    ) -> Dict[str, float]:
        """Learn from a batch: the joint loss of eq. 12, averaged over its sentences."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, f"{self.name}.update")
        docs = [eg.x for eg in examples]
        units = make_units(docs, self.max_length, [training_sentences(eg) for eg in examples])
        if not units:
            return losses
        return self._learn(docs, units, self._targets(examples, units), drop=drop, sgd=sgd, losses=losses)

    def _targets(self, examples: List[Example], units: List[Unit]) -> "ParserTargets":
        from .parser_model import ParserTargets

        width = max(len(unit) for unit in units) + 1
        heads = numpy.full((len(units), width), -1, dtype="int64")
        labels = numpy.full((len(units), width), -1, dtype="int64")
        charts: List[Optional[numpy.ndarray]] = [None] * len(units)
        unknown = 0
        if self.cfg["constituency"]:
            span_ids = {label: i + 1 for i, label in enumerate(self.span_labels)}
            trees = [gold_trees_by_start(eg) for eg in examples]
            for b, unit in enumerate(units):
                charts[b], n_unknown = tree_target(unit, trees[unit.doc_index], span_ids)
                unknown += n_unknown
        if self.cfg["dependencies"]:
            dep_ids = {label: i for i, label in enumerate(self.dep_labels)}
            aligned = [eg.get_aligned_parse(projectivize=False) for eg in examples]
            for b, unit in enumerate(units):
                unit_heads, unit_labels = dependency_target(unit, *aligned[unit.doc_index], dep_ids)
                heads[b, 1 : len(unit) + 1] = unit_heads
                labels[b, 1 : len(unit) + 1] = unit_labels
        if unknown:
            logger.warning("%s: %d gold constituents with labels unseen at initialize were skipped", self.name, unknown)
        return ParserTargets(charts, heads, labels)

    # Prediction -----------------------------------------------------------------------------

    def predict(self, docs: Iterable[Doc]) -> Parses:
        docs = list(docs)
        units = make_units(docs, self.max_length)
        if not units:
            return Parses([], [], [], [])
        decoded = self.model.predict((docs, units, None))
        dep_labels: List[Optional[numpy.ndarray]] = [None] * len(units)
        if self.cfg["dependencies"]:
            dep_labels = [self._pick_labels(h, s) for h, s in zip(decoded.heads, decoded.dep_scores)]
        return Parses(units, decoded.spans, decoded.heads, dep_labels)

    def _pick_labels(self, heads: numpy.ndarray, scores: numpy.ndarray) -> numpy.ndarray:
        scores = scores.copy()
        root = self.cfg["root_label"]
        if root in self.dep_labels:
            # The root label goes on root arcs, and only there.
            root_id = self.dep_labels.index(root)
            is_root = heads[1:] == 0
            scores[is_root] = -numpy.inf
            scores[is_root, root_id] = 0.0
            scores[~is_root, root_id] = -numpy.inf
        return scores.argmax(axis=1)

    def set_annotations(self, docs: Iterable[Doc], parses: Parses) -> None:
        docs = list(docs)
        by_doc: Dict[int, List[int]] = {}
        for b, unit in enumerate(parses.units):
            by_doc.setdefault(unit.doc_index, []).append(b)
        for doc_index, doc in enumerate(docs):
            rows = by_doc.get(doc_index, [])
            if self.cfg["constituency"]:
                clear_trees(doc)
                for b in rows:
                    self._set_tree(doc, parses.units[b], parses.spans[b])
            if self.cfg["dependencies"] and rows:
                self._set_dependencies(
                    doc,
                    [parses.units[b] for b in rows],
                    [parses.heads[b] for b in rows],
                    [parses.dep_labels[b] for b in rows],
                )

    def _set_tree(self, doc: Doc, unit: Unit, spans: numpy.ndarray) -> None:
        words = unit.words
        n = len(words)
        tree = []
        for start, end, label in spans.tolist():
            chain = label_to_chain(self.span_labels[label - 1]) if label != EMPTY else ()
            if not chain:
                continue
            if start == 0 and end == n:
                tree.append((0, unit.end - unit.start, chain))
            else:
                tree.append((words[start] - unit.start, words[end - 1] + 1 - unit.start, chain))
        set_tree(doc[unit.start : unit.end], tree)

    def _set_dependencies(self, doc: Doc, units: List[Unit], heads, labels) -> None:
        head = numpy.arange(len(doc), dtype="int64")
        dep = [""] * len(doc)
        sentence_root = None
        for unit, unit_heads, unit_labels in zip(units, heads, labels):
            words = unit.words
            for k, token in enumerate(words):
                h = int(unit_heads[k + 1])
                head[token] = token if h == 0 else words[h - 1]
                dep[token] = self.dep_labels[int(unit_labels[k])]
                if h == 0:
                    root = token
            if unit.piece == 0:
                sentence_root = root
            elif sentence_root is not None:
                head[root] = sentence_root
                dep[root] = ATTACH_LABEL
            word_set = set(words)
            for token in range(unit.start, unit.end):
                if token not in word_set:
                    before = [w for w in words if w < token]
                    head[token] = before[-1] if before else words[0]
                    dep[token] = ATTACH_LABEL
        for token in range(len(doc)):
            if not dep[token]:
                dep[token] = ATTACH_LABEL
        strings = self.vocab.strings
        array = numpy.zeros((len(doc), 2), dtype="uint64")
        array[:, 0] = (head - numpy.arange(len(doc))).astype("int64").view("uint64")
        array[:, 1] = [strings.add(label) for label in dep]
        doc.from_array([HEAD, DEP], array)


def _check_decoder(name: str, dependency_decoder: str, constituency: bool) -> None:
    if dependency_decoder not in ("eisner", "mst", "joint"):
        raise ValueError(
            f"{name}: dependency_decoder must be 'eisner' (projective), 'mst' (non-projective) "
            f"or 'joint' (with the tree), got {dependency_decoder!r}"
        )
    if dependency_decoder == "joint" and not constituency:
        raise ValueError(f"{name}: dependency_decoder 'joint' needs the constituency head")
