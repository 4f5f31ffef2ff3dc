import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from setup_pipeline import setup_pipeline  # noqa: E402

setup_pipeline("en_lal_ewt_trf")
