"""spacy_lal.corpora.nltk_text and `convert nltk-text`: nltk_data packages as JSONL for parse-corpus.

Small zips of each markup kind are built here; the real folder (the project's assets) is read
where it is present.
"""
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from spacy_lal.corpora import CorpusFormatError
from spacy_lal.corpora.nltk_text import GENRES, read_nltk_text, select_packages, write_nltk_text

ROOT = Path(__file__).parents[2]
REAL = next((p for p in (Path("/work/shared/assets/nltk-text"), (ROOT / "../shared/assets/nltk-text").resolve())
             if (p / "inaugural.zip").is_file()), None)
CC_BY = 'copyright="(C) test" license="Creative Commons Attribution 4.0 International" licenseurl="http://creativecommons.org/licenses/by/4.0/"'


def package(folder: Path, name: str, files: dict, xml: str = CC_BY) -> None:
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.xml").write_text(f'<package id="{name}" name="{name} test" {xml} unzip="1"/>\n')
    with zipfile.ZipFile(folder / f"{name}.zip", "w") as archive:
        archive.writestr(f"{name}/", b"")
        archive.writestr(f"{name}/README.txt", b"[t] ## <Pros> not text\n")
        for path, data in files.items():
            archive.writestr(f"{name}/{path}", data if isinstance(data, bytes) else data.encode("utf8"))


PRODUCT = """\
*****************
* Product name: Test
*****************

[t]great camera
picture quality[+2][u]##the pictures are sharp .
##i love it .
size[-1]##it is big . ##but light .
[t]
***[t]slips
look{+1]##looks good.  feature[+2][cc]##Better than the rest.
connection+3] ##Works.
battery[-2] Battery life is short.
##
"""


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "nltk-text"
    package(root, "inaugural", {
        "1789-Washington.txt": "Fellow-Citizens:\n\n  Among the vicissitudes.\n  I dwell.\n",
        "2005-Bush.txt": b"Our nation\xa1\xa6s years\xa1Xand then. Price \xbd\xa2.\n",
    }, xml='copyright="public domain" license="public domain"')
    package(root, "movie_reviews", {"pos/cv000_1.txt": "it 's good .\ntoday\x12s films .\n", "neg/cv001_2.txt": "bad .\n"})
    package(root, "product_reviews_1", {"Test.txt": PRODUCT})
    package(root, "pros_cons", {"IntegratedPros.txt": "<Pros>Small, light</Pros>\n        <Pros> </Pros>\n\n<Pros>Cheap</Pros>\n"})
    package(root, "subjectivity", {"plot.tok.gt9.5000": "the plot \x96 thickens .\n\n",  # UTF-8 C2 96
                                   "quote.tok.gt9.5000": "a quote .\n"})
    return root


def test_records_per_markup_kind(folder):
    records = list(read_nltk_text(folder))
    by_id = {r["id"]: r for r in records}
    assert [r["source"] for r in records] == sorted(r["source"] for r in records)  # packages in order
    # speeches: one record, lines as paragraphs; the Big5/cp1252 file repaired
    assert by_id["inaugural/1789-Washington.txt"]["text"] == "Fellow-Citizens:\n\nAmong the vicissitudes.\n\nI dwell."
    assert by_id["inaugural/2005-Bush.txt"]["text"] == "Our nation\u2019s years\u2014and then. Price \u00bd\u00a2."
    assert by_id["inaugural/2005-Bush.txt"]["license"] == "public domain"
    # movie reviews: one per file, sentences as paragraphs, the high-bit-less quote restored
    assert by_id["movie_reviews/pos/cv000_1.txt"]["text"] == "it 's good .\n\ntoday\u2019s films ."
    assert by_id["movie_reviews/pos/cv000_1.txt"]["genre"] == "movie review"
    # product reviews: one per [t], header, titles and annotations gone
    reviews = [r for r in records if r["source"] == "product_reviews_1"]
    assert [(r["id"], r.get("title"), r["text"]) for r in reviews] == [
        ("product_reviews_1/Test.txt:5", "great camera",
         "the pictures are sharp .\n\ni love it .\n\nit is big . but light ."),
        ("product_reviews_1/Test.txt:10", "slips",
         "looks good. Better than the rest.\n\nWorks.\n\nBattery life is short."),
    ]
    # pros/cons: a line each, empty ones skipped
    assert [(r["id"], r["text"]) for r in records if r["source"] == "pros_cons"] == [
        ("pros_cons/IntegratedPros.txt:1", "Small, light"), ("pros_cons/IntegratedPros.txt:4", "Cheap")]
    # line files: genre per file, C1 dash repaired
    assert by_id["subjectivity/plot.tok.gt9.5000:1"]["text"] == "the plot \u2013 thickens ."
    assert by_id["subjectivity/plot.tok.gt9.5000:1"]["genre"] == "plot summary"
    assert by_id["subjectivity/quote.tok.gt9.5000:1"]["genre"] == "snippet"
    for record in records:
        assert set(record) >= {"text", "id", "source", "file", "genre", "license", "licenseurl", "copyright"}
        assert record["text"] and record["license"]


def test_only_and_exclude(folder):
    assert select_packages(folder, exclude=["inaugural"]) == ["movie_reviews", "product_reviews_1", "pros_cons", "subjectivity"]
    assert {r["source"] for r in read_nltk_text(folder, only="inaugural,pros_cons")} == {"inaugural", "pros_cons"}
    with pytest.raises(ValueError, match="unknown nltk-text package 'inagural'"):
        select_packages(folder, exclude=["inagural"])
    with pytest.raises(ValueError, match="has no state_union.zip"):
        select_packages(folder, only=["state_union"])


@pytest.mark.parametrize("name, files, message", [
    ("pros_cons", {"IntegratedCons.txt": "<Cons>ok</Cons>\n<Cons>unclosed\n"},
     r"pros_cons\.zip/pros_cons/IntegratedCons\.txt, line 2: expected <Pros>text</Pros>"),
    ("sentence_polarity", {"rt-polarity.pos": b"fine .\nnot \xe9 utf-8\n"},
     r"rt-polarity\.pos, line 2: not UTF-8 at byte 5"),
    ("movie_reviews", {"pos/cv1.txt": "a bell \x07 .\n"}, r"cv1\.txt, line 1: control character U\+0007"),
])
def test_malformed_input_names_file_and_line(tmp_path, name, files, message):
    package(tmp_path, name, files)
    with pytest.raises(CorpusFormatError, match=message):
        list(read_nltk_text(tmp_path))


def test_cli_writes_jsonl_and_card(folder, tmp_path):
    output = tmp_path / "silver" / "texts.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "spacy_lal", "convert", "nltk-text", str(folder), "--output", str(output),
         "--exclude", "inaugural"], capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in output.read_text(encoding="utf8").splitlines()]
    card = json.loads((tmp_path / "silver" / "texts.card.json").read_text(encoding="utf8"))
    assert "inaugural" not in card["packages"] and card["documents"] == len(records)
    pros = card["packages"]["pros_cons"]
    assert (pros["documents"], pros["words"], pros["genres"]) == (2, 3, {"pros/cons": 2})
    assert pros["license"] == "Creative Commons Attribution 4.0 International" and len(pros["sha256"]) == 64
    assert "pros_cons" in done.stdout and f"{output}: {len(records)} documents" in done.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "spacy_lal", "convert", "nltk-text", str(folder), "--output", str(output),
         "--only", "nope"], capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert bad.returncode == 1 and bad.stderr.startswith("error: unknown nltk-text package 'nope'")
    assert len(bad.stderr.strip().splitlines()) == 1


def test_a_share_of_the_words_in_whole_records(folder, tmp_path):
    whole = write_nltk_text(folder, tmp_path / "all.jsonl")
    every = [json.loads(line) for line in (tmp_path / "all.jsonl").read_text(encoding="utf8").splitlines()]
    card = write_nltk_text(folder, tmp_path / "half.jsonl", share=0.5)
    half = [json.loads(line) for line in (tmp_path / "half.jsonl").read_text(encoding="utf8").splitlines()]
    words = sum(len(record["text"].split()) for record in half)
    assert card["share"] == 0.5 and card["share_of"] == {"documents": whole["documents"], "words": whole["words"]}
    assert (card["documents"], card["words"]) == (len(half), words) and 0.5 * whole["words"] <= words < whole["words"]
    assert half == [record for record in every if record in half]  # whole records, in the corpus's order
    quarter = write_nltk_text(folder, tmp_path / "quarter.jsonl", share=0.25)
    assert {json.loads(line)["id"] for line in (tmp_path / "quarter.jsonl").read_text(encoding="utf8").splitlines()} \
        <= {record["id"] for record in half} and quarter["words"] < words  # a smaller share is part of a larger
    assert "share" not in whole
    second = write_nltk_text(folder, tmp_path / "second.jsonl", share=0.5, after=0.25)
    rest = [json.loads(line) for line in (tmp_path / "second.jsonl").read_text(encoding="utf8").splitlines()]
    assert rest == [record for record in half if record["id"] not in
                    {json.loads(line)["id"] for line in (tmp_path / "quarter.jsonl").read_text(encoding="utf8").splitlines()}]
    assert rest and second["after"] == 0.25 and second["words"] == words - quarter["words"]
    with pytest.raises(ValueError, match="below the share"):
        write_nltk_text(folder, tmp_path / "none.jsonl", share=0.25, after=0.5)
    bad = subprocess.run(
        [sys.executable, "-m", "spacy_lal", "convert", "nltk-text", str(folder), "--output", str(tmp_path / "x.jsonl"),
         "--share", "1.5"], capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert bad.returncode == 2 and "a share is a number above 0 and at most 1, not '1.5'" in bad.stderr


@pytest.mark.skipif(REAL is None, reason="the nltk-text assets are not here")
def test_the_real_folder(tmp_path):
    card = write_nltk_text(REAL, tmp_path / "texts.jsonl")
    assert set(card["packages"]) == set(GENRES)
    for name, entry in card["packages"].items():
        assert entry["documents"] > 0 and entry["words"] > 0 and entry["license"], name
    markup = re.compile(r"##|</?(?:Pros|Cons)>|\[[+-]\d\]")
    with (tmp_path / "texts.jsonl").open(encoding="utf8") as lines:
        for line in lines:
            record = json.loads(line)
            assert record["license"] and record["text"].strip() == record["text"] and record["text"]
            assert not markup.search(record["text"]), record["id"]
            if record["source"].startswith("product_reviews"):  # snippets may say "[t]oo many", an editor's bracket
                assert "[t]" not in record["text"], record["id"]
    heldout = {r["source"] for r in read_nltk_text(REAL, only=["inaugural", "state_union"])}
    rest = {r["source"] for r in read_nltk_text(REAL, exclude="inaugural,state_union")}
    assert heldout == {"inaugural", "state_union"} and not heldout & rest and heldout | rest == set(GENRES)
