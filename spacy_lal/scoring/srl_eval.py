"""SRL precision, recall, F1 and perfect propositions, equal to CoNLL-2005 ``srl-eval.pl``.

Definitions taken from ``srl-eval.pl`` (Carreras & Marquez, 2004/2005):

* Props files: one line per word, blank line between sentences. Column 0 holds the
  target verbs (anything but ``-`` is a target); column ``k`` holds the Start-End
  tags of the ``k``-th target's arguments: ``(A0*``, ``*``, ``*)``, ``(V*)``, ...
  Nested brackets are read too, and every bracket of a column becomes a phrase;
  two phrases with the same extent keep only the one read last.
* Phrases are taken in order of start, then longest first. A ``C-X`` phrase
  continues the latest ``X`` argument of the proposition, making one discontinuous
  argument (``X`` + ``C-X`` + ...) that is correct only if all its pieces are; a
  ``C-X`` with no ``X`` before it becomes a plain ``X`` argument. ``R-X`` is a label
  of its own.
* Per proposition, a predicted argument is correct when a gold argument has the
  same extent (first to last word), the same label, and, for discontinuous ones,
  the same pieces; every other predicted argument is an excess, every unmatched
  gold argument is missed.
* ``V`` is excluded: it is not counted in the overall numbers (it is reported on
  its own, see :attr:`SrlResult.excluded`) nor in perfect propositions.
* Propositions are paired by the position of their target. A predicted
  proposition without a gold one is skipped (with a warning); a gold proposition
  without a predicted one, or whose predicted target verb differs, has all its
  arguments missed (with a warning).
* Precision = correct / (correct + excess), recall = correct / (correct + missed),
  F1 their harmonic mean; perfect propositions = propositions with no excess and no
  missed argument, over all gold propositions.

Unlike the Perl script, which stops at a second consecutive blank line and ignores
missing or extra argument columns with a warning, this reader skips extra blank
lines and raises :class:`SrlFormatError` on malformed input; sentences with
different numbers of words raise as in the script.

Positions are opaque integers: token indices for files, character offsets for
spaCy docs; only their order and equality matter.
"""
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

__all__ = [
    "EXCLUDED",
    "Argument",
    "Proposition",
    "PropsSentence",
    "SrlFormatError",
    "SrlResult",
    "arguments_from_phrases",
    "parse_props",
    "read_props",
    "score_props_files",
    "score_srl",
]

EXCLUDED = frozenset({"V"})

Phrase = Tuple[int, int, str]  # (start, end exclusive, label)


class SrlFormatError(ValueError):
    """Props input that srl-eval.pl rejects (or would misread)."""


@dataclass(frozen=True)
class Argument:
    """An argument: its label and its pieces ``(start, end)``, end exclusive.

    A discontinuous argument (``X`` with ``C-X`` pieces) has several pieces; its
    extent runs from the start of the first to the end of the last.
    """

    label: str
    pieces: Tuple[Tuple[int, int], ...]

    @property
    def extent(self) -> Tuple[int, int]:
        return self.pieces[0][0], self.pieces[-1][1]

    @property
    def single(self) -> bool:
        return len(self.pieces) == 1


@dataclass(frozen=True)
class Proposition:
    position: int
    verb: str
    arguments: Tuple[Argument, ...]


@dataclass(frozen=True)
class PropsSentence:
    length: int
    propositions: Tuple[Proposition, ...]
    # Where the sentence starts in its file (1-based), for errors; not part of its value.
    line_no: Optional[int] = field(default=None, compare=False)


def arguments_from_phrases(phrases: Iterable[Phrase]) -> Tuple[Argument, ...]:
    """Turn labelled phrases of one proposition into arguments, as srl-eval.pl's
    ``prop::load_SE_tagging`` does (same extent: the later phrase wins; order by
    start, longest first; ``C-X`` continues the latest ``X``)."""
    by_extent: Dict[Tuple[int, int], str] = {}
    for start, end, label in phrases:
        by_extent.pop((start, end), None)
        by_extent[(start, end)] = label
    ordered = sorted(by_extent.items(), key=lambda item: (item[0][0], -item[0][1]))
    args: List[List] = []  # [label, [pieces]] kept mutable while continuing
    latest: Dict[str, List] = {}
    for (start, end), label in ordered:
        if label.startswith("C-"):
            base = label[2:]
            if base in latest:
                latest[base][1].append((start, end))
                continue
            label = base  # a continuation without its head counts as the head
        arg = [label, [(start, end)]]
        args.append(arg)
        latest[label] = arg
    return tuple(Argument(label, tuple(pieces)) for label, pieces in args)


def _parse_column(tags: Sequence[str], where: str) -> List[Phrase]:
    """Start-End tags of one column -> phrases in the order srl-eval.pl stores them
    (each outermost phrase when it closes, followed by its nested phrases)."""
    open_stack: List[Tuple[int, str, List[Phrase]]] = []
    out: List[Phrase] = []
    for i, tag in enumerate(tags):
        rest = tag
        while not rest.startswith("*"):
            if not rest.startswith("(") or len(rest) < 2:
                raise SrlFormatError(f"{where}, word {i + 1}: bad tag {tag!r}")
            stop = _find_label_end(rest, 1)
            if stop == 1:
                raise SrlFormatError(f"{where}, word {i + 1}: bad tag {tag!r}")
            open_stack.append((i, rest[1:stop], []))
            rest = rest[stop:]
        rest = rest[1:]
        while rest:
            close = rest.find(")")
            if close < 0 or not open_stack:
                raise SrlFormatError(f"{where}, word {i + 1}: bad closing in {tag!r}")
            label = rest[:close]
            start, open_label, nested = open_stack.pop()
            if label and label != open_label:
                raise SrlFormatError(
                    f"{where}, word {i + 1}: {open_label!r} closed as {label!r} in {tag!r}"
                )
            phrases = [(start, i + 1, open_label)] + nested
            (open_stack[-1][2] if open_stack else out).extend(phrases)
            rest = rest[close + 1 :]
    if open_stack:
        raise SrlFormatError(f"{where}: unclosed argument {open_stack[-1][1]!r}")
    return out


def _find_label_end(tag: str, i: int) -> int:
    """End of a label in an opening tag: up to ``*`` or ``(``; ``\\*`` is escaped."""
    while i < len(tag):
        if tag.startswith("\\*", i):
            i += 2
        elif tag[i] in "*(":
            break
        else:
            i += 1
    return i


def parse_props(text: str, name: str = "<string>") -> List[PropsSentence]:
    """Read props text (see the module docstring)."""
    sentences: List[PropsSentence] = []
    block: List[List[str]] = []
    first_line = 0
    lines = text.splitlines()
    for line_no, line in enumerate(lines + [""], start=1):
        fields = line.split()
        if fields:
            if not block:
                first_line = line_no
            if block and len(fields) != len(block[0]):
                raise SrlFormatError(
                    f"{name}, line {line_no}: {len(fields)} columns, expected {len(block[0])}"
                )
            block.append(fields)
        elif block:
            sentences.append(_read_sentence(block, f"{name}, sentence at line {first_line}", first_line))
            block = []
    return sentences


def _read_sentence(block: List[List[str]], where: str, line_no: Optional[int] = None) -> PropsSentence:
    columns = list(zip(*block))
    targets = [(i, verb) for i, verb in enumerate(columns[0]) if verb != "-"]
    if len(targets) != len(columns) - 1:
        raise SrlFormatError(
            f"{where}: {len(targets)} target verbs but {len(columns) - 1} argument columns"
        )
    props = tuple(
        Proposition(position, verb, arguments_from_phrases(_parse_column(column, where)))
        for (position, verb), column in zip(targets, columns[1:])
    )
    return PropsSentence(len(block), props, line_no)


def read_props(path: Union[str, Path]) -> List[PropsSentence]:
    path = Path(path)
    return parse_props(path.read_text(encoding="utf8"), name=str(path))


@dataclass
class Counts:
    correct: int = 0
    excess: int = 0
    missed: int = 0

    @property
    def precision(self) -> float:
        total = self.correct + self.excess
        return self.correct / total if total else 0.0

    @property
    def recall(self) -> float:
        total = self.correct + self.missed
        return self.correct / total if total else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_dict(self) -> Dict[str, float]:
        return {
            "correct": self.correct,
            "excess": self.excess,
            "missed": self.missed,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
        }


@dataclass
class SrlResult:
    """srl-eval.pl's report: overall counts (V excluded), per label, and V apart."""

    sentences: int = 0
    propositions: int = 0
    perfect_propositions: int = 0
    overall: Counts = field(default_factory=Counts)
    per_label: Dict[str, Counts] = field(default_factory=dict)
    excluded: Dict[str, Counts] = field(default_factory=dict)
    warnings: List[str] = field(default_factory=list)

    @property
    def perfect(self) -> float:
        return self.perfect_propositions / self.propositions if self.propositions else 0.0

    def add_proposition(self, gold: Proposition, pred: Optional[Proposition]) -> None:
        correct, excess, missed = _discriminate(gold.arguments, pred.arguments if pred else ())
        self.propositions += 1
        clean = True
        for args, kind in ((correct, "correct"), (excess, "excess"), (missed, "missed")):
            for label, n in Counter(arg.label for arg in args).items():
                table = self.excluded if label in EXCLUDED else self.per_label
                counts = table.setdefault(label, Counts())
                setattr(counts, kind, getattr(counts, kind) + n)
                if label not in EXCLUDED:
                    setattr(self.overall, kind, getattr(self.overall, kind) + n)
                    clean = clean and kind == "correct"
        self.perfect_propositions += clean


def _discriminate(
    gold: Sequence[Argument], pred: Sequence[Argument]
) -> Tuple[List[Argument], List[Argument], List[Argument]]:
    """srl-eval.pl's ``prop::discriminate_args``: (correct, excess, missed).

    Gold arguments are looked up by extent; of two gold arguments with the same
    extent only the later one is seen (as in the script).
    """
    remaining: Dict[Tuple[int, int], Argument] = {}
    for arg in gold:
        remaining[arg.extent] = arg
    correct: List[Argument] = []
    excess: List[Argument] = []
    for arg in pred:
        match = remaining.get(arg.extent)
        if (
            match is not None
            and match.label == arg.label
            and match.single == arg.single
            and (arg.single or _same_pieces(match.pieces, arg.pieces))
        ):
            correct.append(arg)
            del remaining[arg.extent]
        else:
            excess.append(arg)
    return correct, excess, list(remaining.values())


def _same_pieces(gold: Tuple[Tuple[int, int], ...], pred: Tuple[Tuple[int, int], ...]) -> bool:
    # The script ticks each predicted piece off the set of gold pieces.
    return len(set(pred)) == len(pred) and set(pred) == set(gold)


def score_srl(
    gold: Sequence[PropsSentence], pred: Sequence[PropsSentence], *, names: Tuple[str, str] = ("gold", "predicted")
) -> SrlResult:
    """Score predicted propositions against gold ones, sentence by sentence.

    Files that do not pair (a sentence of other length, another number of sentences) raise
    :class:`SrlFormatError` naming, by ``names`` (the files), where the first pair that does not
    fit starts in each; a sentence missing in the middle shows as the first length that differs.
    """
    for sent_id, (g_sent, p_sent) in enumerate(zip(gold, pred), start=1):
        if g_sent.length != p_sent.length:
            raise SrlFormatError(
                f"{_at(names[0], g_sent)} and {_at(names[1], p_sent)}: sentence {sent_id}: gold and predicted "
                f"sentences do not align ({g_sent.length} and {p_sent.length} words)"
            )
    if len(gold) != len(pred):
        longer, name = (gold, names[0]) if len(gold) > len(pred) else (pred, names[1])
        raise SrlFormatError(
            f"Number of sentences differs: {len(gold)} gold, {len(pred)} predicted "
            f"({_at(name, longer[min(len(gold), len(pred))])}: sentence {min(len(gold), len(pred)) + 1} has no partner)"
        )
    result = SrlResult()
    for sent_id, (g_sent, p_sent) in enumerate(zip(gold, pred), start=1):
        score_sentence(g_sent.propositions, p_sent.propositions, result, sent_id)
    return result


def _at(name: str, sentence: PropsSentence) -> str:
    return name if sentence.line_no is None else f"{name}, line {sentence.line_no}"


def score_sentence(
    gold: Iterable[Proposition], pred: Iterable[Proposition], result: SrlResult, sent_id: int
) -> None:
    """Add one sentence's propositions to ``result`` (pairing them by position)."""
    gold_at = {prop.position: prop for prop in gold}
    pred_at = {prop.position: prop for prop in pred}
    result.sentences += 1
    for position in sorted(pred_at.keys() - gold_at.keys()):
        result.warnings.append(
            f"sentence {sent_id}: verb {pred_at[position].verb!r} at position {position}: "
            "predicted proposition without a gold one, skipped"
        )
    for position in sorted(gold_at):
        g_prop, p_prop = gold_at[position], pred_at.get(position)
        if p_prop is None:
            result.warnings.append(
                f"sentence {sent_id}: verb {g_prop.verb!r} at position {position}: "
                "missing predicted proposition, all its arguments missed"
            )
        elif p_prop.verb != g_prop.verb:
            result.warnings.append(
                f"sentence {sent_id}: expected verb {g_prop.verb!r} at position {position}, "
                f"found {p_prop.verb!r}: all its arguments missed"
            )
            p_prop = None
        result.add_proposition(g_prop, p_prop)


def score_props_files(gold_path: Union[str, Path], pred_path: Union[str, Path]) -> SrlResult:
    """:func:`score_srl` on two props files (errors name them and the lines)."""
    return score_srl(read_props(gold_path), read_props(pred_path), names=(str(gold_path), str(pred_path)))
