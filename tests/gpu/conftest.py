"""The GPU tests' switch: a CUDA GPU seen by both CuPy (Thinc's arrays) and torch, else every test
here is skipped (``pytest -m gpu`` runs them alone; ``scripts/gpu_check.sh`` on a lent GPU)."""
from contextlib import contextmanager
from typing import Iterator

import pytest
from thinc.api import require_cpu, require_gpu


def gpu_available() -> bool:
    try:
        import cupy
        import torch

        return torch.cuda.is_available() and cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - no CuPy, no driver, no device: all mean no GPU here
        return False


def pytest_collection_modifyitems(items):
    skip = pytest.mark.skip(reason="no CUDA GPU here (CuPy and torch.cuda): scripts/gpu_check.sh runs these on one")
    available = gpu_available()
    for item in items:
        if item.get_closest_marker("gpu") and not available:
            item.add_marker(skip)


@contextmanager
def _gpu() -> Iterator[None]:
    require_gpu(0)
    try:
        yield
    finally:
        require_cpu()


@pytest.fixture
def on_gpu():
    """``with on_gpu():`` Thinc's current ops are CupyOps on GPU 0 (models built or loaded inside
    live there), and the CPU's again after the block."""
    return _gpu


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory):
    """A folder holding a randomly initialised two-layer BERT and its fast tokenizer (a vocabulary
    of a few words and the letters): TransformerFeatures loads it as it loads MiniLM, with no
    download and no installed model package."""
    pytest.importorskip("transformers")
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    folder = tmp_path_factory.mktemp("tiny_bert")
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "dogs", "bark", "."]
    words += list("abcdefghijklmnopqrstuvwxyz") + [f"##{c}" for c in "abcdefghijklmnopqrstuvwxyz"]
    (folder / "vocab.txt").write_text("\n".join(words) + "\n", encoding="utf8")
    BertTokenizerFast(vocab_file=str(folder / "vocab.txt")).save_pretrained(folder)
    torch.manual_seed(0)  # the same weights on every run
    config = BertConfig(vocab_size=len(words), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64)
    BertModel(config).save_pretrained(folder)
    return folder
