"""Labelled bracket scoring, equal to EVALB run with COLLINS.prm.

The rules below follow ``evalb.c`` (Sekine & Collins, 1997, with the 2003/2006
updates) and the ``COLLINS.prm`` parameter file distributed with it:

* Words: a preterminal whose tag is a DELETE_LABEL (``-NONE-`` and the
  punctuation tags ``, : `` '' .``) is removed together with its word *before*
  bracket extents are computed. Tags are compared as written (no function-tag
  stripping), so ``(-NONE- *T*-1)`` goes but a tag like ``.-X`` would stay.
* Sentence length (``Len.`` and the ``len<=40`` cut-off) counts every word but
  those tagged with a DELETE_LABEL_FOR_LENGTH tag (``-NONE-``): punctuation *is*
  counted there, while the word count behind tagging accuracy (``Words``) is taken
  after all deletions.
* Brackets: every non-terminal node is one bracket, so the nodes of a unary chain
  with the same extent are separate brackets. Labels are cut at the first ``-`` or
  ``=`` (``NP-SBJ-1`` -> ``NP``). A bracket is deleted when its (cut) label is a
  DELETE_LABEL (``TOP``) or when it covers no word after the deletions (a
  constituent of punctuation or empty elements only). The label-less root of
  ``( (S ...))`` is *not* deleted: EVALB counts it like any bracket (so does this
  module); ``ROOT`` is not deleted either, only ``TOP``.
* Matching: for each gold bracket, in order, the first unmatched test bracket with
  the same extent and an equal label (ADVP = PRT by EQ_LABEL) is matched, so
  duplicate brackets are matched as a multiset.
* Crossing: a test bracket crosses if some gold bracket overlaps it without
  nesting; counted once per test bracket.
* A sentence is *skipped* (status 2) when the test tree has no word left, and is an
  *error* (status 1) when the numbers of words differ or a word differs. Skipped
  and error sentences add nothing to the totals; EVALB prints them on stderr, here
  they are kept in :attr:`EvalbResult.sentences` / :attr:`EvalbResult.errors`.
  (EVALB also aborts after MAX_ERROR errors; this module never aborts.)
* Complete match: valid sentences with ``gold == test == matched`` brackets.
* Totals: recall = matched / gold brackets, precision = matched / test brackets
  over valid sentences; F1 is their harmonic mean (0 where EVALB prints nan).

Positions are opaque integers: word indices for trees read from files, character
offsets when the spaCy scorer compares docs that are tokenized differently. Only
order and equality of positions matter, so both give the same numbers.
"""
from dataclasses import dataclass
from pathlib import Path
from typing import (
    Dict,
    FrozenSet,
    Iterable,
    List,
    Optional,
    Protocol,
    Sequence,
    Tuple,
    Union,
)

from .evalb_totals import EvalbResult, EvalbTotals, SentenceScore

__all__ = [
    "COLLINS",
    "Bracketing",
    "EvalbParams",
    "EvalbResult",
    "EvalbTotals",
    "SentenceScore",
    "bracketing_from_tree",
    "evalb",
    "merge_bracketings",
    "score_sentence",
    "evalb_bracketings",
    "score_tree_files",
]


class TreeLike(Protocol):
    """What EVALB needs of a tree (:class:`spacy_lal.doc.tree.Tree` provides it)."""

    label: str
    children: Sequence["TreeLike"]
    word: Optional[str]


@dataclass(frozen=True)
class EvalbParams:
    """The parameters of an EVALB ``.prm`` file; the defaults are COLLINS.prm."""

    delete_labels: FrozenSet[str] = frozenset({"TOP", "-NONE-", ",", ":", "``", "''", "."})
    delete_labels_for_length: FrozenSet[str] = frozenset({"-NONE-"})
    equivalent_labels: Tuple[Tuple[str, str], ...] = (("ADVP", "PRT"),)
    equivalent_words: Tuple[Tuple[str, str], ...] = ()
    labeled: bool = True
    cutoff_len: int = 40

    def label_eq(self, a: str, b: str) -> bool:
        """EVALB's ``label_comp``: equal, or an EQ_LABEL pair (either direction)."""
        return a == b or _in_pairs(a, b, self.equivalent_labels)

    def word_eq(self, a: str, b: str) -> bool:
        """EVALB's ``word_comp``: equal, or an EQ_WORD pair (either direction)."""
        return a == b or _in_pairs(a, b, self.equivalent_words)


COLLINS = EvalbParams()


def _in_pairs(a: str, b: str, pairs: Tuple[Tuple[str, str], ...]) -> bool:
    return any((a, b) == pair or (b, a) == pair for pair in pairs)


@dataclass(frozen=True)
class Bracketing:
    """One sentence as EVALB sees it, after deleting words.

    ``words`` and ``tags`` are the words left after deleting DELETE_LABEL
    preterminals; ``brackets`` are ``(start, end, label)`` for every non-terminal,
    in pre-order, with the raw label (cut and deleted later, as EVALB does);
    ``length`` is EVALB's sentence length (only DELETE_LABEL_FOR_LENGTH words
    are left out). ``start``/``end`` are positions of the first kept word and past
    the last kept word (``start == end`` for a bracket over deleted words only).
    ``word_spans`` holds each kept word's ``(start, end)`` position when the
    positions are character offsets (see :func:`merge_bracketings`), else ``None``.
    """

    words: Tuple[str, ...]
    tags: Tuple[str, ...]
    brackets: Tuple[Tuple[int, int, str], ...]
    length: int
    word_spans: Optional[Tuple[Tuple[int, int], ...]] = None


def bracketing_from_tree(
    tree: TreeLike,
    params: EvalbParams = COLLINS,
    positions: Optional[Sequence[Tuple[int, int]]] = None,
) -> Bracketing:
    """Read one raw (not normalized) tree the way EVALB's ``read_line`` does.

    ``positions``, if given, holds a ``(start, end)`` position for each word of
    the tree, deleted ones included (e.g. character offsets in a Doc); brackets
    then run from the start of their first kept word to the end of their last.
    By default words are numbered after the deletions, as in EVALB.
    """
    words: List[str] = []
    tags: List[str] = []
    kept_leaves: List[int] = []
    brackets: List[Tuple[int, int, str]] = []
    length = 0
    n_leaves = 0
    # Iterative pre-order walk (PTB trees can be deep); a bracket gets its end
    # when the walk comes back to its node, like EVALB's stack of open brackets.
    stack: List[Tuple[TreeLike, int]] = [(tree, -1)]
    while stack:
        node, bracket_id = stack.pop()
        if bracket_id >= 0:
            start, _, label = brackets[bracket_id]
            brackets[bracket_id] = (start, len(words), label)
        elif node.word is not None:
            if node.label not in params.delete_labels_for_length:
                length += 1
            if node.label not in params.delete_labels:
                words.append(node.word)
                tags.append(node.label)
                kept_leaves.append(n_leaves)
            n_leaves += 1
        else:
            brackets.append((len(words), -1, node.label))
            stack.append((node, len(brackets) - 1))
            stack.extend((child, -1) for child in reversed(node.children))
    if positions is None:
        return Bracketing(tuple(words), tuple(tags), tuple(brackets), length)
    if len(positions) != n_leaves:
        raise ValueError(f"{len(positions)} positions given for a tree of {n_leaves} words")
    spans = tuple(tuple(positions[leaf]) for leaf in kept_leaves)
    brackets = [
        (spans[start][0], spans[end - 1][1], label) if start < end else (0, 0, label)
        for start, end, label in brackets
    ]
    return Bracketing(tuple(words), tuple(tags), tuple(brackets), length, spans)  # type: ignore[arg-type]


def merge_bracketings(parts: Sequence[Bracketing]) -> Bracketing:
    """Join sentences given in character offsets into one unit (one Doc), so that
    two tokenizations or sentence segmentations of one text can be compared."""
    if any(part.word_spans is None for part in parts):
        raise ValueError("only bracketings in character offsets can be merged")
    return Bracketing(
        tuple(w for part in parts for w in part.words),
        tuple(t for part in parts for t in part.tags),
        tuple(b for part in parts for b in part.brackets),
        sum(part.length for part in parts),
        tuple(s for part in parts for s in part.word_spans or ()),
    )


def _cut_label(label: str) -> str:
    """EVALB's ``modify_label``: cut at the first ``-`` or ``=``."""
    for i, char in enumerate(label):
        if char in "-=":
            return label[:i]
    return label


def score_sentence(
    gold: Bracketing, test: Bracketing, params: EvalbParams = COLLINS, sent_id: int = 1
) -> SentenceScore:
    """Score one sentence as EVALB's ``calc_result`` does.

    Bracketings in character offsets (``word_spans`` set on both) come from one
    text, so words are not compared; tags are compared where word spans agree.
    """
    if not test.words:
        return SentenceScore(sent_id, gold.length, 2, message="No words in the test sentence")
    by_chars = gold.word_spans is not None and test.word_spans is not None
    if not by_chars:
        error = _word_error(gold.words, test.words, params)
        if error:
            return SentenceScore(sent_id, gold.length, 1, message=error)

    gold_kept = _kept_brackets(gold.brackets, params)
    test_kept = _kept_brackets(test.brackets, params)
    # Greedy matching in EVALB's order: gold brackets in turn, each taking the
    # first unmatched test bracket with the same extent and an equal label.
    by_extent: Dict[Tuple[int, int], List[int]] = {}
    for j, (start, end, _) in enumerate(test_kept):
        by_extent.setdefault((start, end), []).append(j)
    taken = [False] * len(test_kept)
    matched = 0
    for start, end, label in gold_kept:
        for j in by_extent.get((start, end), ()):
            if not taken[j] and (not params.labeled or params.label_eq(label, test_kept[j][2])):
                taken[j] = True
                matched += 1
                break
    crossing = sum(
        1
        for t_start, t_end, _ in test_kept
        if any(
            (g_start < t_start < g_end < t_end) or (t_start < g_start < t_end < g_end)
            for g_start, g_end, _ in gold_kept
        )
    )
    if by_chars:
        test_tags = dict(zip(test.word_spans or (), test.tags))
        correct_tags = sum(
            span in test_tags and params.label_eq(tag, test_tags[span])
            for span, tag in zip(gold.word_spans or (), gold.tags)
        )
    else:
        correct_tags = sum(params.label_eq(g, t) for g, t in zip(gold.tags, test.tags))
    return SentenceScore(
        sent_id,
        gold.length,
        0,
        matched=matched,
        gold_brackets=len(gold_kept),
        test_brackets=len(test_kept),
        crossing=crossing,
        words=len(gold.words),
        correct_tags=correct_tags,
    )


def _word_error(gold: Sequence[str], test: Sequence[str], params: EvalbParams) -> str:
    """EVALB's sentence errors, with its messages; "" when the words agree."""
    if len(gold) != len(test):
        return f"Length unmatch ({len(gold)}|{len(test)})"
    for gold_word, test_word in zip(gold, test):
        if not params.word_eq(gold_word, test_word):
            return f"Words unmatch ({gold_word}|{test_word})"
    return ""


def _kept_brackets(
    brackets: Iterable[Tuple[int, int, str]], params: EvalbParams
) -> List[Tuple[int, int, str]]:
    """EVALB's ``massage_data``: drop empty-extent and DELETE_LABEL brackets."""
    kept = []
    for start, end, label in brackets:
        if start == end:
            continue
        label = _cut_label(label)
        if any(params.label_eq(label, deleted) for deleted in params.delete_labels):
            continue
        kept.append((start, end, label))
    return kept


def evalb_bracketings(
    pairs: Iterable[Tuple[Bracketing, Bracketing]], params: EvalbParams = COLLINS
) -> EvalbResult:
    """Score ``(gold, test)`` bracketings; sentence ids count from 1."""
    result = EvalbResult(cutoff_len=params.cutoff_len)
    for sent_id, (gold, test) in enumerate(pairs, start=1):
        result.add(score_sentence(gold, test, params, sent_id))
    return result


def evalb(
    gold_trees: Iterable[TreeLike],
    test_trees: Iterable[TreeLike],
    params: EvalbParams = COLLINS,
) -> EvalbResult:
    """Score raw trees (as read, not normalized) like EVALB scores two files.

    Raises ``ValueError`` when the numbers of trees differ (EVALB's "Number of
    lines unmatch"), because the sentences can no longer be paired.
    """
    gold_list, test_list = list(gold_trees), list(test_trees)
    if len(gold_list) != len(test_list):
        raise ValueError(
            f"Number of trees differs: {len(gold_list)} gold, {len(test_list)} test"
        )
    return evalb_bracketings(
        (
            (bracketing_from_tree(gold, params), bracketing_from_tree(test, params))
            for gold, test in zip(gold_list, test_list)
        ),
        params,
    )


def score_tree_files(
    gold_path: Union[str, Path],
    test_path: Union[str, Path],
    params: EvalbParams = COLLINS,
    *,
    word_errors: str = "report",
) -> EvalbResult:
    """EVALB on two bracketed files (any layout :func:`spacy_lal.corpora.ptb.read_trees` reads).

    Files with different numbers of trees raise ``ValueError`` ("Number of trees differs", as
    :func:`evalb`) naming the file and line of the first tree without a partner, and the first
    pair whose words differ, if any (a tree missing in the middle shows there). Sentences whose
    words differ are EVALB's error sentences, reported and left out of the totals
    (``word_errors="report"``); with ``word_errors="raise"`` the first one raises ``ValueError``
    naming both files and lines instead, since it means that the files do not pair.
    """
    from ..corpora.ptb import read_trees_with_lines

    if word_errors not in ("report", "raise"):
        raise ValueError(f"word_errors must be 'report' or 'raise', not {word_errors!r}")
    gold = list(read_trees_with_lines(Path(gold_path)))
    test = list(read_trees_with_lines(Path(test_path)))
    result = evalb_bracketings(
        ((bracketing_from_tree(g, params), bracketing_from_tree(t, params)) for (_, g), (_, t) in zip(gold, test)),
        params,
    )
    first_error = next((score for score in result.sentences if score.status == 1), None)

    def where(score: SentenceScore) -> str:
        k = score.id - 1
        return f"{gold_path}, line {gold[k][0]} and {test_path}, line {test[k][0]}: tree {score.id}: {score.message}"

    if len(gold) != len(test):
        n = min(len(gold), len(test))
        path, longer = (gold_path, gold) if len(gold) > n else (test_path, test)
        first = f"; the words first differ at {where(first_error)}" if first_error else ""
        raise ValueError(
            f"Number of trees differs: {len(gold)} gold, {len(test)} test "
            f"({path}, line {longer[n][0]}: tree {n + 1} has no partner){first}"
        )
    if word_errors == "raise" and first_error is not None:
        raise ValueError(f"{where(first_error)}: the files' words differ, so their trees do not pair")
    return result
