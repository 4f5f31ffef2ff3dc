"""Give a built pipeline the raw-text front end of configs/en_lal_ewt.cfg, keeping its weights.

    python scripts/add_raw_text_components.py spacy_lal/pipelines/en_lal_ewt training/senter_ewt/model-best

The EWT tokenizer (spacy-lal.EWTTokenizer.v1) replaces spaCy's; the trained ``senter`` and
``lal_sentence_breaks`` replace the rule-based ``sentencizer``. Every other component, and so every
gold-word output, stays as it was (``scripts/snapshot_outputs.py`` compares). Used to rebuild the
shipped pipelines without their training outputs; ``package_pipeline.py`` builds the same front
end from scratch.
"""
import argparse
import sys
import warnings
from pathlib import Path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pipeline", type=Path, help="the pipeline to change, in place")
    parser.add_argument("senter", type=Path, help="the trained senter's pipeline (project: train-senter)")
    args = parser.parse_args(argv)

    import spacy
    from thinc.api import Config

    import spacy_lal  # noqa: F401  (factories)
    from spacy_lal.tokenizer import ewt_tokenizer

    nlp = spacy.load(args.pipeline)
    senter = spacy.load(args.senter)
    if senter.vocab.vectors.n_keys and senter.vocab.vectors.data.tobytes() != nlp.vocab.vectors.data.tobytes():
        raise ValueError(f"{args.senter} reads other static vectors than {args.pipeline}")
    nlp.tokenizer = ewt_tokenizer(nlp)
    for name in ("sentencizer", "senter", "lal_sentence_breaks"):
        if name in nlp.pipe_names:
            nlp.remove_pipe(name)
    with warnings.catch_warnings():
        # W113 compares the vectors objects, not their values: checked above.
        warnings.filterwarnings("ignore", message=r"\[W113\]")
        nlp.add_pipe("senter", source=senter, first=True)
    nlp.add_pipe("lal_sentence_breaks", after="senter")
    nlp.to_disk(args.pipeline)
    # Language.config keeps the tokenizer it was built with (the saved tokenizer wins on load,
    # but the config should say what it is), and the senter's products go through torch
    # (spacy-lal.Tagger.v1: spaCy's Tagger.v2 layers, so the same weights load, 1.5x faster).
    config = Config().from_disk(args.pipeline / "config.cfg", interpolate=False)
    config["nlp"]["tokenizer"] = {"@tokenizers": "spacy-lal.EWTTokenizer.v1"}
    config["components"]["senter"]["model"]["@architectures"] = "spacy-lal.Tagger.v1"
    config.to_disk(args.pipeline / "config.cfg")
    print(f"{args.pipeline}: {nlp.pipe_names}, tokenizer spacy-lal.EWTTokenizer.v1")
    return 0


if __name__ == "__main__":
    sys.exit(main())
