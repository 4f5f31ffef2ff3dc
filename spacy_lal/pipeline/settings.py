"""Component settings, each with one owner.

A component's :class:`Settings` holds every setting its factory takes: the default (from which the
factory's ``default_config`` is made), the check that turns a given value into the one kept (or
raises a ValueError naming the component), and whether it is a **run-time** setting. A run-time
setting only steers prediction (a decoder, where predicates come from, int8), so on load the
config's value wins over the one saved with the weights:
``spacy.load(path, config={"components": {"lal_srl": {"decoder": "tree"}}})`` is obeyed. The
others (what the model was trained with, such as ``dependencies``) load as saved.

Model attributes follow the same rule through :class:`ConfigSetting`: an ``int`` attr built as
``ConfigSetting(value)`` (a chunk size, a cache size, a length limit with no learned table
behind it) is saved with the model, but a loaded model keeps the value its config gave.

``piece_length`` (:data:`PIECE_LENGTH`) is the setting every unit component has.
"""
import copy
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, Mapping, Optional, Sequence, Tuple

import srsly
from thinc.api import Model
from thinc.model import deserialize_attr, serialize_attr

__all__ = ["ConfigSetting", "PIECE_LENGTH", "Setting", "Settings", "check_choice", "check_flag", "check_share", "check_weight"]

# A check: (component name, setting name, value) -> the value to keep, or a ValueError.
Check = Callable[[str, str, Any], Any]


@dataclass(frozen=True)
class Setting:
    """One setting: its ``default``, its ``check`` (None: any value), whether the config wins
    over the saved value on load (``runtime``), and whether the factory takes it (``factory``:
    false for a value the component fixes, such as ``lal_dependency_parser``'s
    ``dependencies``)."""

    default: Any
    check: Optional[Check] = None
    runtime: bool = False
    factory: bool = True


class Settings(Mapping[str, Setting]):
    """A component's settings by name (see the module docstring)."""

    def __init__(self, **settings: Setting) -> None:
        self._settings: Dict[str, Setting] = dict(settings)

    def __getitem__(self, key: str) -> Setting:
        return self._settings[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._settings)

    def __len__(self) -> int:
        return len(self._settings)

    @property
    def runtime(self) -> Tuple[str, ...]:
        """The run-time settings' names: on load their config values win over the saved ones."""
        return tuple(key for key, setting in self._settings.items() if setting.runtime)

    def defaults(self) -> Dict[str, Any]:
        """The factory's settings with their defaults (copies: a default is never shared)."""
        return {key: copy.deepcopy(s.default) for key, s in self._settings.items() if s.factory}

    def default_config(self, **others: Any) -> Dict[str, Any]:
        """A factory's ``default_config``: ``others`` (the model, the scorer) and the defaults."""
        return {**others, **self.defaults()}

    def check(self, component: str, values: Mapping[str, Any]) -> Dict[str, Any]:
        """Every setting's value to keep: ``values``' checked, the default where one is not
        given. A name that is no factory setting is a ValueError."""
        unknown = sorted(set(values) - {key for key, s in self._settings.items() if s.factory})
        if unknown:
            raise ValueError(f"{component}: unknown settings {unknown} (the settings are {sorted(self.defaults())})")
        checked = {}
        for key, setting in self._settings.items():
            value = values[key] if key in values else copy.deepcopy(setting.default)
            checked[key] = setting.check(component, key, value) if setting.check is not None else value
        return checked


def check_flag(component: str, setting: str, value: Any) -> bool:
    """A setting that is true or false."""
    if not isinstance(value, bool):
        raise ValueError(f"{component}: {setting} must be true or false, got {value!r}")
    return value


def check_weight(component: str, setting: str, value: Any) -> float:
    """A number >= 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise ValueError(f"{component}: {setting} must be a number >= 0, got {value!r}")
    return float(value)


def check_share(component: str, setting: str, value: Any) -> float:
    """A number from 0 to 1."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValueError(f"{component}: {setting} must be a number from 0 to 1, got {value!r}")
    return float(value)


def check_choice(choices: Sequence[Any]) -> Check:
    """A check that the value is one of ``choices``."""

    def check(component: str, setting: str, value: Any) -> Any:
        if value not in choices:
            raise ValueError(f"{component}: {setting} must be one of {tuple(choices)}, got {value!r}")
        return value

    return check


def _check_piece_length(component: str, setting: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{component}: {setting} must be a positive number of words, got {value!r}")
    return value


# Prediction reads a sentence longer than this many words in pieces of at most this many, so that
# time grows linearly beyond it (CKY is O(n^3) and the joint decoder O(n^4) in a sentence's length:
# one unpunctuated 1,000-word line took 40 s). No EWT test sentence is longer (81 words at most),
# so the gold-word scores are those of whole sentences.
PIECE_LENGTH = Setting(100, _check_piece_length, runtime=True)


class ConfigSetting(int):
    """A model attribute that only the config sets: it is saved with the model, but a loaded
    model keeps the value its config gave (a chunk or cache size chosen for parsing must not be
    undone by the one the model was trained with)."""


@serialize_attr.register(ConfigSetting)
def _serialize_config_setting(_: ConfigSetting, value: ConfigSetting, name: str, model: Model) -> bytes:
    return srsly.msgpack_dumps(int(value))


@deserialize_attr.register(ConfigSetting)
def _deserialize_config_setting(current: ConfigSetting, value: bytes, name: str, model: Model) -> ConfigSetting:
    return current
