"""Keyword knobs → the CLI's flags (``quantum_ms=4`` → ``--quantum-ms 4``), checked
against the flags the Rust options struct defines (``cosched.knobs()``)."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

import numpy as np

from . import _cosched
from .errors import OptionError, PolicyError


@cache
def known() -> dict[str, dict[str, Any]]:
    """Every knob by keyword: flag, default, switch, help."""
    return {k["name"]: k for k in json.loads(_cosched.knob_list())}


def to_flags(knobs: dict[str, Any], *, reserved: tuple[str, ...] = ()) -> list[str]:
    """The flags of ``knobs``; an unknown or reserved keyword raises :class:`OptionError`."""
    table = known()
    flags: list[str] = []
    for name, value in knobs.items():
        if name in reserved or name not in table:
            close = difflib.get_close_matches(name, [k for k in table if k not in reserved], n=1)
            hint = f" (did you mean `{close[0]}`?)" if close else ""
            where = "is an argument of its own, not a knob" if name in reserved else "is not a knob"
            raise OptionError(f"`{name}` {where}{hint}; see cosched.knobs()")
        k = table[name]
        if k["switch"]:
            if not isinstance(value, bool):
                raise OptionError(f"{k['flag']}: `{name}` is a switch: give True or False, got {value!r}")
            if value:
                flags.append(k["flag"])
        elif value is not None:
            flags += [k["flag"], _text(value)]
    return flags


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return ",".join(_text(v) for v in value)
    return str(value)


def _command_flags(command: str, known: set[str], options: dict[str, Any]) -> list[str]:
    """Keyword options of a command as its flags (``x_y=1`` -> ``--x-y 1``; ``True``
    -> the bare flag, ``False`` -> nothing); an unknown one raises OptionError."""
    from .errors import OptionError

    flags: list[str] = []
    for k, v in options.items():
        if k not in known:
            raise OptionError(f"`{k}` is not an option of {command} (known: {', '.join(sorted(known))})")
        if isinstance(v, bool):
            flags += [f"--{k.replace('_', '-')}"] if v else []
        else:
            flags += [f"--{k.replace('_', '-')}", _text(v)]
    return flags


_FLAG = re.compile(r"--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)")


def python_words(message: str) -> str:
    """The CLI's message in Python's words: every ``--flag-name`` becomes the
    keyword ``flag_name`` that stands for it."""
    return _FLAG.sub(lambda m: m.group(1).replace("-", "_"), message)


@contextmanager
def in_python_words() -> Iterator[None]:
    """Re-raise an :class:`OptionError` or :class:`PolicyError` from the Rust
    side with its flags named as Python keywords (``quantum_ms``, not ``--quantum-ms``)."""
    try:
        yield
    except (OptionError, PolicyError) as e:
        raise type(e)(python_words(str(e))) from None


def check_seed(name: str, value: Any) -> int:
    """A seed: a whole number from 0 to 2**64 - 1."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= int(value) < 2**64:
        raise OptionError(f"{name}: must be a whole number from 0 to 2**64 - 1, got {value!r}")
    return int(value)


def check_count(name: str, value: Any, low: int = 1) -> int:
    """A count: a whole number of at least ``low`` (the Rust side bounds it above, naming the bound)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or int(value) < low:
        raise OptionError(f"{name}: must be a whole number of at least {low}, got {value!r}")
    if int(value) >= 2**63:
        raise OptionError(f"{name}: {value} is too large")
    return int(value)


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
