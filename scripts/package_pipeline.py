"""Assemble the shipped pipeline from the trained parser and role labeller, and fill its meta.

    python scripts/package_pipeline.py training/lal_parser/model-best training/lal_srl/model-best \
        training/lemmatizer/model-best spacy_lal/pipelines/en_lal_ewt --metrics metrics

`spacy assemble configs/en_lal_ewt.cfg` does the assembling (sentencizer + tok2vec, tagger and
lal_parser from the parser pipeline + the lemmatizer + lal_srl); the meta gets the name, version, sources and
the EWT test scores that `evaluate-parser` and `evaluate-srl` wrote, so `nlp.meta` says what the
pipeline is and how good it is.
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# metrics file -> the meta "performance" keys it provides (with a prefix where two files
# report the same score under different settings).
METRICS = {
    "lal_parser_joint_test.json": ("", ("tree_f", "tree_p", "tree_r", "dep_uas", "dep_las", "words_per_second")),
    "lal_srl_gold_viterbi_test.json": ("", ("srl_f", "srl_p", "srl_r", "srl_perfect", "srl_sense_acc")),
    "lal_srl_predicted_test.json": ("end_to_end_", ("srl_f", "srl_pred_f")),
}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("parser_pipeline", type=Path)
    parser.add_argument("srl_pipeline", type=Path)
    parser.add_argument("lemmatizer_pipeline", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--config", type=Path, default=ROOT / "configs" / "en_lal_ewt.cfg")
    parser.add_argument("--metrics", type=Path, help="folder of the evaluate-* JSON files")
    parser.add_argument("--version", default="0.1.0")
    parser.add_argument("--srl-decoder", choices=["argmax", "viterbi", "tree"], default="tree")
    parser.add_argument("--parser-decoder", choices=["eisner", "mst", "joint"], default="joint")
    args = parser.parse_args(argv)

    subprocess.run(
        [sys.executable, "-m", "spacy", "assemble", str(args.config), str(args.output),
         "--paths.parser", str(args.parser_pipeline), "--paths.srl", str(args.srl_pipeline),
         "--paths.lemmatizer", str(args.lemmatizer_pipeline)],
        check=True,
    )
    import spacy

    import spacy_lal  # noqa: F401

    # Arguments restricted to the parser's constituents (span Viterbi) beat BIO Viterbi, which beats
    # the paper's argmax, on EWT (README: Results), so the shipped labeller decodes with them; the
    # config is where spaCy keeps such settings.
    # Likewise joint tree + dependency decoding beats CKY + Eisner on all three scores.
    settings = {"lal_srl": {"decoder": args.srl_decoder}, "lal_parser": {"dependency_decoder": args.parser_decoder}}
    nlp = spacy.load(args.output, config={"components": settings})
    meta = nlp.meta
    meta.update(
        name="lal_ewt",
        version=args.version,
        description=(
            "spacy-lal's English pipeline: label-attention constituency + dependency parser and "
            "DeepAtt semantic role labeller, trained on UD English-EWT joined with PropBank EWT"
        ),
        license="CC BY-SA 4.0 (training data: UD_English-EWT, propbank-release)",
        sources=[
            {"name": "UD_English-EWT", "url": "https://github.com/UniversalDependencies/UD_English-EWT"},
            {"name": "propbank-release", "url": "https://github.com/propbank/propbank-release"},
        ],
    )
    if args.metrics:
        performance = {}
        for filename, (prefix, keys) in METRICS.items():
            path = args.metrics / filename
            if path.exists():
                scores = json.loads(path.read_text(encoding="utf8"))
                performance.update({prefix + k: scores[k] for k in keys if scores.get(k) is not None})
        meta["performance"] = performance
    nlp.to_disk(args.output)
    print(f"Wrote {args.output} ({meta['lang']}_{meta['name']} {meta['version']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
