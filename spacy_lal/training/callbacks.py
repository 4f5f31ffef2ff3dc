"""Training on a clock: a wall-time budget and a learning-curve log for ``spacy train``.

Our models are trained on a 2-core CPU within one working session, so configs are compared at
equal training *time*, not equal steps. ``[training.before_update]`` with
``spacy-lal.training_budget.v1`` ends training once ``minutes`` have passed (spaCy saves
``model-last`` on the way out and ``model-best`` at its last best evaluation);
``python -m spacy_lal train`` runs ``spacy train`` and treats that end as success.
``spacy-lal.warmup_linear_minutes.v1`` is the learning-rate schedule for such runs: its linear decay
ends when the budget does, however many steps the machine gives (a decay over a fixed number of
steps stopped at a third of its peak rate on a slow day and ended early on a fast one).
``spacy-lal.component_settings.v1`` (``[initialize.before_init]``) changes settings of the
components a config sources from a trained pipeline: spaCy ignores every key of a sourced
component's block but ``source``, so a fine-tuning run cannot set them there.
``spacy-lal.LearningCurveLogger.v1`` wraps another logger and appends each evaluation's step,
seconds, words and scores to a JSONL file that ``scripts/learning_curves.py`` draws.
"""
import json
import shutil
import time
from pathlib import Path
from typing import IO, Any, Callable, Dict, Iterator, Optional, Tuple

from spacy.language import Language
from spacy.util import registry

__all__ = [
    "TrainingBudgetSpent",
    "make_training_budget",
    "make_warmup_linear_minutes",
    "make_component_settings",
    "make_learning_curve_logger",
]


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


@registry.schedules("spacy-lal.warmup_linear_minutes.v1")
def make_warmup_linear_minutes(initial_rate: float, warmup_steps: int, minutes: float) -> Iterator[float]:
    """Thinc's ``warmup_linear.v1`` with its decay over wall time: the rate rises linearly over
    ``warmup_steps`` and falls linearly from ``initial_rate`` to 0 over ``minutes`` (set it to the
    run's budget, ``${training.before_update.minutes}``); each step takes the lower of the two.

    Thinc's optimizer draws the first value when it is built and one after each update, so the
    clock starts at the second draw, after the first update: one step after the budget's clock,
    which starts before it.
    """
    if minutes <= 0:
        raise ValueError(f"a learning-rate decay over minutes needs minutes > 0, got {minutes}")
    if warmup_steps < 0 or initial_rate < 0:
        raise ValueError(f"warmup_steps and initial_rate must be >= 0, got {warmup_steps} and {initial_rate}")

    def rates() -> Iterator[float]:
        start: Optional[float] = None
        step = 0
        while True:
            if step == 1:
                start = time.perf_counter()
            warm = min(1.0, step / warmup_steps) if warmup_steps else 1.0
            spent = 0.0 if start is None else (time.perf_counter() - start) / (minutes * 60)
            yield initial_rate * min(warm, max(0.0, 1.0 - spent))
            step += 1

    return rates()


@registry.callbacks("spacy-lal.component_settings.v1")
def make_component_settings(settings: Dict[str, Dict[str, Any]]) -> Callable[[Language], Language]:
    """A ``before_init`` callback setting ``settings[component][key]`` in each component's ``cfg``
    (e.g. ``{"lal_srl": {"sense_loss": "lemma"}}`` for a fine-tuning run of a sourced labeller).

    A spacy-lal component checks the values as its factory does (``configure``); for another
    (spaCy's tagger) only keys it already has are set, each to a value of the same type. So a typo
    fails here rather than being saved unused. The new values are saved with the trained pipeline.
    """

    def before_init(nlp: Language) -> Language:
        for name, values in settings.items():
            # component_names: spaCy initializes with the sourced components disabled
            if name not in nlp.component_names:
                raise ValueError(f"component_settings: no component {name!r} in the pipeline {nlp.component_names}")
            component = nlp.get_pipe(name)
            if hasattr(component, "configure"):
                component.configure(**values)
                continue
            cfg = getattr(component, "cfg", {})
            for key, value in values.items():
                if key not in cfg:
                    raise ValueError(f"component_settings: {name} has no setting {key!r} (it has {sorted(cfg)})")
                if type(value) is not type(cfg[key]):
                    raise ValueError(
                        f"component_settings: {name}.{key} is a {type(cfg[key]).__name__}, got {value!r}"
                    )
                cfg[key] = value
        return nlp

    return before_init


@registry.loggers("spacy-lal.LearningCurveLogger.v1")
def make_learning_curve_logger(path: str, console: Optional[Callable] = None, checkpoint_every: int = 0) -> Callable:
    """Log each evaluation (step, seconds, words, score, component scores) to the JSONL ``path``,
    and pass everything on to ``console`` (e.g. ``spacy.ConsoleLogger.v3``) if given.

    ``path`` is replaced, not appended to: one file is one run. ``checkpoint_every`` > 0 also
    keeps the pipeline of every evaluation whose step is a multiple of it, as
    ``checkpoints/step-STEP`` beside ``model-last`` (a copy of what spaCy has just saved there):
    a student whose behaviour on a construction flips between evaluations of equal dev score is
    chosen among them, not only between model-best and model-last (docs/training.md).
    """
    if checkpoint_every < 0:
        raise ValueError(f"LearningCurveLogger: checkpoint_every must be >= 0, got {checkpoint_every}")

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
            saved = info.get("output_path")
            if checkpoint_every and saved and info.get("step") and info["step"] % checkpoint_every == 0:
                target = Path(saved).parent / "checkpoints" / f"step-{info['step']}"
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(saved, target)

        def finalize() -> None:
            stream.close()
            if inner is not None:
                inner[1]()

        return log_step, finalize

    return setup
