"""``python -m spacy_lal train CONFIG --output DIR [--minutes M] [--curve FILE] [--checkpoints STEPS] [--config.overrides ...]``.

``spacy train`` with a wall-time budget: ``--minutes`` sets the config's
``spacy-lal.training_budget.v1`` callback (the config must use it as
``[training.before_update]``) and the run ends normally when it is spent, with ``model-last``
saved and ``model-best`` from the best evaluation so far. ``--curve`` sets the JSONL path of a
``spacy-lal.LearningCurveLogger.v1`` logger; ``--checkpoints STEPS`` makes it keep the pipeline
every STEPS steps under ``DIR/checkpoints/step-STEP``. Other ``--section.key value`` arguments override the
config as in ``spacy train``. Configs compared at equal minutes of the same machine are what the
learning curves of docs/results.md and the ablation table of docs/ablations.md show.
"""
import argparse
import sys
from pathlib import Path


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "train",
        help="spacy train with a wall-time budget and a learning-curve log",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("config", type=Path, help="training config")
    parser.add_argument("--output", type=Path, required=True, help="output directory (model-best, model-last)")
    parser.add_argument("--minutes", type=float, default=None, help="wall-time budget of the updates")
    parser.add_argument("--curve", type=Path, default=None, help="JSONL file for the learning curve")
    parser.add_argument("--checkpoints", type=int, default=0, metavar="STEPS",
                        help="also keep the pipeline every STEPS steps (at evaluations) under OUTPUT/checkpoints")
    parser.add_argument("--gpu-id", type=int, default=-1, help="GPU id, -1 for CPU (default)")
    parser.set_defaults(func=main)


def main(args: argparse.Namespace, overrides_argv: list = ()) -> int:
    from spacy import util
    from spacy.cli._util import parse_config_overrides
    from spacy.cli.train import train

    from ..training.callbacks import TrainingBudgetSpent

    if not args.config.exists():
        print(f"train: no config at {args.config}", file=sys.stderr)
        return 1
    overrides = parse_config_overrides(list(overrides_argv))
    config = util.load_config(args.config, overrides=overrides, interpolate=False)
    if args.minutes is not None:
        callback = config["training"].get("before_update") or {}
        if callback.get("@callbacks") != "spacy-lal.training_budget.v1":
            print(
                "train: --minutes needs [training.before_update] @callbacks = \"spacy-lal.training_budget.v1\" "
                f"in {args.config}",
                file=sys.stderr,
            )
            return 1
        overrides["training.before_update.minutes"] = args.minutes
    curve_options = [name for name, value in (("--curve", args.curve), ("--checkpoints", args.checkpoints)) if value]
    if curve_options and config["training"]["logger"].get("@loggers") != "spacy-lal.LearningCurveLogger.v1":
        verb = "needs" if len(curve_options) == 1 else "need"
        print(f"train: {' and '.join(curve_options)} {verb} [training.logger] @loggers = "
              f"\"spacy-lal.LearningCurveLogger.v1\" in {args.config}", file=sys.stderr)
        return 1
    if args.curve is not None:
        overrides["training.logger.path"] = str(args.curve)
    if args.checkpoints:
        # The config is already loaded with the overrides; spaCy's own default when it has none.
        eval_frequency = int(config["training"].get("eval_frequency", 200))
        if args.checkpoints < 0 or args.checkpoints % eval_frequency:
            print(f"train: --checkpoints {args.checkpoints} is not a positive multiple of eval_frequency "
                  f"{eval_frequency}: checkpoints are saved at evaluations", file=sys.stderr)
            return 1
        overrides["training.logger.checkpoint_every"] = args.checkpoints
    try:
        train(args.config, args.output, use_gpu=args.gpu_id, overrides=overrides)
    except TrainingBudgetSpent as spent:
        print(f"train: {spent}; saved {args.output / 'model-last'}")
    return 0
