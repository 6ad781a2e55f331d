"""Writes ``_knob_types.py``, the typed keywords of :func:`cosched.simulate`,
:func:`cosched.compare`, :func:`cosched.assign` and :func:`cosched.optimum`,
from the Rust declarations (``cosched list knobs``): one
``TypedDict`` field per declared option, its type from the option's kind.
``python -m cosched._knob_gen`` (from the checkout's root) rewrites the
checkout's file; ``python/tests/test_stubs.py`` fails, naming this command,
when the file and the declarations differ."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

from . import _cosched

#: The file in a checkout, from its root.
TARGET = Path("python/cosched/_knob_types.py")

#: The simulating functions' own arguments: not knobs of their keywords.
POSITIONAL = ("machine", "workload")

HEAD = '''"""Typed keywords of the simulating functions, generated from the Rust
declarations of every knob (``cosched list knobs``) by ``python -m
cosched._knob_gen``: do not edit by hand. The values are checked again at
run time (:mod:`cosched._knobs`), where the ranges are."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Literal, TypeAlias, TypedDict

#: A text option: a string, a path, a number or a list of them (``assignment=[0, 1]``).
Text: TypeAlias = str | os.PathLike[str] | int | float | Sequence[int | str]
'''


def _type(k: dict[str, Any]) -> str:
    """The Python type of knob ``k``'s kind."""
    kind = k["kind"]
    if kind == "switch":
        return "bool"
    if kind == "integer":
        return "int | None"
    if kind == "number":
        return "float | None"
    if kind == "word":
        return "Literal[" + ", ".join(f'"{c}"' for c in k["choices"]) + "] | None"
    if kind == "words":
        words = "Literal[" + ", ".join(f'"{c}"' for c in k["choices"]) + "]"
        return f"str | Sequence[{words}] | None"
    return "Text | None"


def _typed_dict(name: str, doc: str, knobs: list[dict[str, Any]]) -> str:
    lines = [f"class {name}(TypedDict, total=False):", f'    """{doc}"""', ""]
    for k in knobs:
        lines += [f"    #: {line}" for line in textwrap.wrap(" ".join(k["help"].split()), 100)]
        lines.append(f"    {k['name']}: {_type(k)}")
    return "\n".join(lines) + "\n"


def render() -> str:
    """The file's text, from the declarations the extension module holds."""
    run = [k for k in _cosched.knob_list() if k["name"] not in POSITIONAL]
    parts = [
        HEAD,
        _typed_dict("Knobs", "The keywords of simulate, compare, sweep points and SchedEnv.", run),
        _typed_dict(
            "AssignOptions",
            "The keywords of cosched.assign.",
            [k for k in _cosched.option_list("assign") if k["name"] not in (*POSITIONAL, "seed")],
        ),
        _typed_dict(
            "OptimumOptions",
            "The keywords of cosched.optimum.",
            [k for k in _cosched.option_list("optimum") if k["name"] not in POSITIONAL],
        ),
    ]
    return "\n\n".join(parts)


def write_generated(target: Path, text: str) -> int:
    """Rewrite the checkout's generated file ``target`` with ``text`` (the
    generators' ``main``); print whether it changed."""
    if not target.parent.is_dir():
        print(f"error: {target.parent}: no such folder: run from the root of a cosched checkout", file=sys.stderr)
        return 2
    old = target.read_text() if target.exists() else ""
    if old != text:
        target.write_text(text)
        print(f"wrote {target}")
    else:
        print(f"{target}: up to date")
    return 0


def main() -> int:
    """Rewrite the checkout's file; print whether it changed."""
    return write_generated(TARGET, render())


if __name__ == "__main__":
    sys.exit(main())
