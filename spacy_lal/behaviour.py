"""Behavioural checks: hand-written expectations about everyday English sentences, scored on a pipeline.

The data format (``spacy_lal/data/behaviour.jsonl``, one sentence a line) is described in
``tests/test_behaviour.py``. Each sentence is parsed from its gold words as one sentence; each check
passes or fails with a reason a reader can act on. No torch here: the pipeline does the work.

Two sets ship with the package (:data:`SETS`, read by name with :func:`set_path` / :func:`read_set`,
scored with :func:`run_set`): ``core`` (``behaviour.jsonl``, issue #17, the default) and ``everyday``
(``behaviour_everyday.jsonl``, issue #51: patterns rare in EWT's training text, such as noun-or-verb
words, phrases that belong to the verb, particles and stranded prepositions, role numbers, whose-relatives).
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc

DATA_DIR = Path(__file__).parent / "data"
#: The behaviour sets shipped with the package: name -> file of ``DATA_DIR``.
SETS: Dict[str, str] = {"core": "behaviour.jsonl", "everyday": "behaviour_everyday.jsonl"}
DEFAULT_SET = "core"

KINDS = ("root_label", "constituent", "tag", "dependency", "frame", "role")
# Fields each kind needs (beyond "kind"), and which of them are token indices / span ends.
FIELDS: Dict[str, Tuple[str, ...]] = {
    "root_label": ("label",),
    "constituent": ("start", "end", "label"),
    "tag": ("token", "tag"),
    "dependency": ("token", "head", "label"),
    "frame": ("predicate", "sense"),
    "role": ("predicate", "start", "end", "label"),
}


@dataclass(frozen=True)
class Sentence:
    id: str
    construction: str
    text: str
    words: Tuple[str, ...]
    checks: Tuple[Dict[str, Any], ...]
    note: Optional[str] = None


@dataclass(frozen=True)
class CheckResult:
    sentence: str
    construction: str
    check: Dict[str, Any]
    passed: bool
    reason: str  # what was expected and, on failure, what the pipeline gave


@dataclass
class BehaviourReport:
    results: List[CheckResult] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.results)

    @property
    def rate(self) -> float:
        return self.passed / len(self.results) if self.results else 0.0

    def by_construction(self) -> Dict[str, Tuple[int, int]]:
        """(passed, total) per construction, in the order of the data."""
        table: Dict[str, List[int]] = defaultdict(lambda: [0, 0])
        for r in self.results:
            table[r.construction][0] += r.passed
            table[r.construction][1] += 1
        return {name: (p, n) for name, (p, n) in table.items()}

    def failures(self) -> List[CheckResult]:
        return [r for r in self.results if not r.passed]

    def table(self) -> str:
        lines = [f"{'construction':<22}{'passed':>8}{'checks':>8}{'rate':>8}"]
        for name, (p, n) in self.by_construction().items():
            lines.append(f"{name:<22}{p:>8}{n:>8}{100 * p / n:>7.1f}%")
        lines.append(f"{'all':<22}{self.passed:>8}{len(self.results):>8}{100 * self.rate:>7.1f}%")
        return "\n".join(lines)


def read_sentences(path: Union[str, Path]) -> Iterator[Sentence]:
    """The sentences of a behaviour file; ValueError naming the file and line for a bad one."""
    with open(path, encoding="utf8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                yield _sentence(json.loads(line))
            except (ValueError, KeyError, TypeError) as error:
                raise ValueError(f"{path}, line {number}: {error}") from error


def set_path(name: str = DEFAULT_SET) -> Path:
    """The file of the shipped behaviour set ``name`` ("core", "everyday"); ValueError for another."""
    if name not in SETS:
        raise ValueError(f"unknown behaviour set {name!r} (known: {', '.join(SETS)})")
    return DATA_DIR / SETS[name]


def read_set(name: str = DEFAULT_SET) -> List[Sentence]:
    """The sentences of the shipped behaviour set ``name``."""
    return list(read_sentences(set_path(name)))


def _sentence(row: Dict[str, Any]) -> Sentence:
    words = tuple(row["words"])
    if not words or not all(isinstance(w, str) and w and not w.isspace() for w in words):
        raise ValueError("'words' must be a non-empty list of non-blank strings")
    checks = tuple(row["checks"])
    for check in checks:
        problem = check_problem(check, len(words))
        if problem:
            raise ValueError(f"sentence {row.get('id')!r}: check {check!r}: {problem}")
    return Sentence(row["id"], row["construction"], row["text"], words, checks, row.get("note"))


def check_problem(check: Dict[str, Any], n_words: int) -> Optional[str]:
    """Why ``check`` is malformed for a sentence of ``n_words`` words, or None."""
    kind = check.get("kind")
    if kind not in FIELDS:
        return f"unknown kind {kind!r} (known: {', '.join(KINDS)})"
    missing = [name for name in FIELDS[kind] if name not in check]
    if missing:
        return f"missing {', '.join(missing)}"
    for name in ("token", "head", "predicate", "start"):
        if name in check and not (isinstance(check[name], int) and 0 <= check[name] < n_words):
            return f"{name} {check[name]!r} is not a word index (0..{n_words - 1})"
    if "end" in check and not (isinstance(check["end"], int) and check["start"] < check["end"] <= n_words):
        return f"end {check['end']!r} must be after start and at most {n_words}"
    if kind == "role" and check["start"] <= check["predicate"] < check["end"]:
        return "a role span may not contain its predicate"
    return None


def parse(nlp: Language, words: Sequence[str]) -> Doc:
    """``words`` as one sentence, through every component of ``nlp`` (a sentence splitter keeps
    the given boundaries: it only fills in missing ones)."""
    doc = Doc(nlp.vocab, words=list(words), sent_starts=[True] + [False] * (len(words) - 1))
    return nlp(doc)


def run_checks(nlp: Language, path: Union[str, Path]) -> BehaviourReport:
    """Parse every sentence of the behaviour file ``path`` with ``nlp`` and evaluate its checks."""
    report = BehaviourReport()
    for sentence in read_sentences(path):
        doc = parse(nlp, sentence.words)
        for check in sentence.checks:
            passed, reason = evaluate(doc, check)
            report.results.append(CheckResult(sentence.id, sentence.construction, check, passed, reason))
    return report


def run_set(nlp: Language, name: str = DEFAULT_SET) -> BehaviourReport:
    """:func:`run_checks` on the shipped behaviour set ``name``."""
    return run_checks(nlp, set_path(name))


def evaluate(doc: Doc, check: Dict[str, Any]) -> Tuple[bool, str]:
    """Whether ``doc`` passes ``check``, and a reason saying what was expected and found."""
    return _EVALUATORS[check["kind"]](doc, check)


def _root_label(doc: Doc, check: Dict[str, Any]) -> Tuple[bool, str]:
    from .doc.api import NotAConstituentError

    want = f"the sentence root is {check['label']}"
    try:
        labels = doc[:]._.labels
    except NotAConstituentError:
        return False, f"{want}, but no tree covers the sentence"
    if labels and labels[0] == check["label"]:
        return True, want
    return False, f"{want}, got {_chain(labels)}"


def _constituent(doc: Doc, check: Dict[str, Any]) -> Tuple[bool, str]:
    from .doc.api import NotAConstituentError

    span = doc[check["start"] : check["end"]]
    want = f"{span.text!r} ({span.start}-{span.end}) is a {check['label']}"
    try:
        labels = span._.labels
    except NotAConstituentError:
        return False, f"{want}, but it is not a constituent"
    # A unary chain (S over VP) is one span: either label satisfies the check.
    if check["label"] in labels:
        return True, want
    return False, f"{want}, got {_chain(labels) if labels else 'a bare word'}"


def _tag(doc: Doc, check: Dict[str, Any]) -> Tuple[bool, str]:
    token = doc[check["token"]]
    want = f"{token.text!r} ({token.i}) is tagged {check['tag']}"
    return (True, want) if token.tag_ == check["tag"] else (False, f"{want}, got {token.tag_ or 'no tag'}")


def _dependency(doc: Doc, check: Dict[str, Any]) -> Tuple[bool, str]:
    token = doc[check["token"]]
    head = doc[check["head"]]
    label = check["label"]
    # spaCy's own parsers call the root label "ROOT", UD "root".
    want = f"{token.text!r} ({token.i}) is the root" if head.i == token.i else (
        f"{token.text!r} ({token.i}) is the {label} of {head.text!r} ({head.i})"
    )
    if not doc.has_annotation("DEP"):
        return False, f"{want}, but the doc has no dependencies"
    if token.head.i == head.i and token.dep_.lower() == label.lower():
        return True, want
    got_head = "itself" if token.head.i == token.i else f"{token.head.text!r} ({token.head.i})"
    return False, f"{want}, got {token.dep_ or 'no label'} of {got_head}"


def _find_frame(doc: Doc, predicate: int) -> Any:
    return next((frame for frame in doc._.srl if frame.predicate.i == predicate), None)


def _frame(doc: Doc, check: Dict[str, Any]) -> Tuple[bool, str]:
    predicate = doc[check["predicate"]]
    sense = check["sense"]
    want = f"{predicate.text!r} ({predicate.i}) has a frame" + (f" {sense}" if sense else "")
    frame = _find_frame(doc, predicate.i)
    if frame is None:
        return False, f"{want}, but it has none"
    if sense and frame.sense != sense:
        return False, f"{want}, got {frame.sense or 'no sense'}"
    return True, want


def _role(doc: Doc, check: Dict[str, Any]) -> Tuple[bool, str]:
    predicate = doc[check["predicate"]]
    span = doc[check["start"] : check["end"]]
    want = f"[{check['label']} {span.text}] of {predicate.text!r} ({predicate.i})"
    frame = _find_frame(doc, predicate.i)
    if frame is None:
        return False, f"{want}, but {predicate.text!r} has no frame"
    for argument in frame.arguments:
        if (argument.start, argument.end, argument.label_) == (span.start, span.end, check["label"]):
            return True, want
    return False, f"{want}, got {frame}"


def _chain(labels: Sequence[str]) -> str:
    return "-".join(labels) if labels else "no label"


_EVALUATORS = {
    "root_label": _root_label,
    "constituent": _constituent,
    "tag": _tag,
    "dependency": _dependency,
    "frame": _frame,
    "role": _role,
}
