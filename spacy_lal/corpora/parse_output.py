"""What ``parse`` and ``parse-corpus`` write: a Doc as the text of a scorer format, as one JSON
object, and one JSON line. The scorer files themselves are ``export.py``'s."""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Dict, Iterable, Optional

from spacy.tokens import Doc

from ..doc.api import NotAConstituentError
from ..doc.tree import Tree
from .export import sentences, write_conll05, write_conllu, write_ptb

__all__ = ["doc_to_json", "json_line", "sentence_tree", "to_text"]


def to_text(docs: Iterable[Doc], fmt: str) -> str:
    """What the writer of ``fmt`` ("ptb", "conllu" or "conll05" props) writes for ``docs``, as a string."""
    writer = {"ptb": write_ptb, "conllu": write_conllu, "conll05": write_conll05}[fmt]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"out.{fmt}"
        writer(docs, path)
        return path.read_text(encoding="utf8")


def sentence_tree(sent: Any) -> Optional[Tree]:
    """The tree of ``sent``, or None when it has none (not a constituent)."""
    try:
        return Tree.from_string(sent._.parse_string)
    except NotAConstituentError:
        return None


def doc_to_json(doc: Any) -> Dict[str, Any]:
    """A parsed Doc as one JSON object: its text, sentences with their trees, tokens with their
    lemma, PTB tag, UPOS, morphology and dependency, and frames (``parse --format json``, ``parse-corpus``'s records)."""
    out: Dict[str, Any] = {"text": doc.text, "sentences": []}
    for sent in sentences(doc):
        tree = sentence_tree(sent)
        out["sentences"].append(
            {
                "start": sent.start,
                "end": sent.end,
                "tree": None if tree is None else tree.to_string(),
            }
        )
    out["tokens"] = [
        {"i": t.i, "text": t.text, "lemma": t.lemma_, "tag": t.tag_, "pos": t.pos_, "morph": str(t.morph),
         "head": t.head.i, "dep": t.dep_}
        for t in doc
    ]
    out["frames"] = [
        {
            "predicate": frame.predicate.i,
            "sense": frame.sense,
            "arguments": [
                {"start": arg.start, "end": arg.end, "label": arg.label_, "text": arg.text}
                for arg in frame.arguments
            ],
            "text": str(frame),
        }
        for frame in doc._.srl
    ]
    return out


# Characters that str.splitlines (and so many JSON-lines readers) takes as line ends but
# json.dumps(ensure_ascii=False) writes as they are.
_LINE_BREAKS_IN_JSON = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def json_line(value: Any) -> str:
    """``value`` as one line of JSON (non-ASCII characters as they are, but the line
    separators U+0085, U+2028 and U+2029 escaped, so that no reader splits the record)."""
    import json

    return json.dumps(value, ensure_ascii=False).translate(_LINE_BREAKS_IN_JSON)

