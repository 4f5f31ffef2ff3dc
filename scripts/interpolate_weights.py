"""python scripts/interpolate_weights.py A B OUTPUT [--weight W]: a pipeline whose weights are
``(1 - W) * A + W * B``, component by component, written to OUTPUT (A's config, vocab and
everything else). A and B must be the same pipeline trained apart from one start, e.g. a run and
its fine-tuning: interpolating the two (WiSE-FT, Wortsman et al. 2022, "Robust fine-tuning of
zero-shot models") keeps some of what the fine-tuning on gold EWT alone gives up (the student's
everyday sentences, docs/results.md) and some of what it gains.

Every Thinc parameter and every floating torch tensor of the components is interpolated;
components whose weights are equal in both (a shared senter, lemmatizer) stay as they are.
"""
import argparse
import sys
from pathlib import Path
from typing import Iterator, Tuple

import spacy
from thinc.api import Model


def _nodes(a: Model, b: Model) -> Iterator[Tuple[Model, Model]]:
    nodes_a, nodes_b = list(a.walk()), list(b.walk())
    if [n.name for n in nodes_a] != [n.name for n in nodes_b]:
        raise ValueError(f"{a.name}: the two models have different layers")
    return zip(nodes_a, nodes_b)


def interpolate(a: Model, b: Model, weight: float) -> int:
    """Set ``a``'s weights to ``(1 - weight) * a + weight * b``; returns how many arrays changed."""
    changed = 0
    for node_a, node_b in _nodes(a, b):
        for name in node_a.param_names:
            if node_a.has_param(name) and node_b.has_param(name):
                x, y = node_a.get_param(name), node_b.get_param(name)
                if x.shape != y.shape:
                    raise ValueError(f"{node_a.name}.{name}: shapes {x.shape} and {y.shape}")
                if (x != y).any():
                    node_a.set_param(name, (1 - weight) * x + weight * y)
                    changed += 1
        for shim_a, shim_b in zip(node_a.shims, node_b.shims):
            state_b = shim_b._model.state_dict()
            for key, tensor in shim_a._model.state_dict().items():
                other = state_b[key]
                if tensor.is_floating_point() and not tensor.equal(other):
                    tensor.copy_((1 - weight) * tensor + weight * other)
                    changed += 1
    return changed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--weight", type=float, default=0.5, help="B's share (default: %(default)s)")
    args = parser.parse_args()
    if not 0 <= args.weight <= 1:
        parser.error(f"--weight must be between 0 and 1, got {args.weight}")
    nlp_a, nlp_b = spacy.load(args.a), spacy.load(args.b)
    if nlp_a.pipe_names != nlp_b.pipe_names:
        parser.error(f"different pipelines: {nlp_a.pipe_names} and {nlp_b.pipe_names}")
    for name, component in nlp_a.components:
        model = getattr(component, "model", None)
        if isinstance(model, Model):
            changed = interpolate(model, nlp_b.get_pipe(name).model, args.weight)
            print(f"{name}: {changed} weight arrays interpolated")
    nlp_a.to_disk(args.output)
    print(f"Wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
