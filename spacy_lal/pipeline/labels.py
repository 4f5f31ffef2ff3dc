"""How constituent labels are stored: a collapsed unary chain is one label, its labels joined
outermost first ("S::VP"); label id 0 is "no constituent" in every chart; a tree that is a
single preterminal gets the root label ``ROOT_ONLY``, since CKY wants a labelled root.

Prediction reads labels back with :func:`label_to_chain`, so this codec is shared by training
(``gold.py``), decoding (``parser/component.py``) and ``spacy_lal.interpret``.
"""
from typing import List, Sequence, Tuple

EMPTY = 0  # label id of "no constituent" in every chart
ROOT_ONLY = "TOP"  # root label of trees that are a single preterminal (CKY wants a labelled root)
CHAIN_SEP = "::"  # joins a collapsed unary chain, outermost first: "S::VP"


def chain_to_label(labels: Sequence[str]) -> str:
    """One label for a unary chain (outermost first)."""
    return CHAIN_SEP.join(labels)


def label_to_chain(label: str) -> Tuple[str, ...]:
    """The chain a label stands for, without ``ROOT_ONLY``."""
    return tuple(part for part in label.split(CHAIN_SEP) if part != ROOT_ONLY)


def chain_of_id(label_id: int, labels: Sequence[str]) -> Tuple[str, ...]:
    """The chain of a model label id (``labels[label_id - 1]``; ``()`` for ``EMPTY``)."""
    return label_to_chain(labels[label_id - 1]) if label_id != EMPTY else ()


def label_chains(labels: Sequence[str]) -> List[Tuple[str, ...]]:
    """The chain of every model label id, indexed by the id: read once for a batch of spans."""
    return [chain_of_id(label_id, labels) for label_id in range(len(labels) + 1)]
