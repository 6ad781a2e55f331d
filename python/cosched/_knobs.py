"""Keyword knobs → the CLI's flags (``quantum_ms=4`` → ``--quantum-ms 4``), checked
against the flags the Rust options struct defines (``cosched.knobs()``)."""

from __future__ import annotations

import difflib
import json
from functools import cache
from typing import Any

from . import _cosched
from .errors import OptionError


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
