"""The SRL torch layer: runs DeepAtt and the predicate and sense heads for spaCy, and is where
the labeller decodes.

One forward pass serves a whole batch: the predicate-identification head runs over all units,
DeepAtt gathers one row per (unit, predicate) pair (after its input projection, so the
projection runs once per sentence), and the pass returns either the summed loss (training:
role, predicate and sense losses, each defined once in ``spacy_lal.nn``) or each row's scores
(:class:`FrameScores`), which :meth:`SrlAdapter.decode_rows` turns into BIO sequences (argmax,
constrained Viterbi with or without unique core roles, or the span-level Viterbi whose arguments
are allowed spans such as the tree's constituents; ``spacy_lal.decode``) and senses, within what
the frame inventory allows (:class:`FrameChoices`, made by ``inventory.py``).
"""
import math
from dataclasses import dataclass, fields, replace
from typing import List, Optional, Sequence, Tuple, Union

import numpy
import torch

from ...decode import CORE_ROLES, BIOScheme, bio_argmax_batch, bio_viterbi_batch, span_viterbi_batch
from ...nn.deepatt import DeepAtt
from ...nn.embeddings import lengths_to_mask
from ...nn.host import to_host
from ...nn.predicates import PredicateIdentifier, SenseClassifier, predicate_rows

IGNORE = -100  # target id the losses skip (torch's cross-entropy ignore_index)
DECODERS = ("argmax", "viterbi", "tree", "unique_roles")
LOSS_REDUCTIONS = ("mean", "sum", "balanced_sum")
# The log-probability a label the chosen roleset does not allow gets. The decoders refuse non-finite
# scores, so not -inf: a finite score far below any path of allowed labels (log-softmax scores of a
# whole sentence stay above -1e4), small enough in magnitude that the span Viterbi's per-role
# prefix sums keep their float32 precision.
MASKED_SCORE = -1e6

@dataclass
class SrlTargets:
    """Gold targets of a batch; rows are the (unit, predicate) pairs of ``SrlBatch.predicates``
    in unit-then-list order."""

    roles: numpy.ndarray  # (R, T) int64 BIO label ids; IGNORE on padding and skipped labels
    is_predicate: numpy.ndarray  # (N, T) int64 0/1 per word; IGNORE on padding and where unknown
    senses: numpy.ndarray  # (R,) int64 sense-class ids; IGNORE where unknown
    # How many role, predicate-flag and sense targets the batch's three mean losses divide by.
    # A length-sorted chunk (``select``) keeps its whole batch's counts, so that the chunks'
    # losses add up to the batch's means exactly.
    totals: Optional[Tuple[int, int, int]] = None
    # (R, n_senses) bool: the sense classes each row's softmax runs over (None: all of them)
    sense_allowed: Optional[numpy.ndarray] = None
    # The sense term's weight beside the role and predicate terms (the ``sense_weight`` setting)
    sense_weight: float = 1.0

    def __post_init__(self) -> None:
        if self.totals is None:
            self.totals = tuple(int((a != IGNORE).sum()) for a in (self.roles, self.is_predicate, self.senses))


@dataclass
class SrlBatch:
    """What the component passes along with the units.

    ``predicates[u]``: the predicate positions (word indices) of unit u, or None to let the
    identification head find them (prediction only; in training every unit has a list).
    In prediction the pass returns each row's scores (:class:`FrameScores`), which the component
    decodes (:meth:`SrlAdapter.decode_rows`) once it knows the rows' predicates: an ensemble
    averages its members' scores first (``pipeline/ensemble.py``).
    """

    predicates: List[Optional[List[int]]]
    targets: Optional[SrlTargets] = None

    def select(self, units: Sequence[int], width: int) -> "SrlBatch":
        """The batch of ``units`` (a length-sorted chunk, ``torch_bridge.forward_units``).
        ``width`` is the chunk's longest unit + 1, as for the parsers' head arrays; the word
        targets here have one column per word."""
        pick = lambda per_unit: None if per_unit is None else [per_unit[u] for u in units]  # noqa: E731
        targets = self.targets
        if targets is not None:
            # Rows are (unit, predicate) pairs in unit-then-list order: unit u owns a range.
            starts = numpy.cumsum([0] + [len(p or ()) for p in self.predicates])
            rows = numpy.asarray([r for u in units for r in range(starts[u], starts[u + 1])], dtype="int64")
            targets = SrlTargets(
                targets.roles[rows, : width - 1], targets.is_predicate[units, : width - 1], targets.senses[rows],
                totals=targets.totals,
                sense_allowed=None if targets.sense_allowed is None else targets.sense_allowed[rows],
                sense_weight=targets.sense_weight,
            )
        return replace(self, predicates=pick(self.predicates), targets=targets)


@dataclass
class FrameChoices:
    """Per row (unit, predicate) of a batch, what the frame inventory allows the predicate's
    lemma (``inventory.py``): the sense classes that form one of its rolesets, each with the sense
    prior's bonus, and the role labels each of those rolesets allows. A row none of whose classes
    forms a roleset (or without sense scores) takes the lemma's first roleset, sense
    :attr:`fallback` (= the number of classes); an unconstrained row (a lemma without rolesets)
    gets no sense and every label."""

    constrained: numpy.ndarray  # (R,) bool
    sense_bonus: numpy.ndarray  # (R, n_senses) float64; -inf where the class forms no roleset
    role_masks: numpy.ndarray  # (R, n_senses + 1, n_labels) bool: per class, then the fallback
    rolesets: List[List[Optional[str]]]  # (R, n_senses + 1) the roleset each sense stands for

    @property
    def fallback(self) -> int:
        return self.sense_bonus.shape[1]

    def choose(self, row: int, sense_scores: Optional[numpy.ndarray]) -> Optional[int]:
        """Row ``row``'s sense: the best-scoring class that forms a roleset, the fallback, or
        None (unconstrained)."""
        if not self.constrained[row]:
            return None
        bonus = self.sense_bonus[row]
        if sense_scores is None or not numpy.isfinite(bonus).any():
            return self.fallback
        return int(numpy.argmax(sense_scores.astype(numpy.float64) + bonus))


@dataclass
class DecodedFrames:
    """Per row (unit, predicate position): the BIO label ids of the unit's words and the sense
    (a class id, ``FrameChoices.fallback``, or None without a sense head or roleset);
    ``choices``: the frame inventory's answer the senses index (None without ``frames``)."""

    units: List[int]
    positions: List[int]
    tags: List[List[int]]
    senses: List[Optional[int]]
    choices: Optional[FrameChoices] = None


@dataclass
class FrameScores:
    """Per row (unit, predicate position), what :meth:`SrlAdapter.decode_rows` reads
    (``SrlBatch.scores_only``): the role labels' log-probabilities over the unit's words
    (n, labels) and the sense head's scores (logits; None without a sense head)."""

    units: List[int]
    positions: List[int]
    roles: List[numpy.ndarray]
    senses: List[Optional[numpy.ndarray]]

    @classmethod
    def merge(cls, parts: Sequence["FrameScores"], chunks: Sequence[Sequence[int]], n: int) -> "FrameScores":  # noqa: ARG003
        return _merge_rows(cls, parts, chunks)


def _merge_rows(cls, parts, chunks):
    """Rows of length-sorted chunks (their first field: the unit within the chunk) back in unit
    order; a unit's rows keep their order."""
    rows = [
        (chunk[row[0]], *row[1:])
        for part, chunk in zip(parts, chunks)
        for row in zip(*(getattr(part, field.name) for field in fields(cls)))
    ]
    rows.sort(key=lambda row: row[0])  # stable: rows of one unit stay in predicate order
    return cls(*(list(column) for column in zip(*rows))) if rows else cls(*([] for _ in fields(cls)))


class SrlAdapter(torch.nn.Module):
    """Runs the SRL heads for spaCy: the summed loss in training, decoded frames otherwise."""

    #: Length-sorted chunks' losses are added up (``torch_bridge.forward_units``): each chunk
    #: divides by its whole batch's target counts (or by 1, ``reduction = "sum"``), so the sum is
    #: the batch's losses.
    loss_reduction = "sum"

    def __init__(
        self,
        tagger: DeepAtt,
        identifier: PredicateIdentifier,
        n_senses: int,
        d_hidden: int,
        labels: Sequence[str],
        reduction: str = "mean",
    ) -> None:
        super().__init__()
        self.reduction = reduction  # "mean", "sum" or "balanced_sum" (model.py)
        self.tagger = tagger
        self.identifier = identifier
        d_top = tagger.output.in_features
        # Senses are read off DeepAtt's top states at the predicate: they are contextual and
        # predicate-aware, which the raw token vectors are not.
        self.sense: Optional[SenseClassifier] = (
            SenseClassifier(d_top, n_senses, d_hidden, tagger.config.relu_dropout) if n_senses else None
        )
        self.scheme = BIOScheme(labels)

    def forward(
        self, padded: torch.Tensor, lengths: torch.Tensor, batch: SrlBatch
    ) -> Union[torch.Tensor, FrameScores]:
        """The batch's summed losses in training (``batch.targets`` set), its rows' scores otherwise."""
        mask = lengths_to_mask(lengths, padded.shape[1])
        predicate_logits = self.identifier(padded)  # (N, T, 2)
        predicates = batch.predicates
        if any(p is None for p in predicates):
            found = to_host((predicate_logits.argmax(-1) == 1) & mask)
            predicates = [numpy.flatnonzero(found[u]).tolist() if p is None else p for u, p in enumerate(predicates)]
        rows, positions = predicate_rows(predicates, device=padded.device)
        role_logits = sense_logits = None
        if len(rows):  # sentences without predicates give no rows; DeepAtt never sees R = 0
            hidden, _ = self.tagger.encode(padded, mask, positions, rows)
            role_logits = self.tagger.output(hidden)
            if self.sense is not None:
                sense_logits = self.sense(hidden, torch.arange(len(rows), device=rows.device), positions)
        if batch.targets is None:
            return self.frame_scores(rows, positions, lengths, role_logits, sense_logits)
        return self.loss(batch.targets, mask, rows, predicate_logits, role_logits, sense_logits)

    def loss(
        self,
        targets: SrlTargets,
        mask: torch.Tensor,
        rows: torch.Tensor,
        predicate_logits: torch.Tensor,
        role_logits: Optional[torch.Tensor],
        sense_logits: Optional[torch.Tensor],
    ) -> torch.Tensor:
        """Role, predicate and sense losses, each summed here and divided by a count of the whole
        batch (``SrlTargets.totals``), so that chunks add up exactly: for "mean" each by its own
        targets, for "sum" by 1, for "balanced_sum" each by its own targets times the batch's role
        targets (the mean loss scaled up: the role term is its sum, the others keep their weight
        relative to it)."""
        device = predicate_logits.device
        n_roles, n_flags, n_senses = (max(total, 1) for total in targets.totals)
        if self.reduction == "sum":
            n_roles = n_flags = n_senses = 1
        elif self.reduction == "balanced_sum":
            n_roles, n_flags, n_senses = 1, n_flags / n_roles, n_senses / n_roles
        is_predicate = torch.as_tensor(targets.is_predicate, device=device)
        loss = self.identifier.loss(predicate_logits, is_predicate, mask, reduction="sum") / n_flags
        if role_logits is not None:
            roles = torch.as_tensor(targets.roles, device=device)
            loss = loss + self.tagger.loss(role_logits, roles, mask.index_select(0, rows), reduction="sum") / n_roles
        if sense_logits is not None:
            senses = torch.as_tensor(targets.senses, device=device)
            allowed = None if targets.sense_allowed is None else torch.as_tensor(targets.sense_allowed, device=device)
            loss = loss + targets.sense_weight * self.sense.loss(sense_logits, senses, allowed=allowed,
                                                                 reduction="sum") / n_senses
        return loss

    def frame_scores(
        self,
        rows: torch.Tensor,
        positions: torch.Tensor,
        lengths: torch.Tensor,
        role_logits: Optional[torch.Tensor],
        sense_logits: Optional[torch.Tensor],
    ) -> FrameScores:
        """Each (unit, predicate) row's role log-probabilities over its unit's words (so that
        Viterbi maximises the sequence's probability) and sense logits, on the host."""
        units, positions_ = rows.tolist(), positions.tolist()
        if role_logits is None:
            return FrameScores([], [], [], [])
        scores = to_host(torch.log_softmax(role_logits.float(), -1))
        senses: List[Optional[numpy.ndarray]] = [None] * len(units)
        if sense_logits is not None:
            senses = list(to_host(sense_logits))
        n_words = lengths.tolist()
        return FrameScores(units, positions_, [scores[r, : n_words[u]] for r, u in enumerate(units)], senses)

    def decode_rows(
        self,
        scores: FrameScores,
        decoder: str,
        spans: Optional[List[Optional[List[Tuple[int, int]]]]] = None,
        choices: Optional[FrameChoices] = None,
        tree_penalty: Optional[float] = None,
    ) -> DecodedFrames:
        """BIO label ids and senses of each (unit, predicate) row. Decoder "tree": each row's
        arguments are ``spans`` of its unit or single words, by the exact span-level Viterbi
        (with ``tree_penalty``, other spans of several words at that cost: ``settings.py``);
        rows of units without spans (None) get BIO Viterbi. "unique_roles": BIO Viterbi in which
        no core role (``decode.CORE_ROLES``) starts twice in a row. The component validated
        ``decoder``. With ``choices`` (the frame inventory's, per row) each row's sense is its
        choice, and the labels the chosen roleset does not allow score ``MASKED_SCORE`` in that
        row (in ``scores``' arrays), so no decoder chooses them."""
        units, positions, rows_scores = scores.units, scores.positions, scores.roles
        if not units:
            return DecodedFrames([], [], [], [], choices)
        senses: List[Optional[int]] = [None if row is None else int(row.argmax(-1)) for row in scores.senses]
        if choices is not None:
            for r in range(len(units)):
                senses[r] = choices.choose(r, scores.senses[r])
                if senses[r] is not None:
                    rows_scores[r][:, ~choices.role_masks[r, senses[r]]] = MASKED_SCORE
        if decoder == "tree":
            penalty = math.inf if tree_penalty is None else tree_penalty
            tags = self._decode_spans(rows_scores, units, positions, spans or [None] * (max(units) + 1), penalty)
        elif decoder == "unique_roles":
            tags = bio_viterbi_batch(rows_scores, self.scheme, positions, unique_roles=CORE_ROLES)
        else:
            decode = bio_viterbi_batch if decoder == "viterbi" else bio_argmax_batch
            tags = decode(rows_scores, self.scheme, positions)
        return DecodedFrames(units, positions, tags, senses, choices)

    def _decode_spans(self, scores, units: List[int], positions: List[int], spans, penalty: float) -> List[List[int]]:
        """Span-level Viterbi for rows whose unit has spans, BIO Viterbi for the others."""
        tags: List[Optional[List[int]]] = [None] * len(units)
        for use_spans in (True, False):
            rows = [r for r, u in enumerate(units) if (spans[u] is not None) == use_spans]
            if not rows:
                continue
            picked = [scores[r] for r in rows]
            preds = [positions[r] for r in rows]
            if use_spans:
                found = span_viterbi_batch(picked, self.scheme, [spans[units[r]] for r in rows], preds, penalty)
            else:
                found = bio_viterbi_batch(picked, self.scheme, preds)
            for r, seq in zip(rows, found):
                tags[r] = seq
        return tags

