"""python scripts/upgrade_lemmatizer.py PIPELINE [OUT] [--component NAME]: a saved pipeline's
``trainable_lemmatizer`` becomes ``lal_lemmatizer`` (spacy_lal/pipeline/lemmatizer/): the config's
factory line changes and the new settings are written beside it; the component keeps its name and
its directory (cfg, model, trees) is not touched, byte for byte. With OUT, PIPELINE is copied there
first (OUT must not exist); without, PIPELINE is changed in place.
"""
import argparse
import filecmp
import shutil
import sys
from pathlib import Path

from spacy.util import load_config

NEW_SETTINGS = 'mode = "combined"\nrules_first = []\n'


def upgrade_config(text: str, component: str) -> str:
    """The config text with ``component``'s factory replaced: a text edit, so the rest of the
    file (comments, order, interpolations) stays as it was."""
    header = f"[components.{component}]\n"
    if text.count(header) != 1:
        raise ValueError(f"the config has no (single) section [components.{component}]")
    start = text.index(header) + len(header)
    end = text.find("\n[", start)
    end = len(text) if end < 0 else end + 1
    section = text[start:end]
    if 'factory = "lal_lemmatizer"' in section:
        raise ValueError(f"{component} is already lal_lemmatizer")
    old = 'factory = "trainable_lemmatizer"\n'
    if old not in section:
        raise ValueError(f"[components.{component}] is not a trainable_lemmatizer")
    section = section.replace(old, 'factory = "lal_lemmatizer"\n')
    section = section.rstrip("\n") + "\n" + NEW_SETTINGS + ("\n" if end < len(text) else "")
    return text[:start] + section + text[end:]


def upgrade(pipeline: Path, component: str = "trainable_lemmatizer") -> None:
    config = pipeline / "config.cfg"
    config.write_text(upgrade_config(config.read_text(encoding="utf8"), component), encoding="utf8")
    load_config(config)  # still a valid config (interpolation included)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pipeline", type=Path)
    parser.add_argument("out", type=Path, nargs="?")
    parser.add_argument("--component", default="trainable_lemmatizer")
    args = parser.parse_args()
    target = args.pipeline
    if args.out is not None:
        if args.out.exists():
            print(f"{args.out} exists", file=sys.stderr)
            return 1
        shutil.copytree(args.pipeline, args.out)
        target = args.out
    try:
        upgrade(target, args.component)
    except ValueError as error:
        print(f"{target}: {error}", file=sys.stderr)
        return 1
    if args.out is not None:
        same = filecmp.dircmp(args.pipeline / args.component, target / args.component)
        assert not same.diff_files and not same.left_only and not same.right_only
    print(f"{target}: {args.component} is lal_lemmatizer ({NEW_SETTINGS.strip().replace(chr(10), '; ')})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
