"""How strongly each component trains a shared tok2vec: the squared norm of the gradient each
listener sends it, after some real updates of a training config.

    python benchmarks/listener_gradients.py configs/lal_joint_cpu.cfg corpus/ewt/train.spacy \
        --vectors assets/vectors/glove_6b_50d --updates 40

Builds the config's pipeline, initializes it on the first sentences of the corpus, takes
``--updates`` steps on batches of about ``--words`` words with the config's optimizer and
learning-rate schedule, then updates each listening component alone on the next ``--batches``
batches and prints what the tok2vec recorded (spaCy's ``Tok2Vec`` adds the squared norm of every
gradient its listeners send to its loss). Components whose gradients are orders of magnitude
apart do not share the encoder: the largest trains it alone (docs/results.md, "What held the parser back").
"""
import argparse
import sys
from pathlib import Path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", type=Path)
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--updates", type=int, default=40)
    parser.add_argument("--batches", type=int, default=3, help="batches measured, each printed")
    parser.add_argument("--words", type=int, default=600, help="words per batch (the configs' size)")
    parser.add_argument("--init-sentences", type=int, default=3000)
    parser.add_argument("--vectors", help="static vectors (paths.vectors) for configs whose tok2vec reads them")
    args = parser.parse_args(argv)

    from options import initialized_training

    nlp, optimizer, batches = initialized_training(args.config, args.corpus, args.vectors, args.init_sentences, args.words)
    if "tok2vec" not in nlp.pipe_names:
        raise SystemExit(f"{args.config}: no shared 'tok2vec' component")
    if len(batches) < args.updates + args.batches:
        raise SystemExit(f"only {len(batches)} batches of {args.words} words: raise --init-sentences")
    for batch in batches[: args.updates]:
        nlp.update(batch, sgd=optimizer)
        optimizer.step_schedules()  # the training loop's job: warm-up starts at a rate of 0
    listeners = nlp.get_pipe("tok2vec").listening_components
    for batch in batches[args.updates: args.updates + args.batches]:
        squared_norms = {}
        for name in listeners:
            losses = {}
            nlp.update(batch, sgd=optimizer, losses=losses, exclude=[n for n in listeners if n != name])
            squared_norms[name] = round(losses["tok2vec"], 2)
        print(squared_norms)
    return 0


if __name__ == "__main__":
    sys.exit(main())
