"""lal_lemmatizer's settings (``pipeline/settings.py``): spaCy's ``trainable_lemmatizer``'s own,
with spaCy's defaults, and the two the rules add.

- ``mode``: "combined" (the default: rules.py's choice between the trained and the rule lemma),
  "trained" (spaCy's trainable lemmatizer alone) or "rules" (spaCy's rule lemmatizer alone: the
  model is not run);
- ``rules_first``: the UPOS tags for which the rule lemma comes first where the tables know it
  (none by default: NOUN was measured, docs/components.md).

The component keeps them as attributes, not ``cfg`` entries, so that its saved files stay spaCy's
own: nothing is saved, and the config's values are the ones a loaded pipeline uses.
"""
from typing import Any, List

from ..settings import Setting, Settings, check_choice, check_flag

__all__ = ["LAL_LEMMATIZER", "MODES"]

MODES = ("combined", "trained", "rules")


def _check_rules_first(component: str, setting: str, value: Any) -> List[str]:
    if isinstance(value, str) or not all(isinstance(tag, str) for tag in value):
        raise ValueError(f"{component}: {setting} must be a list of UPOS tags, got {value!r}")
    return list(value)


def _check_count(component: str, setting: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{component}: {setting} must be a positive whole number, got {value!r}")
    return value


LAL_LEMMATIZER = Settings(
    # spaCy's trainable_lemmatizer's (its EditTreeLemmatizer), with spaCy's defaults
    backoff=Setting("orth"),
    min_tree_freq=Setting(3, _check_count),
    overwrite=Setting(False, check_flag),
    top_k=Setting(1, _check_count),
    # the rules'
    mode=Setting("combined", check_choice(MODES), runtime=True),
    rules_first=Setting([], _check_rules_first, runtime=True),
)
