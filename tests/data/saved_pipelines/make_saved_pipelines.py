"""Write the pipelines of tests/pipeline/test_saved_pipelines.py: tiny trained pipelines and their parses.

    python tests/data/saved_pipelines/make_saved_pipelines.py tests/data/saved_pipelines

The committed copies were written by the package before the move to one folder per component
(issue #34), and the test loads them with the code of today: a user's pipeline saved by an
earlier version must keep loading and parse the same. Only public API is used here (factory and
architecture names, the Doc model's writers, found where each layout has them), so this script
runs on any layout. Do not run it again to make a failing test pass: a pipeline written by today's code proves nothing.
"""
import json
import sys
from pathlib import Path

import spacy
from spacy.tokens import Doc
from spacy.training import Example

import spacy_lal  # noqa: F401  (extensions)

try:
    from spacy_lal.doc.extensions import set_frames, set_tree
    from spacy_lal.doc.frames import FrameData
    from spacy_lal.doc.tree import Tree
except ImportError:  # the layout before spacy_lal/doc/ (issue #53)
    from spacy_lal.extensions import set_frames, set_tree
    from spacy_lal.srl import FrameData
    from spacy_lal.tree import Tree

# (PTB tree, UD heads (1-based, 0 = root), UD deprels, frames)
SENTENCES = [
    (
        "(S (NP (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))) (. .))",
        [2, 3, 0, 6, 6, 3, 3],
        ["det", "nsubj", "root", "case", "det", "obl", "punct"],
        [(2, "sit.01", [(0, 2, "ARG1"), (3, 6, "ARG2")])],
    ),
    ("(S (NP (NNS Dogs)) (VP (VBP bark)) (. .))", [2, 0, 2], ["nsubj", "root", "punct"], [(1, "bark.01", [(0, 1, "ARG0")])]),
    (
        "(S (NP (NNP Mary)) (VP (VBD borrowed) (NP (DT a) (NN book)) (PP (IN from) (NP (NNP John)))) (. .))",
        [2, 0, 4, 2, 6, 2, 2],
        ["nsubj", "root", "det", "obj", "case", "obl", "punct"],
        [(1, "borrow.01", [(0, 1, "ARG0"), (2, 4, "ARG1"), (4, 6, "ARG2")])],
    ),
    ("(TOP (INTJ (UH Hello)))", [0], ["root"], []),
]

TOK2VEC = {
    "@architectures": "spacy.Tok2Vec.v2",
    "embed": {
        "@architectures": "spacy.MultiHashEmbed.v2",
        "width": 32,
        "attrs": ["ORTH", "SHAPE"],
        "rows": [200, 20],
        "include_static_vectors": False,
    },
    "encode": {"@architectures": "spacy.MaxoutWindowEncoder.v2", "width": 32, "depth": 1, "window_size": 1, "maxout_pieces": 2},
}
PARSER = {
    "@architectures": "spacy-lal.LabelAttentionParser.v1",
    "d_model": 32, "n_layers": 1, "n_heads": 2, "d_kv": 8, "d_ff": 32, "lal_d_kv": 8, "lal_d_proj": 4,
    "d_span_hidden": 32, "d_arc": 32, "d_dep_label": 16, "dropout": 0.0, "max_length": 32, "tok2vec": TOK2VEC,
}
SRL = {
    "@architectures": "spacy-lal.SemanticRoleLabeler.v1",
    "n_layers": 1, "d_model": 32, "n_heads": 2, "d_ff": 32, "d_mask": 8, "dropout": 0.0,
    "d_head_hidden": 16, "max_length": 16, "tok2vec": TOK2VEC,
}
SPA = {
    "@architectures": "spacy-lal.SpaDependencyParser.v1", "tok2vec": TOK2VEC, "encoder": "bot", "d_scan": 16,
    "d_rescan": 16, "d_label": 16, "d_hidden": 32, "dropout": 0.0, "max_length": 16,
}
PIPELINES = {
    "lal_parser_srl": [("lal_parser", {"model": PARSER}), ("lal_srl", {"model": SRL, "predicates": "predicted"})],
    "lal_dependency_parser": [("lal_dependency_parser", {"model": PARSER})],
    "lal_spa_parser": [("lal_spa_parser", {"model": {**SPA, "parsing": "graph"}})],
}


def gold_doc(vocab, bracketed, heads, deps, frames) -> Doc:
    tree = Tree.from_string(bracketed).normalize()
    words = tree.words()
    doc = Doc(
        vocab,
        words=words,
        tags=tree.tags(),
        heads=[i if h == 0 else h - 1 for i, h in enumerate(heads)],
        deps=deps,
        sent_starts=[True] + [False] * (len(words) - 1),
    )
    set_tree(doc[:], tree.to_spans())
    set_frames(doc, [FrameData(p, sense, tuple(args)) for p, sense, args in frames])
    return doc


def inputs(vocab):
    return [Doc(vocab, words=Tree.from_string(s[0]).words()) for s in SENTENCES]


def parses(nlp) -> list:
    """What the test compares: trees, heads, labels and frames of each input Doc."""
    out = []
    for doc in nlp.pipe(inputs(nlp.vocab)):
        out.append(
            {
                "trees": [t.to_string() for t in doc._.trees] if doc.has_extension("trees") else [],
                "heads": [t.head.i for t in doc],
                "deps": [t.dep_ for t in doc],
                "srl": [f"{frame} <{frame.sense}>" for frame in doc._.srl],
            }
        )
    return out


def main(output: Path) -> None:
    for name, components in PIPELINES.items():
        nlp = spacy.blank("en")
        for factory, config in components:
            nlp.add_pipe(factory, config=config)
        examples = [
            Example(Doc(nlp.vocab, words=Tree.from_string(s[0]).words()), gold_doc(nlp.vocab, *s)) for s in SENTENCES
        ]
        optimizer = nlp.initialize(lambda: examples)
        optimizer.learn_rate = 0.005
        for _ in range(30):
            nlp.update(examples, sgd=optimizer)
        nlp.to_disk(output / name)
        (output / f"{name}.json").write_text(json.dumps(parses(nlp), indent=1) + "\n", encoding="utf8")
        print(f"{name}: {output / name}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
