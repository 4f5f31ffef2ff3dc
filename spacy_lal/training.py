"""Training on a clock: a wall-time budget and a learning-curve log for ``spacy train``.

Our models are trained on a 2-core CPU within one working session, so configs are compared at
equal training *time*, not equal steps. ``[training.before_update]`` with
``spacy-lal.training_budget.v1`` ends training once ``minutes`` have passed (spaCy saves
``model-last`` on the way out and ``model-best`` at its last best evaluation);
``python -m spacy_lal train`` runs ``spacy train`` and treats that end as success.
``spacy-lal.LearningCurveLogger.v1`` wraps another logger and appends each evaluation's step,
seconds, words and scores to a JSONL file that ``scripts/learning_curves.py`` draws.
"""
import json
import time
from pathlib import Path
from typing import IO, Any, Callable, Dict, Optional, Tuple

from spacy.language import Language
from spacy.util import registry

__all__ = ["TrainingBudgetSpent", "make_training_budget", "make_learning_curve_logger"]


class TrainingBudgetSpent(Exception):
    """Raised before the first update after the budget: the normal end of a budgeted run."""


@registry.callbacks("spacy-lal.training_budget.v1")
def make_training_budget(minutes: float = 0.0) -> Callable[[Language, Dict[str, Any]], None]:
    """A ``before_update`` callback ending training after ``minutes`` of wall time (0 = never).

    The clock starts at the first update, so initialization (vectors, labels) is not counted.
    """
    if minutes < 0:
        raise ValueError(f"minutes must be >= 0, got {minutes}")
    start: Optional[float] = None

    def before_update(nlp: Language, args: Dict[str, Any]) -> None:
        nonlocal start
        if start is None:
            start = time.perf_counter()
        elif minutes and time.perf_counter() - start >= minutes * 60:
            raise TrainingBudgetSpent(f"training budget of {minutes:g} minutes spent at step {args.get('step')}")

    return before_update


@registry.loggers("spacy-lal.LearningCurveLogger.v1")
def make_learning_curve_logger(path: str, console: Optional[Callable] = None) -> Callable:
    """Log each evaluation (step, seconds, words, score, component scores) to the JSONL ``path``,
    and pass everything on to ``console`` (e.g. ``spacy.ConsoleLogger.v3``) if given.

    ``path`` is replaced, not appended to: one file is one run.
    """

    def setup(nlp: Language, stdout: IO = None, stderr: IO = None) -> Tuple[Callable, Callable]:
        import sys

        inner = console(nlp, stdout or sys.stdout, stderr or sys.stderr) if console is not None else None
        out_path = Path(path)
        out_path.parent.mkdir(parents=True, exist_ok=True)
        stream = out_path.open("w", encoding="utf8")

        def log_step(info: Optional[Dict[str, Any]]) -> None:
            if inner is not None:
                inner[0](info)
            if info is None:  # a step without evaluation
                return
            record = {key: info.get(key) for key in ("epoch", "step", "seconds", "words", "score")}
            record["scores"] = {
                key: value for key, value in (info.get("other_scores") or {}).items()
                if isinstance(value, (int, float))
            }
            stream.write(json.dumps(record) + "\n")
            stream.flush()

        def finalize() -> None:
            stream.close()
            if inner is not None:
                inner[1]()

        return log_step, finalize

    return setup
