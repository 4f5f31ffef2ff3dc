"""The unlabeled English of NLTK's data packages as JSONL records for silver parsing (issue #36).

A folder of nltk_data packages, each ``NAME.zip`` beside ``NAME.xml`` (the package's id, name,
author, copyright, license, license URL and webpage), read without unpacking:

==================  ===============  ===========================================================
package             genre            one record (one Doc for the parser) per
==================  ===============  ===========================================================
inaugural           speech           address (US inaugural addresses, 1789-2021)
state_union         speech           address (State of the Union addresses, 1945-2006)
movie_reviews       movie review     review (Pang & Lee polarity v2.0, ``pos/`` and ``neg/``)
product_reviews_1   product review   review: the sentences under one ``[t]`` title (Hu & Liu)
product_reviews_2   product review   review, as product_reviews_1 (Ding, Liu & Yu)
pros_cons           pros/cons        ``<Pros>``/``<Cons>`` line (Liu: short list-like fragments)
sentence_polarity   snippet          line (Rotten Tomatoes review snippets)
subjectivity        plot summary,    line: ``plot.tok.gt9.5000`` IMDb plot-summary sentences,
                    snippet          ``quote.tok.gt9.5000`` Rotten Tomatoes snippets
==================  ===============  ===========================================================

**What one Doc is.** A document the source wrote as one piece stays one record, so the parser
sees the context it was written in: a speech, a movie review, a product review (the ``##``
sentences under one ``[t]`` title; lines before a file's first ``[t]`` form a review of their
own). The line-based packages are collections of unrelated lines (snippets gathered from many
reviews, pros and cons of many products), so each line is one record. Where the source puts
one paragraph (speeches) or one sentence (movie reviews, product-review lines) on a line, the
lines are joined by a blank line: in the shipped pipelines ``lal_sentence_breaks`` ends a
sentence at a blank line, so the source's own boundaries survive, and the splitter still splits
a paragraph. (About 20 of the speeches' 8,000 line breaks wrap a sentence or a list instead.)
Several ``##`` sentences on one product-review line are joined by a space.

**Markup is stripped, nothing else.** Product reviews lose their ``[t]`` titles (kept in the
record's ``title`` field, not its text: a title is a fragment without final punctuation that
would run into the first sentence), the feature annotations before ``##`` (``picture
quality[+2][u]##``, and their slips: ``look{+1]``, ``connection+3]``, a missing ``##``), the
``##`` marks and the ``*`` comment header; pros_cons lines lose their ``<Pros>``/``<Cons>``
tags. Empty lines and records are skipped; each line's surrounding whitespace is removed.
The text is otherwise kept as it is: **movie_reviews, sentence_polarity and subjectivity (and
product_reviews_1) are lower-cased and tokenized** (``it 's`` , ``do n't``, `` , ``), which a
parser trained on EWT's cased web text sees rarely; product_reviews_2, pros_cons and the
speeches are ordinary cased text.

**Encodings, as found in the files.** Everything is UTF-8 except seven speeches
(inaugural's 2005-Bush, state_union's 1954-Eisenhower and 1970-1974-Nixon), which carry
Windows punctuation written through a Big5 code page (``\\xa1\\xa6`` for ', ``\\xa1X`` for a
dash): the speeches are read as UTF-8 or else with those Big5 punctuation pairs mapped back and
the rest as cp1252. Three repairs apply to every package, each restoring a Windows-1252
character that a conversion mangled: a C1 control (U+0080-U+009F, in sentence_polarity and
subjectivity: ``\\x96`` for an en dash) becomes its cp1252 character, and in movie_reviews the
same characters with the high bit lost (``\\x12`` for ', ``\\x13``/``\\x14`` for quotes, ``\\x16``
for a dash, ``\\x05`` for an ellipsis). Any other control character, and a non-speech file that
is not UTF-8, is malformed input.

Malformed input raises :class:`~spacy_lal.corpora.CorpusFormatError` naming the zip, the file in
it and the line. Records come in a fixed order: packages by id, files by name, then lines.
"""
from __future__ import annotations

import hashlib
import json
import re
import xml.etree.ElementTree as ElementTree
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from ._common import CorpusFormatError, PathLike
from .share import fixed_share

__all__ = [
    "GENRES",
    "PackageInfo",
    "package_info",
    "read_nltk_text",
    "select_packages",
    "write_nltk_text",
]

Record = Dict[str, str]
# package id -> genre (subjectivity: per file, see _FILE_GENRES)
GENRES: Dict[str, str] = {
    "inaugural": "speech",
    "movie_reviews": "movie review",
    "product_reviews_1": "product review",
    "product_reviews_2": "product review",
    "pros_cons": "pros/cons",
    "sentence_polarity": "snippet",
    "state_union": "speech",
    "subjectivity": "plot summary, snippet",
}
_FILE_GENRES = {"plot.tok.gt9.5000": "plot summary", "quote.tok.gt9.5000": "snippet"}
_XML_FIELDS = ("id", "name", "author", "copyright", "license", "licenseurl", "webpage")
_PARAGRAPH = "\n\n"

# Windows punctuation written through a Big5 code page (the C-SPAN speech files).
_BIG5_PUNCTUATION = {
    b"\xa1@": " ", b"\xa1K": "\u2026", b"\xa1X": "\u2014", b"\xa1\xa5": "\u2018",
    b"\xa1\xa6": "\u2019", b"\xa1\xa7": "\u201c", b"\xa1\xa8": "\u201d",
}
_BIG5_PAIR = re.compile(b"|".join(re.escape(k) for k in _BIG5_PUNCTUATION))
# cp1252 characters that lost their high bit (movie_reviews).
_LOW_CP1252 = {chr(b): bytes([b + 0x80]).decode("cp1252") for b in (0x05, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17)}
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")

# Product-review feature annotations: "picture quality[+2][u]", "[s]", "look{+1]", "connection+3]".
_TAG = r"(?:[\[{](?:[+-]\d?|u|p|s|cc|cs)\]+|(?<=\w)[+-]\d\]+)"
_FEATURE = rf"(?:[^\s\[\]{{}}#,]+(?: [^\s\[\]{{}}#,]+){{0,4}})?(?:{_TAG})+"
_ANNOTATION = rf"{_FEATURE}(?:\s*,\s*{_FEATURE})*\s*,?"
_LEADING_ANNOTATION = re.compile(rf"^\s*{_ANNOTATION}\s*")
_TRAILING_ANNOTATION = re.compile(rf"(?:^|(?<=\s)){_ANNOTATION}\s*$")
_STRAY_TAG = re.compile(r"[\[{](?:[+-]\d?|u|p|s|cc|cs)\]")
_PROS_CONS = re.compile(r"<(Pros|Cons)>(.*)</\1>")


@dataclass(frozen=True)
class PackageInfo:
    """A package's ``NAME.xml``: where its text comes from and under which license."""

    id: str
    name: str
    author: str
    copyright: str
    license: str
    licenseurl: str
    webpage: str


def package_info(folder: PathLike, package: str) -> PackageInfo:
    """Read ``folder/package.xml`` (attributes of its ``<package>`` element; absent ones are "")."""
    path = Path(folder) / f"{package}.xml"
    try:
        root = ElementTree.parse(path).getroot()
    except ElementTree.ParseError as error:
        raise CorpusFormatError(path, error.position[0], f"not a package description: {error}") from None
    if root.tag != "package":
        raise CorpusFormatError(path, None, f"expected a <package> element, found <{root.tag}>")
    values = {key: " ".join(root.get(key, "").split()) for key in _XML_FIELDS}
    if values["id"] != package:
        raise CorpusFormatError(path, None, f"package id {values['id']!r} is not the file's name {package!r}")
    if not values["license"]:
        raise CorpusFormatError(path, None, "the package names no license")
    return PackageInfo(**values)


def select_packages(
    folder: PathLike, only: Optional[Iterable[str]] = None, exclude: Optional[Iterable[str]] = None
) -> List[str]:
    """The package ids to read, sorted: those of :data:`GENRES` with a zip in ``folder`` (all of
    ``only`` if given, which must be there), less ``exclude``. A name that is not a known
    package is an error, so a typo cannot leave a held-out genre in the training text."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(2, "No such directory", str(folder))
    only_list = _names(only)
    exclude_list = _names(exclude)
    for name in only_list + exclude_list:
        if name not in GENRES:
            raise ValueError(f"unknown nltk-text package {name!r}; known: {', '.join(sorted(GENRES))}")
    if only_list:
        missing = [name for name in only_list if not (folder / f"{name}.zip").is_file()]
        if missing:
            raise ValueError(f"{folder} has no {', '.join(f'{name}.zip' for name in missing)}")
        chosen = only_list
    else:
        chosen = [name for name in GENRES if (folder / f"{name}.zip").is_file()]
    chosen = sorted(set(chosen) - set(exclude_list))
    if not chosen:
        raise ValueError(f"no nltk-text package left to read in {folder}")
    return chosen


def read_nltk_text(
    folder: PathLike, only: Optional[Iterable[str]] = None, exclude: Optional[Iterable[str]] = None
) -> Iterator[Record]:
    """The records of the selected packages (:func:`select_packages`), in a fixed order: each
    ``{"text", "id", "source", "file", "genre", "license", "licenseurl", "copyright"}`` (and
    ``title`` for a product review with one). ``id`` is the file's path in its zip, with
    ``:LINE`` for a record that starts on a line of a many-record file."""
    folder = Path(folder)
    for package in select_packages(folder, only, exclude):
        info = package_info(folder, package)
        for record in _read_package(folder / f"{package}.zip", package):
            record.update(source=package, license=info.license, licenseurl=info.licenseurl, copyright=info.copyright)
            yield record


def write_nltk_text(
    folder: PathLike,
    output: PathLike,
    only: Optional[Iterable[str]] = None,
    exclude: Optional[Iterable[str]] = None,
    card: Optional[PathLike] = None,
    share: float = 1.0,
    after: float = 0.0,
) -> Dict[str, object]:
    """Write the records as JSONL to ``output`` and the corpus card (JSON) to ``card``
    (default: ``output`` with ``.card.json`` for its suffix); return the card.

    The card has, per package: its XML's name, author, copyright, license, license URL and
    webpage, its zip's SHA-256, and the documents, words (whitespace-separated) and genres
    written. ``share`` below 1 writes only that share of the words in whole records
    (:func:`spacy_lal.corpora.share.fixed_share`: a fixed shuffled order, so every share mixes
    the packages as the whole does), in the corpus's order; the card also says the share and
    the documents and words of the whole. ``after`` leaves out the records of that smaller share,
    so ``after=0.25, share=0.5`` writes the second quarter: texts a teacher has not parsed yet."""
    if not 0 <= after < share:
        raise ValueError(f"after ({after}) must be at least 0 and below the share ({share})")
    folder, output = Path(folder), Path(output)
    card_path = Path(card) if card is not None else output.with_suffix(".card.json")
    packages = select_packages(folder, only, exclude)
    entries: Dict[str, Dict[str, object]] = {}
    for package in packages:
        entry: Dict[str, object] = asdict(package_info(folder, package))
        zip_path = folder / f"{package}.zip"
        entry.update(file=zip_path.name, sha256=hashlib.sha256(zip_path.read_bytes()).hexdigest(),
                     documents=0, words=0, genres={})
        entries[package] = entry
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(output.name + ".partial")
    records: Iterable[Record] = read_nltk_text(folder, packages)
    whole: Dict[str, int] = {}
    if share < 1 or after > 0:
        records = list(records)
        words = [_words(record) for record in records]
        whole = {"documents": len(records), "words": sum(words)}
        kept = set(fixed_share(range(len(records)), share, length=words.__getitem__))
        kept -= set(fixed_share(range(len(records)), after, length=words.__getitem__))
        records = [record for i, record in enumerate(records) if i in kept]
    with partial.open("w", encoding="utf8") as out:
        for record in records:
            entry = entries[record["source"]]
            entry["documents"] += 1  # type: ignore[operator]
            entry["words"] += _words(record)  # type: ignore[operator]
            genres = entry["genres"]
            genres[record["genre"]] = genres.get(record["genre"], 0) + 1  # type: ignore[union-attr,index]
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    partial.replace(output)  # a failed run leaves no truncated corpus behind
    summary = {
        "corpus": output.name,
        "built_from": str(folder),
        "documents": sum(e["documents"] for e in entries.values()),  # type: ignore[misc]
        "words": sum(e["words"] for e in entries.values()),  # type: ignore[misc]
        "word_count": "whitespace-separated tokens of each record's text",
        "packages": entries,
    }
    if whole:
        summary.update(share=share, share_of=whole)
        if after:
            summary.update(after=after)
    card_path.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf8")
    return summary


def _words(record: Record) -> int:
    return len(record["text"].split())


def _names(names: Optional[Iterable[str]]) -> List[str]:
    """Package names given as a list and/or comma-separated."""
    if names is None:
        return []
    if isinstance(names, str):
        names = [names]
    return [part.strip() for name in names for part in name.split(",") if part.strip()]


# --- reading one package -------------------------------------------------------------------


def _read_package(zip_path: Path, package: str) -> Iterator[Record]:
    reader: Callable[[str, str, List[str]], Iterator[Record]] = _READERS[package]
    try:
        archive = zipfile.ZipFile(zip_path)
    except zipfile.BadZipFile as error:
        raise CorpusFormatError(zip_path, None, f"not a zip file ({error})") from None
    with archive:
        members = sorted(
            name for name in archive.namelist()
            if not name.endswith("/") and not Path(name).name.upper().startswith("README")
        )
        if not members:
            raise CorpusFormatError(zip_path, None, "the zip holds no text files")
        for member in members:
            where = f"{zip_path}/{member}"
            lines = _decode(archive.read(member), where, legacy=GENRES[package] == "speech")
            genre = _FILE_GENRES.get(Path(member).name, GENRES[package])
            for record in reader(where, member, lines):
                record["genre"] = genre
                yield record


def _decode(data: bytes, where: str, legacy: bool) -> List[str]:
    """A file's lines (without line ends), decoded and repaired (see the module docstring)."""
    try:
        text = data.decode("utf8")
    except UnicodeDecodeError as error:
        if not legacy:
            line = data.count(b"\n", 0, error.start) + 1
            byte = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
            raise CorpusFormatError(
                where, line, f"not UTF-8 at byte {byte} of the line ({data[error.start:error.start + 1]!r})"
            ) from None
        text = _legacy_decode(data, where)
    lines = text.split("\n")
    for line_no, line in enumerate(lines, 1):
        line = line.rstrip("\r")
        line = "".join(_LOW_CP1252.get(c, c) for c in line) if _CONTROL.search(line) else line
        line = _CONTROL.sub(_c1_to_cp1252, line) if _CONTROL.search(line) else line
        bad = _CONTROL.search(line)
        if bad:
            raise CorpusFormatError(
                where, line_no, f"control character U+{ord(bad.group()):04X} at column {bad.start() + 1}"
            )
        lines[line_no - 1] = line
    return lines


def _legacy_decode(data: bytes, where: str) -> str:
    pieces: List[str] = []
    start = 0
    for match in _BIG5_PAIR.finditer(data):
        pieces.append(data[start:match.start()].decode("cp1252", errors="strict"))
        pieces.append(_BIG5_PUNCTUATION[match.group()])
        start = match.end()
    try:
        pieces.append(data[start:].decode("cp1252"))
    except UnicodeDecodeError as error:
        offset = start + error.start
        line = data.count(b"\n", 0, offset) + 1
        raise CorpusFormatError(where, line, f"neither UTF-8 nor cp1252 ({data[offset:offset + 1]!r})") from None
    return "".join(pieces)


def _c1_to_cp1252(match: "re.Match[str]") -> str:
    char = match.group()
    if "\x80" <= char <= "\x9f":
        try:
            return char.encode("latin-1").decode("cp1252")
        except UnicodeDecodeError:  # 0x81, 0x8d, 0x8f, 0x90, 0x9d: no cp1252 character
            return char
    return char


def _read_whole(where: str, member: str, lines: List[str]) -> Iterator[Record]:
    """Speeches and movie reviews: the file is one document, a line a paragraph or sentence."""
    text = _PARAGRAPH.join(line.strip() for line in lines if line.strip())
    if text:
        yield {"text": text, "id": member, "file": member}


def _read_lines(where: str, member: str, lines: List[str]) -> Iterator[Record]:
    for line_no, line in enumerate(lines, 1):
        text = line.strip()
        if text:
            yield {"text": text, "id": f"{member}:{line_no}", "file": member}


def _read_pros_cons(where: str, member: str, lines: List[str]) -> Iterator[Record]:
    for line_no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        match = _PROS_CONS.fullmatch(line.strip())
        if match is None:
            raise CorpusFormatError(where, line_no, f"expected <Pros>text</Pros> or <Cons>text</Cons>, found {line.strip()[:60]!r}")
        text = match.group(2).strip()
        if text:
            yield {"text": text, "id": f"{member}:{line_no}", "file": member}


def _read_product_reviews(where: str, member: str, lines: List[str]) -> Iterator[Record]:
    """``[t]title`` starts a review; ``features##sentence`` lines are its sentences; ``*`` lines
    before the first review line are the file's comment header."""
    review: List[str] = []
    start: Optional[int] = None
    title = ""
    in_header = True

    def finish() -> Iterator[Record]:
        if review:
            record = {"text": _PARAGRAPH.join(review), "id": f"{member}:{start}", "file": member}
            if title:
                record["title"] = title
            yield record

    for line_no, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped:
            continue
        if in_header and stripped.startswith("*"):
            continue
        in_header = False
        if stripped.lstrip("*").startswith("[t]"):  # "***[t]" once, a slip
            yield from finish()
            title = _squash(_STRAY_TAG.sub("", stripped.lstrip("*")[3:]))
            review, start = [], line_no
            continue
        if start is None:
            start = line_no
        sentence = _review_sentence(stripped, where, line_no)
        if sentence:
            review.append(sentence)
    yield from finish()


def _review_sentence(line: str, where: str, line_no: int) -> str:
    """One product-review line without its annotations: ``features##sentence [features##sentence]``."""
    if "##" in line:
        pieces = line.split("##")[1:]  # what precedes the first ## is the annotation
        # an annotation can also end a piece, naming the features of the next ## sentence
        pieces = [_TRAILING_ANNOTATION.sub("", p) if i < len(pieces) - 1 else p for i, p in enumerate(pieces)]
    else:  # a slip: the annotation without its ##
        pieces = [_LEADING_ANNOTATION.sub("", line)]
    text = _squash(" ".join(_STRAY_TAG.sub("", piece) for piece in pieces))
    if "##" in text or _STRAY_TAG.search(text):  # cannot happen after the subs above: a bug guard
        raise CorpusFormatError(where, line_no, f"annotation left in the text: {text[:60]!r}")
    return text


def _squash(text: str) -> str:
    return " ".join(text.split())


_READERS: Dict[str, Callable[[str, str, List[str]], Iterator[Record]]] = {
    "inaugural": _read_whole,
    "state_union": _read_whole,
    "movie_reviews": _read_whole,
    "product_reviews_1": _read_product_reviews,
    "product_reviews_2": _read_product_reviews,
    "pros_cons": _read_pros_cons,
    "sentence_polarity": _read_lines,
    "subjectivity": _read_lines,
}
