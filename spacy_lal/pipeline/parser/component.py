"""``lal_parser`` and ``lal_dependency_parser``: the trainable label-attention parsers.

``lal_parser`` (``LabelAttentionParser``) predicts constituency trees (CKY over span scores, hinge
loss; Mrini et al. eq. 5-9) and, by default, dependencies (biaffine arcs with Eisner or
Chu-Liu-Edmonds; eq. 10-11), trained jointly (eq. 12); ``lal_dependency_parser``
(``LabelAttentionDependencyParser``, the same component with other settings) predicts
dependencies only. The settings of both: ``settings.py``.

What the component does with awkward input (see also ``units.py``):
- It parses ``doc.sents`` where sentence boundaries are set, else the whole Doc as one sentence.
- Whitespace tokens are not shown to the model: each is attached to the nearest preceding word
  of its sentence (the following one at the start) with the label ``dep`` and, in the tree, sits
  inside the smallest constituent spanning its neighbours. The component also gives them spaCy's
  whitespace tag and POS (``_SP``, ``SPACE``), and emoji UD's emoticon tags, whatever an upstream
  tagger guessed (``unseen_tokens.py`` says why the parser does).
- Sentences longer than ``piece_length`` words (default 100; the model's ``max_length`` in
  training) are parsed in pieces of equal length (one warning per call), so that time grows
  linearly beyond it: each still gets one tree, the pieces' trees side by side under a root
  labelled "S", and one dependency tree, the root of each later piece attached to the first
  piece's root with ``dep``. (``piece_length`` above ``max_length`` needs a model trained with
  it: the position table is learned.)
- Empty Docs and Docs of whitespace only get no tree and keep their tokens unattached.
- Gold labels not seen at ``initialize`` are trained as "no constituent" / skipped, and counted
  in a warning.

Constraints (``constraints`` setting, ``set_constraints``, ``constrained``,
``parse_with_constraints``): ``constrained.py``.
"""
from collections import Counter
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy
import srsly
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.vocab import Vocab
from thinc.api import Model

from ...doc.extensions import set_trees, soft_arc_targets, stored_trees
from ...doc.tree import LabelledSpan
from ...logs import logger
from ..base import Predictions, UnitPipe, label_set, pretrained_model, untrained_model
from ..gold import dependency_target, same_tokens, soft_target_weights
from ..heads import ATTACH_LABEL, set_dependencies, units_by_doc, use_ud_noun_chunks
from ..units import Unit
from .adapter import INT8_PEAKS, ParserBatch, ParserTargets
from .charts import ROOT_ONLY, chain_to_label, gold_trees_by_start, label_chains, tree_target
from .clear import clear_ud, set_clear_dependencies, use_english_noun_chunks
from .constrained import ConstrainedParsing, parse_with_constraints
from .settings import LAL_DEPENDENCY_PARSER, LAL_PARSER
from .unseen_tokens import tag_unseen_tokens

JOINED_ROOT = "S"  # root over the pieces of a sentence longer than max_length (see module docstring)


@Language.factory(
    "lal_parser",
    assigns=["token.head", "token.dep", "token.is_sent_start", "doc.sents", "token._.lal_tree"],
    default_config=LAL_PARSER.default_config(
        model=pretrained_model("lal_parser"), scorer={"@scorers": "spacy-lal.parser_scorer.v1"}
    ),
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
    scorer: Optional[Callable],
    dependencies: bool,
    dependency_decoder: str,
    joint_weight: float,
    quantize: bool,
    constraints: Dict[str, List[str]],
    dependency_scheme: str,
    piece_length: int,
    soft_target_weight: float,
) -> "LabelAttentionParser":
    """Constituency parser with (by default) a jointly trained dependency head; the settings,
    their defaults and checks: ``settings.py``.

    The default ``model`` is the shipped English parser (``spacy-lal.Pretrained.v1``); give a
    ``spacy-lal.LabelAttentionParser.v1`` model config to train one from scratch.
    """
    parser = LabelAttentionParser(
        nlp.vocab,
        model,
        name,
        scorer=scorer,
        dependencies=dependencies,
        dependency_decoder=dependency_decoder,
        joint_weight=joint_weight,
        quantize=quantize,
        constraints=constraints,
        dependency_scheme=dependency_scheme,
        piece_length=piece_length,
        soft_target_weight=soft_target_weight,
    )
    if parser.adopt_pretrained("lal_parser"):
        if parser.cfg["dependencies"] != dependencies:
            raise ValueError(
                f"{name}: the pretrained parser was trained with dependencies = "
                f"{parser.cfg['dependencies']}; give a model config of your own to train one "
                f"with dependencies = {dependencies}."
            )
    return parser


@Language.factory(
    "lal_dependency_parser",
    assigns=["token.head", "token.dep", "token.is_sent_start", "doc.sents"],
    default_config=LAL_DEPENDENCY_PARSER.default_config(
        model=untrained_model("spacy-lal.LabelAttentionParser.v1"), scorer={"@scorers": "spacy-lal.dependency_scorer.v1"}
    ),
    default_score_weights={"dep_las": 1.0, "dep_uas": 0.0},
)
def make_lal_dependency_parser(
    nlp: Language,
    name: str,
    model: Model,
    scorer: Optional[Callable],
    dependency_decoder: str,
    quantize: bool,
    dependency_scheme: str,
    piece_length: int,
    soft_target_weight: float,
) -> "LabelAttentionDependencyParser":
    """Dependency parser on the label-attention encoder (no constituency head); the settings as
    ``lal_parser``'s (``settings.py``)."""
    return LabelAttentionDependencyParser(
        nlp.vocab,
        model,
        name,
        scorer=scorer,
        dependency_decoder=dependency_decoder,
        quantize=quantize,
        dependency_scheme=dependency_scheme,
        piece_length=piece_length,
        soft_target_weight=soft_target_weight,
    )


def _by_sentence(units: List[Unit], spans: List[numpy.ndarray]) -> List[List[Tuple[Unit, numpy.ndarray]]]:
    """Units (in order, as ``make_units`` gives them) grouped into sentences: pieces after the
    first of a long sentence join the sentence before them."""
    sentences: List[List[Tuple[Unit, numpy.ndarray]]] = []
    for unit, unit_spans in zip(units, spans):
        if unit.piece and sentences:
            sentences[-1].append((unit, unit_spans))
        else:
            sentences.append([(unit, unit_spans)])
    return sentences


class LabelAttentionParser(ConstrainedParsing, UnitPipe):
    """A spaCy component around the label-attention parser model (``spacy_lal.nn.parser``).

    Its torch layer (``parser_adapter.ParserAdapter``) is built once the labels are known
    (``initialize``, or the saved cfg when loading: see ``base.UnitPipe``)."""

    SETTINGS = LAL_PARSER
    # Units of 8 batches are length-sorted together: fed sorted sentences, the parser runs 2-3
    # times faster than on batches sorted alone (padding), with max_chart_cells bounding memory.
    BUCKET_BATCHES = 8
    LONG_SENTENCES = (
        f"each sentence still gets one tree, the pieces' trees side by side under a root labelled "
        f"{JOINED_ROOT!r}, and one dependency tree, the roots of later pieces attached to the first "
        f"piece's root with {ATTACH_LABEL!r}"
    )
    LABEL_DATA = {"span_labels": [], "dep_labels": [], "root_label": None}

    def __init__(
        self, vocab: Vocab, model: Model, name: str = "lal_parser", *, scorer: Optional[Callable] = None, **settings: Any
    ) -> None:
        """``settings``: as the factory's (``settings.py``), their defaults where not given."""
        UnitPipe.__init__(self, vocab, model, name, settings, scorer=scorer)
        ConstrainedParsing.__init__(self)
        self.cfg[INT8_PEAKS] = None  # measure_int8_peaks sets them; saved with the cfg

    # Labels ---------------------------------------------------------------------------------

    span_labels = label_set(
        "span_labels", "Constituent labels (unary chains joined by ``::``); model label id = index + 1."
    )
    dep_labels = label_set("dep_labels", "Dependency labels; model label id = index.")

    def _loaded(self) -> None:
        if self.cfg["dependency_scheme"] == "clear":
            use_english_noun_chunks(self.vocab)  # spaCy's English labels: its own iterator reads them
        else:
            use_ud_noun_chunks(self.vocab, self.dep_labels)  # UD labels: doc.noun_chunks must read them

    @property
    def labels(self) -> Tuple[str, ...]:
        return self.span_labels if self.cfg["constituency"] else self.dep_labels

    # Initialization -------------------------------------------------------------------------

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
        from .model import configure_parser_model

        n_span = len(self.span_labels) + 1 if self.cfg["constituency"] else 0
        n_dep = len(self.dep_labels) if self.cfg["dependencies"] else 0
        configure_parser_model(self.model, n_span, n_dep, self.cfg["nI"])

    def set_decoder(self, dependency_decoder: str, joint_weight: Optional[float] = None) -> None:
        """Switch decoding on a trained parser: "eisner", "mst" or "joint" (``settings.py``)."""
        self.configure(dependency_decoder=dependency_decoder,
                       **({} if joint_weight is None else {"joint_weight": joint_weight}))

    def set_int8(self, enabled: bool) -> None:
        """int8 products in the tok2vec copy and int8 decoding (the ``quantize`` setting)."""
        super().set_int8(enabled)
        self.configure(quantize=enabled)

    def measure_int8_peaks(self, run: Callable[[], Any]) -> None:
        """Measure each Linear layer's largest input per feature while ``run()`` parses text with
        this component (in float) and keep them in its cfg, saved with it: the int8 copy then
        smooths its layers with them and takes every layer 64 wide or more (``nn/int8.py``).
        ``spacy_lal.calibrate_int8`` calls it. Raises ValueError if no sentence was parsed."""
        from ...nn.int8 import input_peaks

        if self.torch_module is None:
            raise ValueError(f"{self.name}: the parser has no model yet: initialize or load it first")
        quantize = self.cfg["quantize"]
        self.configure(quantize=False)
        try:
            peaks = input_peaks(self.torch_module.parser, run)
        finally:
            self.configure(quantize=quantize)
        if not peaks:
            raise ValueError(f"{self.name}: no sentence reached the parser while measuring int8 peaks (no words?)")
        # As the saved cfg gives them back (srsly's JSON changes the last digit of some), so that
        # a loaded copy's int8 products are this one's.
        self.cfg[INT8_PEAKS] = srsly.json_loads(srsly.json_dumps(peaks))

    # Training -------------------------------------------------------------------------------

    def _training_batch(self, examples: List[Example], units: List[Unit]) -> ParserBatch:
        """The gold trees as label charts and the gold heads and labels (``gold.py``)."""
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
            # spaCy aligns a Doc without dependencies as every word its own head (a root): such a
            # Doc (PropBank's frame examples, annotated for one frame) gives no arc targets.
            aligned = [eg.get_aligned_parse(projectivize=False) if eg.reference.has_annotation("DEP") else None
                       for eg in examples]
            for b, unit in enumerate(units):
                if aligned[unit.doc_index] is None:
                    continue
                unit_heads, unit_labels = dependency_target(unit, *aligned[unit.doc_index], dep_ids)
                heads[b, 1 : len(unit) + 1] = unit_heads
                labels[b, 1 : len(unit) + 1] = unit_labels
        if unknown:
            logger.warning("%s: %d gold constituents with labels unseen at initialize were skipped", self.name, unknown)
        targets = ParserTargets(charts, heads, labels)
        if self.cfg["dependencies"] and self.cfg["soft_target_weight"] > 0:
            soft = [soft_arc_targets(eg.reference) if same_tokens(eg) else {} for eg in examples]
            if any(soft):
                targets.head_weights, targets.label_weights = soft_target_weights(
                    units, soft, heads, labels, dep_ids, self.cfg["soft_target_weight"])
        return ParserBatch(targets)

    # Prediction -----------------------------------------------------------------------------

    def _prediction_batch(self, docs: List[Doc], units: List[Unit], details: bool = False) -> ParserBatch:
        root = self.cfg["root_label"]
        require, no_cross = self._unit_constraints(docs, units)
        return ParserBatch(
            dependency_decoder=self.cfg["dependency_decoder"],
            joint_weight=self.cfg["joint_weight"],
            root_label=self.dep_labels.index(root) if root in self.dep_labels else None,
            details=details,
            quantized=self.cfg["quantize"],
            int8_peaks=self.cfg[INT8_PEAKS],
            require=require,
            no_cross=no_cross,
        )

    def predict_with_details(self, docs: Iterable[Doc]) -> Predictions:
        """``predict``, keeping per unit what the label attention computed
        (``parser_adapter.UnitDetails``; read by ``spacy_lal.interpret``)."""
        return self._predict(docs, details=True)

    def set_annotations(self, docs: Iterable[Doc], predictions: Predictions) -> None:
        docs = list(docs)
        units, parses = predictions
        by_doc = units_by_doc(units)
        chains = label_chains(self.span_labels)  # each span's label id becomes its chain here
        for doc_index, doc in enumerate(docs):
            rows = by_doc.get(doc_index, [])
            tag_unseen_tokens(doc)  # first: the clear conversion below reads the tags
            if self.cfg["constituency"]:
                sentences = _by_sentence([units[b] for b in rows], [parses.spans[b] for b in rows])
                trees = [_tree(doc, sentence, chains) for sentence in sentences]
                set_trees(doc, trees, root_label=JOINED_ROOT)
            if self.cfg["dependencies"] and rows:
                set_dependencies(
                    doc,
                    [units[b] for b in rows],
                    [parses.heads[b] for b in rows],
                    [parses.dep_labels[b] for b in rows],
                    self.dep_labels,
                    self.vocab.strings,
                )
                if self.cfg["dependency_scheme"] == "clear":
                    set_clear_dependencies(doc)
                else:
                    clear_ud(doc)


def _tree(
    doc: Doc, pieces: List[Tuple[Unit, numpy.ndarray]], chains: Sequence[Tuple[str, ...]]
) -> Tuple[Span, List[LabelledSpan]]:
    """The tree of one sentence, as its span and labelled spans: the tree of its unit, or the
    trees of its pieces side by side (under a root labelled ``JOINED_ROOT``: a sentence longer
    than ``max_length``). ``chains``: ``charts.label_chains`` of the parser's span labels."""
    start = pieces[0][0].start
    tree = []
    for unit, spans in pieces:
        words = unit.words
        n = len(words)
        for i, j, label in spans.tolist():
            chain = chains[label]
            if not chain:
                continue
            if i == 0 and j == n:  # the piece's root spans its whitespace too
                tree.append((unit.start - start, unit.end - start, chain))
            else:
                tree.append((words[i] - start, words[j - 1] + 1 - start, chain))
    return doc[start : pieces[-1][0].end], tree


class LabelAttentionDependencyParser(LabelAttentionParser):
    """``lal_dependency_parser``: the same component with dependencies only."""

    SETTINGS = LAL_DEPENDENCY_PARSER

    def __init__(
        self, vocab: Vocab, model: Model, name: str = "lal_dependency_parser", *, scorer: Optional[Callable] = None,
        **settings: Any,
    ) -> None:
        super().__init__(vocab, model, name, scorer=scorer, **settings)


__all__ = ["LabelAttentionParser", "LabelAttentionDependencyParser", "make_lal_parser", "make_lal_dependency_parser", "parse_with_constraints"]
