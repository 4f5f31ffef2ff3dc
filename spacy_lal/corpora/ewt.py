"""Join UD_English-EWT with the PropBank EWT skeletons into ``train/dev/test.spacy``.

Sources (see ``../shared/README.md``):

- ``UD_English-EWT/en_ewt-ud-{train,dev,test}.conllu``: the sentences, split and order. UD gives
  the words and spacing (at the word level, see :mod:`.conllu`), ``pos_``, ``lemma_``, ``morph``,
  heads and deps (``root`` kept verbatim) and the gold sentence boundaries.
- ``propbank-release/data/google/ewt/<genre>/<section>/<document>.xml.gold_skel``: per token the
  PTB tag (-> ``token.tag_``, so that tags and trees agree; UD's XPOS differs in ~8% of the
  sentences and is dropped), the parse bit (-> the constituency tree, built with UD's words)
  and the argument columns (-> SRL frames, sense = roleset), see :mod:`.conll05`.
- ``propbank-release/docs/evaluation/ewt.{train,dev,test}.txt``: the split lists, checked
  against the UD files; differences are reported, the UD file wins.

Joining: the UD document id (the ``sent_id`` without its ``-NNNN``) is ``<genre>-<document>``
of the skeleton path. Within a document, UD and skeleton sentences are paired in order; where
the two segment a document differently, the pairing is a monotone alignment maximizing the
number of pairs with equal token counts (ties broken by agreement of UD's XPOS with the PTB
tags). UD sentences left without a skeleton sentence of the same length are skipped and
counted, as are the sentences of UD documents with no skeleton file (29 EWT dev/test documents
have none), and propositions of skeleton sentences that could not be joined.

Doc granularity: **one Doc per sentence**. The parsers work per sentence, batching by length
is simpler, and a skipped sentence leaves no hole in a document. ``doc.user_data`` keeps
``sent_id`` and ``doc_id`` (``DocBin(store_user_data=True)``), so documents can be rebuilt with
``Doc.from_docs`` where context across sentences is wanted.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc, DocBin
from spacy.vocab import Vocab

from ._common import PathLike, check_complete, get_vocab
from .conll05 import ColumnSentence, annotate_doc, read_column_sentences
from .conllu import UDSentence, read_ud_sentences

__all__ = [
    "SPLITS",
    "JoinStats",
    "align_sentences",
    "convert_ewt",
    "find_skeletons",
    "format_table",
    "join_ewt_split",
    "read_split_list",
]

SPLITS = ("train", "dev", "test")
UD_FILE = "en_ewt-ud-{split}.conllu"
SPLIT_LIST = "docs/evaluation/ewt.{split}.txt"
SKELETON_GLOB = "data/google/ewt/*/*/*.gold_skel"
_DOC_SUFFIX = re.compile(r"\.xml(\.conllu|\.gold_skel)?$")


@dataclass
class JoinStats:
    """Counts of one split. "Skipped" sentences are UD sentences with no Doc in the output."""

    split: str
    documents: int = 0
    sentences: int = 0
    kept: int = 0
    skipped_no_skeleton: int = 0  # the UD document has no skeleton file
    skipped_mismatch: int = 0  # no skeleton sentence with the same token count at that place
    tokens: int = 0  # words of the kept sentences
    tokens_skipped: int = 0
    trees: int = 0
    propositions: int = 0
    propositions_skipped: int = 0  # in sentences not joined, or rejected by check_frame
    unused_skeleton_sentences: int = 0
    documents_without_skeleton: List[str] = field(default_factory=list)
    documents_not_in_list: List[str] = field(default_factory=list)  # in the UD file only
    documents_not_in_ud: List[str] = field(default_factory=list)  # in the split list only
    skipped_sentences: List[Tuple[str, str]] = field(default_factory=list)  # (sent_id, reason)
    skipped_propositions: List[Tuple[str, int, str]] = field(default_factory=list)  # (sent_id, predicate, reason)

    @property
    def skipped(self) -> int:
        return self.skipped_no_skeleton + self.skipped_mismatch

    @property
    def skip_rate(self) -> float:
        return self.skipped / self.sentences if self.sentences else 0.0


def doc_id_from_path(path: Union[str, Path]) -> str:
    """``answers/00/20111107193044AAvUYBv_ans.xml.gold_skel`` -> ``answers-20111107193044AAvUYBv_ans``.

    Works for skeleton paths and for the entries of the split lists (``.xml``, ``.xml.conllu``).
    """
    parts = Path(path).parts
    return f"{parts[-3]}-{_DOC_SUFFIX.sub('', parts[-1])}"


def read_split_list(path: PathLike) -> List[str]:
    """The document ids of a PropBank split list, in order."""
    with open(path, encoding="utf8") as f:
        return [doc_id_from_path(line.strip()) for line in f if line.strip()]


def find_skeletons(propbank_dir: PathLike) -> Dict[str, Path]:
    """Map each EWT document id to its skeleton file."""
    return {doc_id_from_path(p): p for p in sorted(Path(propbank_dir).glob(SKELETON_GLOB))}


def align_sentences(
    ud: Sequence[UDSentence], skeleton: Sequence[ColumnSentence]
) -> List[Tuple[int, int]]:
    """Pairs ``(ud index, skeleton index)`` of sentences with equal token counts, in order.

    The common case (same segmentation) is a plain zip. Otherwise a monotone alignment maximizes
    the number of pairs, then the agreement of UD's XPOS with the skeleton's tags.
    """
    if len(ud) == len(skeleton) and all(len(u) == len(s) for u, s in zip(ud, skeleton)):
        return [(i, i) for i in range(len(ud))]
    n, m = len(ud), len(skeleton)
    big = n + m + 1  # one more pair outweighs any tag agreement (each at most 1)
    score = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            best = max(score[i - 1][j], score[i][j - 1])
            u, s = ud[i - 1], skeleton[j - 1]
            if len(u) == len(s):
                best = max(best, score[i - 1][j - 1] + big + _tag_agreement(u, s))
            score[i][j] = best
    pairs = []
    i, j = n, m
    while i and j:
        if score[i][j] == score[i - 1][j]:
            i -= 1
        elif score[i][j] == score[i][j - 1]:
            j -= 1
        else:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
    return pairs[::-1]


def _tag_agreement(u: UDSentence, s: ColumnSentence) -> float:
    assert s.tags is not None
    return sum(a == b for a, b in zip(u.tags, s.tags)) / max(len(u), 1)


def _join_document(
    vocab: Vocab,
    ud: Sequence[UDSentence],
    skeleton: Sequence[ColumnSentence],
    stats: JoinStats,
) -> List[Doc]:
    pairs = dict(align_sentences(ud, skeleton))
    used = set(pairs.values())
    docs = []
    for i, u in enumerate(ud):
        j = pairs.get(i)
        if j is None:
            stats.skipped_mismatch += 1
            stats.tokens_skipped += len(u)
            stats.skipped_sentences.append((u.sent_id or f"{u.path}:{u.line_no}", "token count mismatch"))
            continue
        s = skeleton[j]
        doc = u.to_doc(vocab, tags=s.tags)
        frames = s.frames()
        rejected = annotate_doc(doc, s.tree(u.words), frames)
        stats.kept += 1
        stats.tokens += len(doc)
        stats.trees += 1
        stats.propositions += len(frames) - len(rejected)
        stats.propositions_skipped += len(rejected)
        stats.skipped_propositions.extend(
            (doc.user_data.get("sent_id", ""), frame.predicate, reason) for frame, reason in rejected
        )
        docs.append(doc)
    for j, s in enumerate(skeleton):
        if j not in used:
            stats.unused_skeleton_sentences += 1
            stats.propositions_skipped += sum(s.targets)
    return docs


def join_ewt_split(
    ud_file: PathLike,
    propbank_dir: PathLike,
    split: str,
    vocab: Union[Vocab, Language],
    *,
    skeletons: Optional[Dict[str, Path]] = None,
) -> Tuple[List[Doc], JoinStats]:
    """Join one UD split file with its skeletons; returns the Docs and the counts."""
    vocab = get_vocab(vocab)
    skeletons = find_skeletons(propbank_dir) if skeletons is None else skeletons
    stats = JoinStats(split)
    documents: Dict[str, List[UDSentence]] = {}
    for sent in read_ud_sentences(ud_file):
        # The sent_id names the document in every sentence; "# newdoc id" is the fallback.
        doc_id = sent.sent_id.rsplit("-", 1)[0] if sent.sent_id else sent.doc_id
        documents.setdefault(doc_id or "", []).append(sent)
    list_path = Path(propbank_dir) / SPLIT_LIST.format(split=split)
    if list_path.exists():
        listed = read_split_list(list_path)
        stats.documents_not_in_list = [d for d in documents if d not in set(listed)]
        stats.documents_not_in_ud = [d for d in listed if d not in documents]
    docs: List[Doc] = []
    for doc_id, sents in documents.items():
        stats.documents += 1
        stats.sentences += len(sents)
        path = skeletons.get(doc_id)
        if path is None:
            stats.documents_without_skeleton.append(doc_id)
            stats.skipped_no_skeleton += len(sents)
            stats.tokens_skipped += sum(len(s) for s in sents)
            stats.skipped_sentences.extend((s.sent_id or doc_id, "no skeleton document") for s in sents)
            continue
        docs.extend(_join_document(vocab, sents, list(read_column_sentences(path, "skeleton")), stats))
    return docs, stats


def convert_ewt(
    ud_dir: PathLike,
    propbank_dir: PathLike,
    output_dir: PathLike,
    *,
    lang: str = "en",
    splits: Iterable[str] = SPLITS,
) -> Dict[str, JoinStats]:
    """Write ``<output_dir>/<split>.spacy`` for each split; returns the counts per split. A UD file
    or skeleton cut short (no blank line after its last sentence) raises CorpusFormatError first."""
    import spacy

    vocab = spacy.blank(lang).vocab
    skeletons = find_skeletons(propbank_dir)
    splits = list(splits)
    # A file cut short would only show as sentences skipped in the table (a skeleton sentence
    # cut mid-way matches no UD sentence): stop on it, naming it, before writing anything.
    for path in [Path(ud_dir) / UD_FILE.format(split=split) for split in splits] + list(skeletons.values()):
        if path.exists():
            check_complete(path)
    output = Path(output_dir)
    output.mkdir(parents=True, exist_ok=True)
    all_stats = {}
    for split in splits:
        docs, stats = join_ewt_split(
            Path(ud_dir) / UD_FILE.format(split=split), propbank_dir, split, vocab, skeletons=skeletons
        )
        # store_user_data keeps the token extensions (trees, frames) and the sent_id/doc_id.
        DocBin(docs=docs, store_user_data=True).to_disk(output / f"{split}.spacy")
        all_stats[split] = stats
    return all_stats


def format_table(stats: Dict[str, JoinStats]) -> str:
    """A plain-text table of the counts per split, with a total row."""
    columns = [
        ("split", lambda s: s.split),
        ("docs", lambda s: s.documents),
        ("sentences", lambda s: s.sentences),
        ("kept", lambda s: s.kept),
        ("skip:no-skel", lambda s: s.skipped_no_skeleton),
        ("skip:tokens", lambda s: s.skipped_mismatch),
        ("skip %", lambda s: f"{100 * s.skip_rate:.2f}"),
        ("tokens", lambda s: s.tokens),
        ("tokens skip", lambda s: s.tokens_skipped),
        ("trees", lambda s: s.trees),
        ("props", lambda s: s.propositions),
        ("props skip", lambda s: s.propositions_skipped),
    ]
    total = JoinStats("total")
    for s in stats.values():
        for name in (
            "documents", "sentences", "kept", "skipped_no_skeleton", "skipped_mismatch", "tokens",
            "tokens_skipped", "trees", "propositions", "propositions_skipped",
        ):
            setattr(total, name, getattr(total, name) + getattr(s, name))
    rows = [[str(get(s)) for _, get in columns] for s in [*stats.values(), total]]
    header = [name for name, _ in columns]
    widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header))]
    lines = ["  ".join(cell.rjust(w) if k else cell.ljust(w) for k, (cell, w) in enumerate(zip(row, widths)))
             for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.insert(len(lines) - 1, lines[1])
    return "\n".join(lines)
