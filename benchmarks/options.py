"""What the benchmarks share: corpus options, JSON output, and the training batches of a config."""
import argparse
import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple


def add_corpus_options(parser: argparse.ArgumentParser, *, rounds: bool = True) -> None:
    """The corpus to run on and how: sentences, rounds, batch size, and where to write JSON."""
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--limit", type=int, default=1000, help="sentences (default 1000)")
    if rounds:
        parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--output", type=Path, help="also write the figures here as JSON")


def pipeline_suffix(path: Path, several: bool) -> str:
    """How a benchmark names one of several pipelines timed together: `` [its folder]``, by its
    training run for training outputs (all called model-best); nothing when it is the only one."""
    if not several:
        return ""
    return f" [{path.parent.name if path.name.startswith('model-') else path.name}]"


def write_json(path: Optional[Path], result: Any) -> None:
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf8")


def initialized_training(config_path: Path, corpus: Path, vectors: Optional[str], init_sentences: int,
                         words: int, overrides: Optional[Dict[str, Any]] = None) -> Tuple[Any, Any, List[list]]:
    """A training config's pipeline (with ``overrides``, as ``spacy train`` takes them) initialized
    on the first ``init_sentences`` of ``corpus``, its optimizer, and those sentences cut into
    batches of about ``words`` words (as the configs' batcher makes them): ``(nlp, optimizer,
    batches)``."""
    import spacy
    from spacy.tokens import DocBin
    from spacy.training import Example
    from thinc.api import fix_random_seed

    import spacy_lal  # noqa: F401

    fix_random_seed(0)
    paths: Dict[str, Any] = {"paths.train": str(corpus), "paths.dev": str(corpus)}
    if vectors:
        paths["paths.vectors"] = vectors
    config = spacy.util.load_config(config_path, overrides={**(overrides or {}), **paths}, interpolate=True)
    nlp = spacy.util.load_model_from_config(config, auto_fill=True, validate=True)
    gold = list(DocBin().from_disk(corpus).get_docs(nlp.vocab))[:init_sentences]
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in gold]
    examples = [eg for eg in examples if len(eg.x) == len(eg.y)]  # gold words, as gold_preproc
    optimizer = nlp.initialize(lambda: examples)
    batches, batch, size = [], [], 0
    for eg in examples:
        batch.append(eg)
        size += len(eg.y)
        if size >= words:
            batches.append(batch)
            batch, size = [], 0
    return nlp, optimizer, batches
