"""Matching gold and system spans and words as the CoNLL 2018 UD scorer does.

* Tokens and sentences are character spans (see :mod:`.ud_read`); a gold and a
  system span match when they start and end at the same characters.
* Words outside multi-word tokens align when their character spans are equal; the
  words inside a "multi-word span" (the smallest stretch that contains whole
  multi-word tokens of both files) align by a longest common subsequence of their
  lower-cased FORMs. Different tokenizations are therefore scored, not rejected.
"""
from typing import Dict, List, Sequence, Tuple

from .ud_read import Span, UDWord

__all__ = ["align_words", "matching_spans"]


def matching_spans(gold: Sequence[Span], system: Sequence[Span]) -> int:
    """How many gold spans a system span equals; both lists are in text order
    (the official ``spans_score``)."""
    correct = gi = si = 0
    while gi < len(gold) and si < len(system):
        if system[si][0] < gold[gi][0]:
            si += 1
        elif gold[gi][0] < system[si][0]:
            gi += 1
        else:
            correct += gold[gi][1] == system[si][1]
            gi += 1
            si += 1
    return correct


def align_words(gold: List[UDWord], system: List[UDWord]) -> Dict[int, int]:
    """Align system words to gold words as the CoNLL 2018 scorer does.

    Returns ``{system index: gold index}``. The caller checks that the characters
    of both files are equal.
    """
    alignment: Dict[int, int] = {}
    gi = si = 0
    while gi < len(gold) and si < len(system):
        if gold[gi].is_multiword or system[si].is_multiword:
            gs, ss, gi, si = _multiword_span(gold, system, gi, si)
            if gi > gs and si > ss:
                _align_lcs(gold[gs:gi], system[ss:si], gs, ss, alignment)
        elif gold[gi].span == system[si].span:
            alignment[si] = gi
            gi += 1
            si += 1
        elif gold[gi].span[0] <= system[si].span[0]:
            gi += 1
        else:
            si += 1
    return alignment


def _multiword_span(
    gold: List[UDWord], system: List[UDWord], gi: int, si: int
) -> Tuple[int, int, int, int]:
    """The smallest stretch of words, from ``(gi, si)`` on, that contains whole
    multi-word tokens of both sides: returns its ``(gs, ss, gi, si)`` bounds."""
    if gold[gi].is_multiword:
        end = gold[gi].span[1]
        if not system[si].is_multiword and system[si].span[0] < gold[gi].span[0]:
            si += 1
    else:
        end = system[si].span[1]
        if not gold[gi].is_multiword and gold[gi].span[0] < system[si].span[0]:
            gi += 1
    gs, ss = gi, si

    def beyond(words: List[UDWord], i: int) -> bool:
        if i >= len(words):
            return True
        if words[i].is_multiword:
            return words[i].span[0] >= end
        return words[i].span[1] > end

    while not beyond(gold, gi) or not beyond(system, si):
        if gi < len(gold) and (si >= len(system) or gold[gi].span[0] <= system[si].span[0]):
            word, gi = gold[gi], gi + 1
        else:
            word, si = system[si], si + 1
        if word.is_multiword:
            end = max(end, word.span[1])
    return gs, ss, gi, si


def _align_lcs(
    gold: List[UDWord], system: List[UDWord], g_base: int, s_base: int, out: Dict[int, int]
) -> None:
    """Align the words of one multi-word span by an LCS of lower-cased FORMs,
    walking the table the way the official scorer does."""
    g_forms = [w.form.lower() for w in gold]
    s_forms = [w.form.lower() for w in system]
    n, m = len(g_forms), len(s_forms)
    # lcs[g][s]: LCS length of g_forms[g:] and s_forms[s:] (one extra row/column of 0).
    lcs = [[0] * (m + 1) for _ in range(n + 1)]
    for g in reversed(range(n)):
        for s in reversed(range(m)):
            same = 1 + lcs[g + 1][s + 1] if g_forms[g] == s_forms[s] else 0
            lcs[g][s] = max(same, lcs[g + 1][s], lcs[g][s + 1])
    g = s = 0
    while g < n and s < m:
        if g_forms[g] == s_forms[s]:
            out[s_base + s] = g_base + g
            g += 1
            s += 1
        elif lcs[g][s] == lcs[g + 1][s]:
            g += 1
        else:
            s += 1
