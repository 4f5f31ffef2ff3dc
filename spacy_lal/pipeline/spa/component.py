"""``lal_spa_parser``: the sequence-preserved attention dependency parser (Zhou et al. 2018,
"RNN-Based Sequence-Preserved Attention for Dependency Parsing"), graph- or transition-based.

The architecture (``spacy-lal.SpaDependencyParser.v1``, ``model.py``) chooses the encoder
(BiRNN, vanilla attention, ToB- or BoT-SPA) and the parsing (graph or transition); this module
holds what the component learns from data, its targets and ``set_annotations``.

Awkward input is handled as by ``lal_dependency_parser`` (``heads.py``, ``units.py``):
``doc.sents`` are parsed one by one (the whole Doc without boundaries), whitespace tokens attach
to a neighbour with ``dep``, sentences longer than ``max_length`` words are parsed in pieces
joined with ``dep`` (a warning is logged), and empty or whitespace-only Docs stay unparsed.

Transition-based training reads each unit's static-oracle configurations. The arc-standard
system builds projective trees only, so the ``non_projective`` setting says what a
non-projective gold tree does: "projectivize" (default; arcs lifted until it is projective,
``spacy_lal.decode.projectivize``) or "skip" (left out of the loss); ``initialize``
counts them over the training data in a logged warning. Units without a complete single-rooted
gold tree (pieces of long sentences, alignment gaps) are left out too, counted in a warning
per batch.
"""
from collections import Counter
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

import numpy
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.vocab import Vocab
from thinc.api import Model

from ...decode import ArcStandard, arc_standard_oracle_batch, is_projective
from ...logs import logger
from ..base import Predictions, UnitPipe, label_set, untrained_model
from ..heads import ATTACH_LABEL, set_dependencies, units_by_doc, use_ud_noun_chunks
from ..gold import dependency_target
from .adapter import SpaBatch, SpaTargets, UnitOracle
from .settings import LAL_SPA_PARSER, model_decoder
from ..units import Unit


@Language.factory(
    "lal_spa_parser",
    assigns=["token.head", "token.dep", "token.is_sent_start", "doc.sents"],
    default_config=LAL_SPA_PARSER.default_config(
        model=untrained_model("spacy-lal.SpaDependencyParser.v1"), scorer={"@scorers": "spacy-lal.dependency_scorer.v1"}
    ),
    default_score_weights={"dep_las": 1.0, "dep_uas": 0.0},
)
def make_lal_spa_parser(
    nlp: Language,
    name: str,
    model: Model,
    scorer: Optional[Callable],
    decoder: Optional[str],
    non_projective: str,
    piece_length: int,
) -> "SpaDependencyParser":
    """The SPA dependency parser (Zhou et al. 2018), graph- or transition-based as the model's
    ``parsing`` setting says.

    A factory of its own rather than a setting of ``lal_dependency_parser``: the two share no
    model (label attention vs. SCAN/RESCAN), and their settings differ (a transition-based
    parser has no arc decoder to choose and a non-projectivity policy instead), so one factory
    would accept settings that mean nothing for half its models.

    The settings, their defaults and checks: ``settings.py``.
    """
    return SpaDependencyParser(
        nlp.vocab, model, name, scorer=scorer, decoder=decoder, non_projective=non_projective, piece_length=piece_length
    )


class SpaDependencyParser(UnitPipe):
    """A spaCy component around ``SpaGraphParser`` / ``SpaTransitionParser`` (``spacy_lal.nn.spa_parsers``)
    run by ``spa_adapter.SpaAdapter``, built once the labels are known (``base.UnitPipe``)."""

    SETTINGS = LAL_SPA_PARSER
    # Units run in length-sorted chunks (max_chart_cells): sorting 8 batches together pads less.
    BUCKET_BATCHES = 8
    LONG_SENTENCES = (
        f"each sentence still gets one dependency tree, the roots of later pieces attached to the "
        f"first piece's root with {ATTACH_LABEL!r}"
    )
    LABEL_DATA = {"dep_labels": [], "root_label": None}

    def __init__(
        self, vocab: Vocab, model: Model, name: str = "lal_spa_parser", *, scorer: Optional[Callable] = None,
        **settings: Any,
    ) -> None:
        """``settings``: as the factory's (``settings.py``), their defaults where not given."""
        parsing = model.attrs.get("spa_config", {}).get("parsing")
        if parsing is None:
            raise ValueError(f"{name}: the model must be a spacy-lal.SpaDependencyParser.v1 architecture")
        super().__init__(vocab, model, name, settings, scorer=scorer)
        self.cfg["decoder"] = model_decoder(name, parsing, self.cfg["decoder"])

    def configure(self, **values: Any) -> None:
        super().configure(**values)
        self.cfg["decoder"] = model_decoder(self.name, self.model.attrs["spa_config"]["parsing"], self.cfg["decoder"])

    @property
    def transition_based(self) -> bool:
        return self.model.attrs["spa_config"]["parsing"] == "transition"

    labels = label_set("dep_labels", "Dependency labels; model label id = index.")

    def _loaded(self) -> None:
        use_ud_noun_chunks(self.vocab, self.labels)  # UD labels: doc.noun_chunks must read them

    def _root_id(self) -> Optional[int]:
        root = self.cfg["root_label"]
        return self.labels.index(root) if root in self.labels else None

    # Initialization -------------------------------------------------------------------------

    def _read_labels(self, examples: Iterable[Example]) -> Dict[str, Any]:
        labels: Counter = Counter()
        root_labels: Counter = Counter()
        n_examples = n_sentences = n_nonprojective = 0
        for eg in examples:
            n_examples += 1
            if not eg.reference.has_annotation("DEP"):
                continue
            if self.transition_based:
                for sent in eg.reference.sents:
                    n_sentences += 1
                    n_nonprojective += not _is_projective_sentence(sent)
            for token in eg.reference:
                if token.dep_:
                    labels[token.dep_] += 1
                    if token.head.i == token.i:
                        root_labels[token.dep_] += 1
        if not labels:
            raise ValueError(
                f"{self.name}: none of the {n_examples} training examples has dependency heads. Train on a "
                "corpus with heads (CoNLL-U, or `python -m spacy_lal convert ewt`)."
            )
        root = root_labels.most_common(1)[0][0] if root_labels else None
        # The arc-standard system reserves the root label for root arcs; a label that also
        # marks other arcs in the data cannot be reserved.
        if root is not None and labels[root] != root_labels[root]:
            root = None
        if n_nonprojective:
            logger.warning(
                "%s: %d of %d training sentences have a non-projective gold tree, which the "
                "arc-standard system cannot build: they are %s (non_projective = %r)",
                self.name, n_nonprojective, n_sentences,
                "projectivized" if self.cfg["non_projective"] == "projectivize" else "left out",
                self.cfg["non_projective"],
            )
        return {"dep_labels": sorted(labels), "root_label": root}

    def _build_torch_model(self) -> None:
        from .model import configure_spa_model

        configure_spa_model(self.model, len(self.labels), self.cfg["nI"])

    # Training -------------------------------------------------------------------------------

    def _training_batch(self, examples: List[Example], units: List[Unit]) -> SpaBatch:
        """Gold heads and labels per unit (``gold.dependency_target``) and, transition-based, the
        static oracle's configurations."""
        width = max(len(unit) for unit in units) + 1
        heads = numpy.full((len(units), width), -1, dtype="int64")
        labels = numpy.full((len(units), width), -1, dtype="int64")
        label_ids = {label: i for i, label in enumerate(self.labels)}
        aligned = [eg.get_aligned_parse(projectivize=False) for eg in examples]
        for b, unit in enumerate(units):
            unit_heads, unit_labels = dependency_target(unit, *aligned[unit.doc_index], label_ids)
            heads[b, 1 : len(unit) + 1] = unit_heads
            labels[b, 1 : len(unit) + 1] = unit_labels
        oracle = self._oracle(units, heads, labels) if self.transition_based else None
        return SpaBatch(SpaTargets(heads, labels, oracle), self.cfg["decoder"], self._root_id())

    def _oracle(self, units: List[Unit], heads: numpy.ndarray, labels: numpy.ndarray) -> List[UnitOracle]:
        system = ArcStandard(len(self.labels), self._root_id())
        trees = {}
        for b, unit in enumerate(units):
            tree = _complete_tree(heads[b, : len(unit) + 1], labels[b, : len(unit) + 1], system)
            if tree is not None:
                trees[b] = tree
        policy = self.cfg["non_projective"]
        result = arc_standard_oracle_batch(
            [h for h, _ in trees.values()], [lab for _, lab in trees.values()], system, non_projective=policy
        )
        empty: UnitOracle = (numpy.zeros((0, 4), dtype="int64"), numpy.zeros(0, dtype="int64"))
        oracle = [empty] * len(units)
        rows = list(trees)
        bounds = numpy.flatnonzero(numpy.diff(result.rows)) + 1
        for k, features, transitions in zip(
            result.kept.tolist(), numpy.split(result.features, bounds), numpy.split(result.transitions, bounds)
        ):
            oracle[rows[k]] = (features, transitions)
        # initialize() warned about the training data's non-projective trees; per batch, only
        # the sentences without a usable tree are news.
        incomplete = len(units) - len(trees)
        if incomplete:
            logger.warning(
                "%s: %d of %d training sentences have no complete single-rooted gold tree (pieces of "
                "long sentences, tokenization mismatches): the transition-based parser skips them",
                self.name, incomplete, len(units),
            )
        logger.debug("%s: %d non-projective gold trees in the batch (%s)", self.name, result.n_nonprojective, policy)
        return oracle

    # Prediction -----------------------------------------------------------------------------

    def _prediction_batch(self, docs: List[Doc], units: List[Unit]) -> SpaBatch:
        return SpaBatch(decoder=self.cfg["decoder"], root_label=self._root_id())

    def set_annotations(self, docs: Iterable[Doc], predictions: Predictions) -> None:
        units, parses = predictions
        by_doc = units_by_doc(units)
        for doc_index, doc in enumerate(docs):
            rows = by_doc.get(doc_index)
            if rows:
                set_dependencies(
                    doc,
                    [units[b] for b in rows],
                    [parses.heads[b] for b in rows],
                    [parses.labels[b] for b in rows],
                    self.labels,
                    self.vocab.strings,
                )


def _is_projective_sentence(sent) -> bool:
    """Whether the gold tree of a sentence (a Span) is projective; heads outside the sentence
    count as attached to its root."""
    heads = [-1] + [0 if t.head.i == t.i or not sent.start <= t.head.i < sent.end else t.head.i - sent.start + 1
                    for t in sent]
    try:
        return is_projective(numpy.array(heads, dtype="int64"))
    except ValueError:  # not a tree: the oracle leaves it out anyway
        return True


def _complete_tree(
    heads: numpy.ndarray, labels: numpy.ndarray, system: ArcStandard
) -> Optional[Tuple[numpy.ndarray, numpy.ndarray]]:
    """``(heads, labels)`` if they form a tree the oracle can read: every word's head and label
    known, one dependent of ROOT, the root label (if reserved) on exactly that arc; else None."""
    if (heads[1:] < 0).any() or (labels[1:] < 0).any() or int((heads[1:] == 0).sum()) != 1:
        return None
    if system.root_label is not None and ((labels[1:] == system.root_label) != (heads[1:] == 0)).any():
        return None
    try:
        is_projective(heads)  # raises for cycles
    except ValueError:
        return None
    return heads, labels
