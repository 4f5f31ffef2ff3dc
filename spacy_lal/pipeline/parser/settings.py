"""The settings of ``lal_parser`` and ``lal_dependency_parser`` (``pipeline/settings.py``): each
one's default, check and whether the config wins over the saved value on load.

- ``dependencies`` (``lal_parser``): a dependency head trained jointly with the constituency one
  (Mrini et al. eq. 12); ``lal_dependency_parser`` always has it and no constituency head.
- ``dependency_decoder``: "eisner" (projective) or "mst" (non-projective) dependencies decoded
  next to the CKY tree, or "joint" (``lal_parser`` only): tree and dependencies decoded together
  as Zhou & Zhao (2019) and Mrini et al. do, maximising span scores + ``joint_weight`` x arc
  scores, so the dependencies are the tree's lexical heads (projective).
- ``quantize``: decode with int8 weights in the Linear layers at least 256 wide (CPU; each input
  row quantized on its own, ``nn/int8.py``), at a small accuracy cost (docs/speed.md, "int8
  prediction"); training is unaffected.
- ``constraints`` (``lal_parser``): ``{"require": [sources], "no_cross": [sources]}``, sources
  "ents", "noun_chunks" or "spans:KEY" (``doc.spans[KEY]``): their spans come out as labelled
  constituents (require) or are crossed by none (no_cross); see ``constraints.py``.
- ``dependency_scheme``: "ud" (Universal Dependencies, as the parser is trained) or "clear":
  ``token.dep_`` / ``token.head`` in spaCy's English (ClearNLP) scheme, converted from the UD
  tree (``clear.py``, docs/clear-scheme.md), for code written for ``en_core_web_sm`` (textacy,
  spaCy's English ``noun_chunks``, DependencyMatcher patterns); the UD tree stays readable as
  ``token._.ud_dep`` / ``token._.ud_head``.
- ``soft_target_weight`` (training): the share of a teacher's distributions in the arc and label
  targets of the words that carry them (``pipeline/soft_targets.py``: silver for distillation),
  the rest on the Doc's own head and label; 0, the default, trains on those alone.
- ``piece_length``: sentences longer than this many words are parsed in pieces of at most this
  many (one warning per call), in time that grows linearly beyond it; each sentence still gets
  one tree (the pieces' trees under one root) and one dependency tree.

All but ``dependencies`` are run-time settings, e.g.
``spacy.load(path, config={"components": {"lal_parser": {"dependency_scheme": "clear"}}})``.
"""
from typing import Any

from ..arcs import GRAPH_DECODERS
from ..constraints import check_constraints
from ..settings import PIECE_LENGTH, Setting, Settings, check_flag, check_share, check_weight
from .adapter import DEPENDENCY_DECODERS
from .clear import check_scheme


def _check_decoder(component: str, setting: str, value: Any) -> str:
    if value not in DEPENDENCY_DECODERS:
        raise ValueError(
            f"{component}: {setting} must be 'eisner' (projective), 'mst' (non-projective) "
            f"or 'joint' (with the tree), got {value!r}"
        )
    return value


def _check_graph_decoder(component: str, setting: str, value: Any) -> str:
    if value not in GRAPH_DECODERS:
        _check_decoder(component, setting, value)
        raise ValueError(f"{component}: {setting} 'joint' needs the constituency head")
    return value

_SHARED = dict(
    quantize=Setting(False, check_flag, runtime=True),
    dependency_scheme=Setting("ud", lambda component, _, value: check_scheme(component, value), runtime=True),
    piece_length=PIECE_LENGTH,
    soft_target_weight=Setting(0.0, check_share, runtime=True),
)

LAL_PARSER = Settings(
    constituency=Setting(True, factory=False),
    dependencies=Setting(True, check_flag),
    dependency_decoder=Setting("eisner", _check_decoder, runtime=True),
    joint_weight=Setting(1.0, check_weight, runtime=True),
    constraints=Setting({"require": [], "no_cross": []}, lambda component, _, value: check_constraints(component, value),
                        runtime=True),
    **_SHARED,
)

LAL_DEPENDENCY_PARSER = Settings(
    constituency=Setting(False, factory=False),
    dependencies=Setting(True, factory=False),
    dependency_decoder=Setting("mst", _check_graph_decoder, runtime=True),
    joint_weight=Setting(1.0, factory=False),
    constraints=Setting({"require": [], "no_cross": []}, factory=False),
    **_SHARED,
)
