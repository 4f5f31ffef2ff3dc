"""The scores of the CoNLL 2018 UD shared task, equal to its scorer (``conll18_ud_eval.py``).

Reading CoNLL-U is in :mod:`.ud_read` and the matching of tokens, sentences and
words in :mod:`.ud_align`; their public names are importable from here too. Each
metric is defined as in the official scorer (version 1.2; its metrics are unchanged
in the later revisions):

* Gold and system files must have the same characters (their token FORMs
  concatenated, Unicode ``Zs`` spaces removed), else :class:`UDError`.
* Tokens, Sentences: a system token (sentence) is correct when a gold token
  (sentence) covers the same characters.
* Words: the words aligned through the characters, multi-word tokens by an LCS of
  FORMs (see :mod:`.ud_align`).
* On aligned words, a system word is correct for
  UPOS, XPOS: when the column equals the gold one;
  UFeats: when its universal features (:data:`UNIVERSAL_FEATURES`) equal the gold
  ones; AllTags: UPOS, XPOS and UFeats all equal;
  Lemmas: when its LEMMA equals the gold LEMMA, or the gold LEMMA is ``_``;
  UAS: when its head is aligned to the gold word's head (or both are the root);
  LAS: UAS and also the DEPREL up to the first ``:`` equal (subtypes are ignored).
* CLAS, MLAS, BLEX count only words with a content DEPREL (:data:`CONTENT_DEPRELS`;
  a gold word by its own DEPREL, a system word by its own). CLAS: as LAS. MLAS: LAS,
  UPOS and UFeats equal, and the functional children (the dependents with a
  DEPREL in :data:`FUNCTIONAL_DEPRELS`) give the same list of (aligned word,
  DEPREL, UPOS, UFeats), in word order. BLEX: LAS and Lemmas.
* Precision = correct / system, recall = correct / gold, F1 = 2 * correct /
  (gold + system); for the metrics on aligned words also the aligned accuracy =
  correct / aligned words (for CLAS/MLAS/BLEX: aligned words with a content gold
  DEPREL). The scorer reports F1 as "LAS", "MLAS", "BLEX".

Added here (not in the official scorer): ``uas_nopunct``/``las_nopunct``, which
leave out words whose *gold* UPOS is ``PUNCT``, as parsing papers do (for PTB they
leave out gold punctuation tags; in UD those are UPOS ``PUNCT``). A system word
counts as punctuation by the UPOS of the gold word it is aligned to, or by its own
UPOS when it is not aligned.
"""
import bisect
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, FrozenSet, Hashable, List, Optional, Union

from .ud_align import align_words, matching_spans
from .ud_read import (
    ROOT,
    UNIVERSAL_FEATURES,
    UDDocument,
    UDError,
    UDWord,
    load_conllu,
    parse_conllu,
    words_from_tokens,
)

__all__ = [
    "CONLL18_METRICS",
    "CONTENT_DEPRELS",
    "FUNCTIONAL_DEPRELS",
    "PRF",
    "UNIVERSAL_FEATURES",
    "UDDocument",
    "UDError",
    "UDResult",
    "UDWord",
    "align_words",
    "conll18_table",
    "load_conllu",
    "matching_spans",
    "parse_conllu",
    "score_conllu_files",
    "score_ud",
    "words_from_tokens",
]

# The official scorer's relations (subtypes removed) for CLAS/MLAS/BLEX.
CONTENT_DEPRELS: FrozenSet[str] = frozenset(
    {
        "nsubj", "obj", "iobj", "csubj", "ccomp", "xcomp", "obl", "vocative",
        "expl", "dislocated", "advcl", "advmod", "discourse", "nmod", "appos",
        "nummod", "acl", "amod", "conj", "fixed", "flat", "compound", "list",
        "parataxis", "orphan", "goeswith", "reparandum", "root", "dep",
    }
)  # fmt: skip
FUNCTIONAL_DEPRELS: FrozenSet[str] = frozenset({"aux", "cop", "mark", "det", "clf", "case", "cc"})

# Head key of a system word whose head is not aligned to any gold word.
_NOT_ALIGNED = ("not aligned",)


@dataclass(frozen=True)
class PRF:
    """Counts of one metric and its precision, recall and F1 (fractions).

    ``aligned`` is the number of aligned words the metric looks at, for the metrics
    computed on aligned words (``None`` for the others, as in the official scorer).
    """

    correct: int
    gold: int
    system: int
    aligned: Optional[int] = None

    @property
    def precision(self) -> float:
        return self.correct / self.system if self.system else 0.0

    @property
    def recall(self) -> float:
        return self.correct / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        total = self.gold + self.system
        return 2 * self.correct / total if total else 0.0

    @property
    def aligned_accuracy(self) -> Optional[float]:
        """Correct / aligned (0.0 with no aligned word); ``None`` without ``aligned``."""
        if self.aligned is None:
            return None
        return self.correct / self.aligned if self.aligned else 0.0

    def to_dict(self) -> Dict[str, float]:
        return {
            "correct": self.correct,
            "gold": self.gold,
            "system": self.system,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
        }


# The official metric names, in the order the scorer prints them, and their fields.
CONLL18_METRICS = (
    ("Tokens", "tokens"),
    ("Sentences", "sentences"),
    ("Words", "words"),
    ("UPOS", "upos"),
    ("XPOS", "xpos"),
    ("UFeats", "ufeats"),
    ("AllTags", "alltags"),
    ("Lemmas", "lemmas"),
    ("UAS", "uas"),
    ("LAS", "las"),
    ("CLAS", "clas"),
    ("MLAS", "mlas"),
    ("BLEX", "blex"),
)


@dataclass(frozen=True)
class UDResult:
    """The CoNLL 2018 metrics (see the module docstring), UAS and LAS also without
    gold punctuation, and LAS per gold/system DEPREL.

    The fields after ``las_per_type`` are ``None`` in results built without them
    (e.g. by summing only the first six fields); :func:`score_ud` fills them all.
    """

    words: PRF
    uas: PRF
    las: PRF
    uas_nopunct: PRF
    las_nopunct: PRF
    las_per_type: Dict[str, PRF]
    tokens: Optional[PRF] = None
    sentences: Optional[PRF] = None
    upos: Optional[PRF] = None
    xpos: Optional[PRF] = None
    ufeats: Optional[PRF] = None
    alltags: Optional[PRF] = None
    lemmas: Optional[PRF] = None
    clas: Optional[PRF] = None
    mlas: Optional[PRF] = None
    blex: Optional[PRF] = None

    def metrics(self) -> Dict[str, PRF]:
        """The official metrics by the names the official scorer prints ("Tokens",
        ..., "BLEX"), in its order; those that are ``None`` are left out."""
        found = {name: getattr(self, key) for name, key in CONLL18_METRICS}
        return {name: prf for name, prf in found.items() if prf is not None}



def conll18_table(result: UDResult, counts: bool = False) -> str:
    """The table ``conll18_ud_eval.py -v`` prints (``-c`` with ``counts``), line for
    line, for the metrics of ``result`` that are not ``None``."""
    if counts:
        lines = ["Metric     | Correct   |      Gold | Predicted | Aligned"]
    else:
        lines = ["Metric     | Precision |    Recall |  F1 Score | AligndAcc"]
    lines.append("-----------+-----------+-----------+-----------+-----------")
    for name, prf in result.metrics().items():
        if counts:
            aligned = prf.aligned or (prf.correct if name == "Words" else "")
            lines.append(f"{name:11}|{prf.correct:10} |{prf.gold:10} |{prf.system:10} |{aligned:10}")
        else:
            accuracy = prf.aligned_accuracy
            lines.append(
                f"{name:11}|{100 * prf.precision:10.2f} |{100 * prf.recall:10.2f} |{100 * prf.f1:10.2f} |"
                + ("" if accuracy is None else f"{100 * accuracy:10.2f}")
            )
    return "\n".join(lines)


def _check_characters(gold: UDDocument, system: UDDocument) -> None:
    if gold.characters == system.characters:
        return
    i = 0
    while i < min(len(gold.characters), len(system.characters)) and (
        gold.characters[i] == system.characters[i]
    ):
        i += 1
    where = ""
    if gold.name and system.name:  # both read from files
        where = f" ({_where(gold, i)}; {_where(system, i)})"
    raise UDError(
        "The concatenation of tokens in gold file and in system file differ! First 20 "
        f"differing characters in gold file: {gold.characters[i:i + 20]!r} and system "
        f"file: {system.characters[i:i + 20]!r}{where}"
    )


def _where(doc: UDDocument, offset: int) -> str:
    """The file and line of the token holding character ``offset`` of a document read from a
    file; past its last character, the end of the file."""
    if offset >= len(doc.characters):
        return f"{doc.name}: ends after line {doc.token_lines[-1]}" if doc.token_lines else f"{doc.name}: no words"
    k = bisect.bisect_right([start for start, _ in doc.tokens], offset) - 1
    return f"{doc.name}, line {doc.token_lines[k]}"


def _functional_children(words: List[UDWord]) -> Dict[int, List[int]]:
    """Per head index, its dependents with a functional DEPREL, in word order."""
    children: Dict[int, List[int]] = {}
    for i, word in enumerate(words):
        if isinstance(word.head, int) and word.deprel in FUNCTIONAL_DEPRELS:
            children.setdefault(word.head, []).append(i)
    return children


def _every(word: UDWord) -> bool:
    return True


def _content(word: UDWord) -> bool:
    return word.deprel in CONTENT_DEPRELS


def score_ud(
    gold: UDDocument,
    system: UDDocument,
    punct_upos: FrozenSet[str] = frozenset({"PUNCT"}),
) -> UDResult:
    """Score a system document against the gold one (see the module docstring)."""
    _check_characters(gold, system)
    g_words, s_words = gold.words, system.words
    alignment = align_words(g_words, s_words)
    g_children, s_children = _functional_children(g_words), _functional_children(s_words)

    def gold_key(i: Hashable) -> Hashable:
        """A system word index (or head key) as the gold word it is aligned to."""
        if i is ROOT:
            return ROOT
        return alignment.get(i, _NOT_ALIGNED) if isinstance(i, int) else _NOT_ALIGNED

    def score(
        correct_fn: Callable[[int, int], bool],
        keep: Callable[[UDWord], bool] = _every,
        keep_system: Optional[Callable[[int], bool]] = None,
    ) -> PRF:
        """``keep`` picks the gold words, and the system words unless ``keep_system``
        (on system indices) is given; aligned pairs count by their gold word."""
        pairs = [(gi, si) for si, gi in alignment.items() if keep(g_words[gi])]
        system_kept = (
            sum(map(keep, s_words)) if keep_system is None else sum(map(keep_system, range(len(s_words))))
        )
        return PRF(
            sum(correct_fn(gi, si) for gi, si in pairs),
            sum(map(keep, g_words)),
            system_kept,
            aligned=len(pairs),
        )

    def column(name: str) -> Callable[[int, int], bool]:
        return lambda gi, si: getattr(g_words[gi], name) == getattr(s_words[si], name)

    def alltags(gi: int, si: int) -> bool:
        g, s = g_words[gi], s_words[si]
        return (g.upos, g.xpos, g.ufeats) == (s.upos, s.xpos, s.ufeats)

    def lemmas(gi: int, si: int) -> bool:
        return g_words[gi].lemma == "_" or g_words[gi].lemma == s_words[si].lemma

    def uas(gi: int, si: int) -> bool:
        return g_words[gi].head == gold_key(s_words[si].head)

    def las(gi: int, si: int) -> bool:
        return uas(gi, si) and g_words[gi].deprel == s_words[si].deprel

    def mlas(gi: int, si: int) -> bool:
        g, s = g_words[gi], s_words[si]
        if not las(gi, si) or (g.upos, g.ufeats) != (s.upos, s.ufeats):
            return False
        g_deps = [(c, g_words[c].deprel, g_words[c].upos, g_words[c].ufeats) for c in g_children.get(gi, [])]
        s_deps = [
            (gold_key(c), s_words[c].deprel, s_words[c].upos, s_words[c].ufeats)
            for c in s_children.get(si, [])
        ]
        return g_deps == s_deps

    def not_punct(word: UDWord) -> bool:
        return word.upos not in punct_upos

    def system_not_punct(si: int) -> bool:
        # By the UPOS of the aligned gold word, or its own when it is not aligned.
        gi = alignment.get(si)
        return not_punct(g_words[gi] if gi is not None else s_words[si])

    # Per label, a gold word counts by its gold DEPREL and a system word by its own.
    per_type = {
        label: PRF(
            sum(g_words[gi].deprel == label and las(gi, si) for si, gi in alignment.items()),
            sum(w.deprel == label for w in g_words),
            sum(w.deprel == label for w in s_words),
        )
        for label in sorted({w.deprel for w in g_words} | {w.deprel for w in s_words})
    }
    return UDResult(
        words=PRF(len(alignment), len(g_words), len(s_words)),
        uas=score(uas),
        las=score(las),
        uas_nopunct=score(uas, not_punct, system_not_punct),
        las_nopunct=score(las, not_punct, system_not_punct),
        las_per_type=per_type,
        tokens=PRF(matching_spans(gold.tokens, system.tokens), len(gold.tokens), len(system.tokens)),
        sentences=PRF(
            matching_spans(gold.sentences, system.sentences), len(gold.sentences), len(system.sentences)
        ),
        upos=score(column("upos")),
        xpos=score(column("xpos")),
        ufeats=score(column("ufeats")),
        alltags=score(alltags),
        lemmas=score(lemmas),
        clas=score(las, _content),
        mlas=score(mlas, _content),
        blex=score(lambda gi, si: las(gi, si) and lemmas(gi, si), _content),
    )


def score_conllu_files(
    gold_path: Union[str, Path],
    system_path: Union[str, Path],
    punct_upos: FrozenSet[str] = frozenset({"PUNCT"}),
) -> UDResult:
    """:func:`score_ud` on two CoNLL-U files."""
    return score_ud(load_conllu(gold_path), load_conllu(system_path), punct_upos)
