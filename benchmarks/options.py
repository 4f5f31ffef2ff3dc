"""What the pipeline benchmarks share: their corpus options and their JSON output."""
import argparse
import json
from pathlib import Path
from typing import Any, Optional


def add_corpus_options(parser: argparse.ArgumentParser, *, rounds: bool = True) -> None:
    """The corpus to run on and how: sentences, rounds, batch size, and where to write JSON."""
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--limit", type=int, default=1000, help="sentences (default 1000)")
    if rounds:
        parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--output", type=Path, help="also write the figures here as JSON")


def write_json(path: Optional[Path], result: Any) -> None:
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf8")
