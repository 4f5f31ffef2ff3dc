"""EVALB's output (``evalb.py`` scores): one sentence's line, the two summary blocks
(``-- All --`` and ``-- len<=40 --``) and the whole result, with the rates EVALB prints."""
from dataclasses import dataclass, field
from typing import Dict, List

__all__ = ["EvalbResult", "EvalbTotals", "SentenceScore"]


@dataclass(frozen=True)
class SentenceScore:
    """EVALB's line for one sentence. ``status``: 0 ok, 1 error, 2 skip."""

    id: int
    length: int
    status: int
    matched: int = 0
    gold_brackets: int = 0
    test_brackets: int = 0
    crossing: int = 0
    words: int = 0
    correct_tags: int = 0
    message: str = ""

    @property
    def complete_match(self) -> bool:
        return self.status == 0 and self.gold_brackets == self.test_brackets == self.matched


@dataclass
class EvalbTotals:
    """One block of EVALB's summary (``-- All --`` or ``-- len<=40 --``)."""

    sentences: int = 0
    error_sentences: int = 0
    skip_sentences: int = 0
    gold_brackets: int = 0
    test_brackets: int = 0
    matched: int = 0
    complete_match_sentences: int = 0
    crossing: int = 0
    no_crossing_sentences: int = 0
    two_or_less_crossing_sentences: int = 0
    words: int = 0
    correct_tags: int = 0

    def add(self, score: SentenceScore) -> None:
        self.sentences += 1
        if score.status == 1:
            self.error_sentences += 1
            return
        if score.status == 2:
            self.skip_sentences += 1
            return
        self.gold_brackets += score.gold_brackets
        self.test_brackets += score.test_brackets
        self.matched += score.matched
        self.complete_match_sentences += score.complete_match
        self.crossing += score.crossing
        self.no_crossing_sentences += score.crossing == 0
        self.two_or_less_crossing_sentences += score.crossing <= 2
        self.words += score.words
        self.correct_tags += score.correct_tags

    @property
    def valid_sentences(self) -> int:
        return self.sentences - self.error_sentences - self.skip_sentences

    @property
    def recall(self) -> float:
        return _ratio(self.matched, self.gold_brackets)

    @property
    def precision(self) -> float:
        return _ratio(self.matched, self.test_brackets)

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def complete_match(self) -> float:
        return _ratio(self.complete_match_sentences, self.valid_sentences)

    @property
    def average_crossing(self) -> float:
        return _ratio(self.crossing, self.valid_sentences)

    @property
    def no_crossing(self) -> float:
        return _ratio(self.no_crossing_sentences, self.valid_sentences)

    @property
    def two_or_less_crossing(self) -> float:
        return _ratio(self.two_or_less_crossing_sentences, self.valid_sentences)

    @property
    def tagging_accuracy(self) -> float:
        return _ratio(self.correct_tags, self.words)

    def to_dict(self) -> Dict[str, float]:
        """Counts, and the rates as fractions in [0, 1]."""
        out: Dict[str, float] = dict(self.__dict__)
        out["valid_sentences"] = self.valid_sentences
        for name in (
            "precision",
            "recall",
            "f1",
            "complete_match",
            "average_crossing",
            "no_crossing",
            "two_or_less_crossing",
            "tagging_accuracy",
        ):
            out[name] = getattr(self, name)
        return out


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


@dataclass
class EvalbResult:
    """All of EVALB's output: per-sentence lines and the two summaries."""

    cutoff_len: int
    all: EvalbTotals = field(default_factory=EvalbTotals)
    cutoff: EvalbTotals = field(default_factory=EvalbTotals)
    sentences: List[SentenceScore] = field(default_factory=list)

    @property
    def errors(self) -> List[SentenceScore]:
        """Error and skipped sentences (not counted in the totals)."""
        return [s for s in self.sentences if s.status != 0]

    def add(self, score: SentenceScore) -> None:
        self.sentences.append(score)
        self.all.add(score)
        if score.length <= self.cutoff_len:
            self.cutoff.add(score)
