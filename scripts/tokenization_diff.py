"""Where a tokenizer disagrees with a UD treebank's tokens and words (issue #35).

    python scripts/tokenization_diff.py train                      # spaCy's English tokenizer on EWT train
    python scripts/tokenization_diff.py dev --tokenizer ewt        # spacy-lal.EWTTokenizer.v1 on EWT dev
    python scripts/tokenization_diff.py test --tokenizer default --tokenizer ewt   # both, one table
    python scripts/tokenization_diff.py path/to/file.conllu --pipeline training/model-best --top 60

The input is what the CoNLL 2018 shared task gives systems: the raw text of each document
(``# newdoc id``) as UD's conllu_to_text.pl writes it (``--layout joined``: its sentences joined by
one space; :func:`spacy_lal.corpora.read_raw_documents`). The tokenizer's tokens are
compared with the gold ones by character span, exactly as the CoNLL 2018 scorer does (a token
counts when its start and end are those of a gold token; whitespace tokens are not tokens):

- **Words**: the tokenizer's tokens against the gold word lines (the words of a multi-word token
  ``don't`` = ``do`` + ``n't`` split its span in the order of their forms, which concatenate to it
  in EWT);
- **Tokens**: the tokenizer's tokens grouped into multi-word tokens as our CoNLL-U export writes
  them (:func:`spacy_lal.tokenizer.multiword_token_spans`: ``do`` + ``n't`` written as the one
  token ``don't``), against the gold surface tokens (a range line ``n-m`` is one token, the other
  word lines one each). ``--no-mwt`` scores the tokenizer's tokens themselves (what a word-level
  CoNLL-U without range lines gives the scorer).

Printed: precision, recall and F1 of tokens and words, then the most frequent disagreements
(``gold: a|b  ours: a b``, the gold pieces against ours over the smallest stretch of text where
their boundaries meet again) by count, as strings and as shapes (letters x/X, digits d), so rules
can be found from the treebank's train part and checked on dev. Never tune on test.
"""
from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

EWT = Path("/work/shared/assets/UD_English-EWT")
Span = Tuple[int, int]


@dataclass
class Document:
    """One document: its raw text, its gold tokens and words as character spans of that text."""

    doc_id: str
    text: str = ""
    tokens: List[Span] = field(default_factory=list)
    words: List[Span] = field(default_factory=list)


def read_documents(path: Path, layout: str = "conll18") -> List[Document]:
    """The documents of a CoNLL-U file as raw text in ``layout``
    (:func:`spacy_lal.corpora.read_raw_documents`) with their gold token and word spans."""
    from spacy_lal.corpora.conllu import read_ud_sentences
    from spacy_lal.corpora.documents import read_raw_documents

    sentences = read_ud_sentences(path)
    docs = []
    for k, raw in enumerate(read_raw_documents(path, layout)):
        doc = Document(raw.doc_id or f"doc{k + 1}", raw.text)
        for words in raw.word_offsets:
            doc.words.extend(words)
            ranges = {first: last for first, last, _ in next(sentences).multiword_tokens}
            i = 0
            while i < len(words):  # a range's words make one token
                last = ranges.get(i, i + 1)
                doc.tokens.append((words[i][0], words[last - 1][1]))
                i = last
        docs.append(doc)
    return docs


def f1(gold: Iterable[Span], ours: Iterable[Span]) -> Tuple[int, int, int]:
    """(matched, gold, ours): spans matched exactly (each gold span at most once)."""
    g, o = Counter(gold), Counter(ours)
    return sum((g & o).values()), sum(g.values()), sum(o.values())


def disagreements(
    text: str, gold: Sequence[Span], ours: Sequence[Span]
) -> Iterator[Tuple[Tuple[str, ...], Tuple[str, ...], int, int]]:
    """The stretches where the two segmentations differ: (gold pieces, our pieces, start, end),
    each stretch the smallest one from a shared boundary to the next."""
    i = j = 0
    while i < len(gold) and j < len(ours):
        if gold[i] == ours[j]:
            i += 1
            j += 1
            continue
        start = min(gold[i][0], ours[j][0])
        end = max(gold[i][1], ours[j][1])
        gi, oj = i, j
        i += 1
        j += 1
        while True:
            if i < len(gold) and gold[i][0] < end:
                end = max(end, gold[i][1])
                i += 1
            elif j < len(ours) and ours[j][0] < end:
                end = max(end, ours[j][1])
                j += 1
            else:
                break
        yield (tuple(text[s:e] for s, e in gold[gi:i]), tuple(text[s:e] for s, e in ours[oj:j]), start, end)


_SHAPES = [(re.compile(r"[a-z]+"), "x"), (re.compile(r"[A-Z]+"), "X"), (re.compile(r"[0-9]+"), "d")]


def shape(piece: str) -> str:
    for pattern, repl in _SHAPES:
        piece = pattern.sub(repl, piece)
    return piece


def load_tokenizer(name: str) -> Callable:
    import spacy

    if name == "default":
        return spacy.blank("en").tokenizer
    if name == "ewt":
        nlp = spacy.blank("en", config={"nlp": {"tokenizer": {"@tokenizers": "spacy-lal.EWTTokenizer.v1"}}})
        return nlp.tokenizer
    return spacy.load(name).tokenizer  # a saved pipeline's tokenizer


@dataclass
class Result:
    name: str
    tokens: List[int] = field(default_factory=lambda: [0, 0, 0])
    words: List[int] = field(default_factory=lambda: [0, 0, 0])
    token_diffs: Counter = field(default_factory=Counter)
    word_diffs: Counter = field(default_factory=Counter)
    examples: Dict[tuple, str] = field(default_factory=dict)


def evaluate(docs: Sequence[Document], tokenizer: Callable, name: str, *, mwt: bool = True) -> Result:
    from spacy_lal.tokenizer import multiword_token_spans

    result = Result(name)
    for doc in docs:
        tokenized = tokenizer(doc.text)
        words = [(t.idx, t.idx + len(t.text)) for t in tokenized if not t.is_space]
        if mwt:
            grouped = {span.start: span.end for span in multiword_token_spans(tokenized)}
            tokens = []
            k = 0
            while k < len(tokenized):
                end = grouped.get(k, k + 1)
                if not tokenized[k].is_space:
                    tokens.append((tokenized[k].idx, tokenized[end - 1].idx + len(tokenized[end - 1].text)))
                k = end
        else:
            tokens = words
        for total, gold, ours, diffs in (
            (result.tokens, doc.tokens, tokens, result.token_diffs),
            (result.words, doc.words, words, result.word_diffs),
        ):
            for k, n in enumerate(f1(gold, ours)):
                total[k] += n
            for g, o, start, end in disagreements(doc.text, gold, ours):
                diffs[g, o] += 1
                if (g, o) not in result.examples:
                    result.examples[g, o] = doc.text[max(0, start - 30) : end + 30].replace("\n", " ")
    return result


def prf(counts: Sequence[int]) -> Tuple[float, float, float]:
    matched, gold, ours = counts
    p = 100 * matched / ours if ours else 0.0
    r = 100 * matched / gold if gold else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def show_diffs(title: str, diffs: Counter, examples: Dict[tuple, str], top: int) -> None:
    total = sum(diffs.values())
    print(f"\n{title}: {total} stretches differ")
    for (g, o), n in diffs.most_common(top):
        print(f"  {n:5d}  gold: {'|'.join(g)!r:32} ours: {'|'.join(o)!r:32} e.g. ...{examples[g, o]}...")
    by_shape: Counter = Counter()
    for (g, o), n in diffs.items():
        by_shape["|".join(map(shape, g)), "|".join(map(shape, o))] += n
    print(f"  by shape (top {top // 2}):")
    for (g, o), n in by_shape.most_common(top // 2):
        print(f"  {n:5d}  gold: {g!r:32} ours: {o!r}")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", help="train, dev, test (EWT's) or a CoNLL-U file")
    parser.add_argument("--tokenizer", action="append",
                        help="default (spaCy's English tokenizer), ewt (spacy-lal.EWTTokenizer.v1) or a "
                        "saved pipeline's path; repeat for a table of several (default: default)")
    parser.add_argument("--treebank", type=Path, default=EWT, help="the folder of en_ewt-ud-{train,dev,test}.conllu")
    parser.add_argument("--top", type=int, default=40, help="disagreements shown per list (0: none)")
    parser.add_argument("--layout", choices=["conll18", "joined"], default="conll18",
                        help="the documents' text: the CoNLL 2018 shared task's or the sentences joined by a space")
    parser.add_argument("--no-mwt", action="store_true",
                        help="tokens: the tokenizer's tokens as they are, not grouped into multi-word tokens")
    args = parser.parse_args(argv)
    path = Path(args.data)
    if args.data in ("train", "dev", "test"):
        path = args.treebank / f"en_ewt-ud-{args.data}.conllu"
    import spacy_lal.tokenizer  # noqa: F401  (registers spacy-lal.EWTTokenizer.v1 without the entry points)

    docs = read_documents(path, args.layout)
    names = args.tokenizer or ["default"]
    results = [evaluate(docs, load_tokenizer(name), name, mwt=not args.no_mwt) for name in names]
    n_tokens, n_words = sum(len(d.tokens) for d in docs), sum(len(d.words) for d in docs)
    print(f"{path}: {len(docs)} documents, {n_tokens} tokens, {n_words} words")
    print(f"{'tokenizer':>12}  {'Tokens P':>8} {'R':>6} {'F1':>6}  {'Words P':>8} {'R':>6} {'F1':>6}")
    for result in results:
        print(f"{result.name:>12}  " + "{:8.2f} {:6.2f} {:6.2f}".format(*prf(result.tokens))
              + "  {:8.2f} {:6.2f} {:6.2f}".format(*prf(result.words)))
    if args.top:
        for result in results:
            print(f"\n=== {result.name}")
            show_diffs("Words (gold words | our tokens)", result.word_diffs, result.examples, args.top)
            show_diffs("Tokens (gold tokens | ours grouped)", result.token_diffs, result.examples, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
