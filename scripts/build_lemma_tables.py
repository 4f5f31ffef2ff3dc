"""python scripts/build_lemma_tables.py SOURCE [OUT]: spaCy's English rule-lemmatizer tables ->
spacy_lal/data/en_lemma_tables.json.gz (the package data ``lal_lemmatizer`` reads).

SOURCE is a spacy-lookups-data wheel (``pip download spacy-lookups-data==1.0.5 --no-deps``), the
unpacked package's ``spacy_lookups_data/data`` folder, or ``installed`` (the installed package).
The three tables spaCy's rule mode needs (lemma_rules, lemma_exc, lemma_index) are copied as they
are, with the source's version and the WordNet notice the English tables carry (docs/data.md).
"""
import gzip
import io
import json
import sys
import zipfile
from pathlib import Path
from typing import Callable, Dict

TABLES = ("lemma_rules", "lemma_exc", "lemma_index")
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "spacy_lal" / "data" / "en_lemma_tables.json.gz"


def _reader(source: str) -> "tuple[Callable[[str], bytes], str]":
    """A function reading one file of the package's data folder, and the package's version."""
    if source == "installed":
        import importlib.metadata

        import spacy_lookups_data  # noqa: F401 (only to fail clearly when it is missing)

        folder = Path(spacy_lookups_data.__file__).parent / "data"
        return (lambda name: (folder / name).read_bytes()), importlib.metadata.version("spacy-lookups-data")
    path = Path(source)
    if path.suffix == ".whl":
        wheel = zipfile.ZipFile(path)
        version = path.name.split("-")[1]
        return (lambda name: wheel.read(f"spacy_lookups_data/data/{name}")), version
    return (lambda name: (path / name).read_bytes()), "unknown (a data folder)"


def build(source: str) -> Dict[str, object]:
    read, version = _reader(source)
    tables = {name: json.loads(gzip.decompress(read(f"en_{name}.json.gz"))) for name in TABLES}
    # Sorted index lists: the file is the same for the same data (the package's are in set order).
    tables["lemma_index"] = {pos: sorted(words) for pos, words in tables["lemma_index"].items()}
    return {
        "source": f"spacy-lookups-data {version} (MIT), en_lemma_rules/exc/index.json.gz",
        "notice": read("en_license.txt").decode("utf8"),
        "tables": tables,
    }


def main() -> int:
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out = Path(sys.argv[2]) if len(sys.argv) == 3 else DEFAULT_OUT
    data = json.dumps(build(sys.argv[1]), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    buffer = io.BytesIO()
    # mtime=0: rebuilding the same data gives the same bytes.
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9, mtime=0) as f:
        f.write(data.encode("utf8"))
    out.write_bytes(buffer.getvalue())
    print(f"{out}: {len(buffer.getvalue()):,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
