"""Keyword knobs → (keyword, value) pairs (``quantum_ms=4`` → ``("quantum_ms", 4)``),
type-checked against the knobs' declarations (``cosched.knobs()``); each value
crosses to Rust as itself (a number, a switch, a word, a list of words), not as
text, and the Rust side checks its range through the same declaration as the
command line's flag."""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np

from . import _cosched
from .errors import OptionError

#: A knob's value as it crosses to Rust.
Value = bool | int | float | str | list[str]
#: Knobs as they cross to Rust: each keyword and its typed value.
Values = list[tuple[str, Value]]


@cache
def known() -> dict[str, dict[str, Any]]:
    """Every knob by keyword: flag, default, switch, kind, choices, help."""
    return {k["name"]: k for k in _cosched.knob_list()}


def to_values(knobs: Mapping[str, Any], *, reserved: tuple[str, ...] = ()) -> Values:
    """The (keyword, value) pairs of ``knobs``; an unknown or reserved keyword, or a
    value of the wrong type for its knob, raises :class:`OptionError` naming the keyword."""
    table = known()
    texts: Values = []
    for name, value in knobs.items():
        if name in reserved or name not in table:
            close = difflib.get_close_matches(name, [k for k in table if k not in reserved], n=1)
            hint = f" (did you mean `{close[0]}`?)" if close else ""
            where = "is an argument of its own, not a knob" if name in reserved else "is not a knob"
            raise OptionError(f"`{name}` {where}{hint}; see cosched.knobs()")
        k = table[name]
        if k["switch"]:
            if not isinstance(value, (bool, np.bool_)):
                raise OptionError(f"{name}: is a switch: give True or False, got {_shown(value)}")
            texts.append((name, bool(value)))
        elif value is not None:
            texts.append((name, _value(name, k, value)))
    return texts


def _shown(value: Any) -> str:
    """``repr(value)`` cut to 80 characters."""
    r = repr(value)
    return r if len(r) <= 80 else r[:79] + "…"


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def _value(name: str, k: dict[str, Any], value: Any) -> Value:
    """``value`` for knob ``k`` as it crosses to Rust, checked against the knob's kind
    (a number stays a number; a text knob that also takes numbers gets their text)."""
    kind = k.get("kind", "text")
    wrong = f"{name}: "
    if kind == "number":
        if not _is_number(value):
            raise OptionError(f"{wrong}must be a number, got {_shown(value)}")
        return float(value) if isinstance(value, (float, np.floating)) else int(value)
    if kind == "integer":
        if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
            raise OptionError(f"{wrong}must be a whole number, got {_shown(value)}")
        return int(value)
    if kind == "word":
        if not isinstance(value, str):
            raise OptionError(f"{wrong}must be one of {', '.join(k['choices'])} (a string), got {_shown(value)}")
        return value
    if kind == "words":
        if isinstance(value, str):
            return value
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return list(value) if value else "none"
        raise OptionError(f"{wrong}give a list of words from {', '.join(k['choices'])}, got {_shown(value)}")
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value) if isinstance(value, os.PathLike) else value
    if _is_number(value):  # a text knob that also takes numbers (a threshold, one context id)
        return repr(float(value)) if isinstance(value, (float, np.floating)) else str(int(value))
    if isinstance(value, (list, tuple)) and all(_is_number(v) or isinstance(v, str) for v in value):
        return ",".join(str(int(v)) if isinstance(v, (int, np.integer)) else str(v) for v in value)
    raise OptionError(f"{wrong}give a string (or a list of numbers), got {_shown(value)}")


@cache
def declared(command: str) -> dict[str, dict[str, Any]]:
    """The declared options of ``command`` (``assign``, ``optimum``) by keyword."""
    return {k["name"]: k for k in _cosched.option_list(command)}


def _command_values(command: str, options: Mapping[str, Any]) -> Values:
    """Keyword options of a command as (keyword, value) pairs, type-checked against
    its declarations (:func:`declared`); an unknown option, or a value of the
    wrong type, raises OptionError."""
    table = declared(command)
    texts: Values = []
    for k, v in options.items():
        if k not in table:
            raise OptionError(f"`{k}` is not an option of {command} (known: {', '.join(sorted(table))})")
        if table[k]["switch"]:
            if not isinstance(v, (bool, np.bool_)):
                raise OptionError(f"{k}: is a switch: give True or False, got {_shown(v)}")
            texts.append((k, bool(v)))
        else:
            texts.append((k, _value(k, table[k], v)))
    return texts


def default(command: str, name: str) -> str:
    """The declared default of option ``name`` of ``command`` (``assign``, ``optimum``)."""
    return str(declared(command)[name]["default"])


def check_seed(name: str, value: Any) -> int:
    """A seed: a whole number from 0 to 2**64 - 1."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= int(value) < 2**64:
        raise OptionError(f"{name}: must be a whole number from 0 to 2**64 - 1, got {value!r}")
    return int(value)


def check_bool(name: str, value: Any) -> bool:
    """A switch: True or False (numpy's too), nothing else."""
    if not isinstance(value, (bool, np.bool_)):
        raise OptionError(f"{name}: give True or False, got {_shown(value)}")
    return bool(value)


def check_count(name: str, value: Any, low: int = 1) -> int:
    """A count: a whole number of at least ``low`` (the Rust side bounds it above, naming the bound)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or int(value) < low:
        raise OptionError(f"{name}: must be a whole number of at least {low}, got {value!r}")
    if int(value) >= 2**63:
        raise OptionError(f"{name}: {value} is too large")
    return int(value)


def check_number(name: str, value: Any) -> float:
    """A real number (the Rust side checks its range, naming it)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise OptionError(f"{name}: must be a number, got {value!r}")
    return float(value)


def check_policies(value: Any) -> list[str] | None:
    """``policies``: ``None`` (the default set) or a list of names (the Rust side
    refuses an empty list and a name listed twice, in the same words as the CLI)."""
    if value is None:
        return None
    if isinstance(value, str):
        raise OptionError(
            f"policies: give a list of policy names such as {value.split(',')!r}, not the string {value!r}"
        )
    try:
        names = list(value)
    except TypeError:
        raise OptionError(f"policies: give a list of policy names, got {type(value).__name__}") from None
    for n in names:
        if not isinstance(n, str):
            raise OptionError(
                f"policies: every entry must be a policy name (a string) or a cosched.Policy instance, got {n!r}"
            )
    return names
