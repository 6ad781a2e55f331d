"""Writes ``_report_types.py``, the typed shapes of the reports Python
receives (:attr:`cosched.Run.report`, ``compare``'s attributes,
:attr:`cosched.Optimum.report`, :attr:`cosched.Assignment.report`,
``cosched.host``'s ``.data``), from the
Rust declarations of the report structs (``_cosched.report_shapes()``, written
by ``metric_fields!`` beside each struct): one ``TypedDict``
per struct, one field per Rust field, a flattened field's own fields in its
place. ``python -m cosched._report_gen`` (from the checkout's root) rewrites
the checkout's file; ``python/tests/test_stubs.py`` fails, naming this command,
when the file and the declarations differ."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from . import _cosched
from ._knob_gen import write_generated

#: The file in a checkout, from its root.
TARGET = Path("python/cosched/_report_types.py")

HEAD = '''"""Typed shapes of the reports cosched returns to Python, generated from
the Rust report structs by ``python -m cosched._report_gen``: do not edit by
hand. ``Report`` is :attr:`cosched.Run.report` (``cosched simulate --format
json``), ``Comparison`` ``cosched compare --format json``, ``OptimumReport``
:attr:`cosched.Optimum.report`, ``AssignmentReport``
:attr:`cosched.Assignment.report`, ``Interleaved``, ``CheckReport`` and
``Replay`` the ``.data`` of :mod:`cosched.host`'s results. A Rust tuple is a
JSON array: a list here. A number that is not finite is ``None`` in JSON."""

from __future__ import annotations

from typing import TypedDict
'''

#: Rust scalar types and their Python types.
SCALARS = {
    "f64": "float",
    "f32": "float",
    "u64": "int",
    "u32": "int",
    "usize": "int",
    "i64": "int",
    "i32": "int",
    "bool": "bool",
    "String": "str",
    "&'static str": "str",
    # A context id: a newtype over u32, a number in JSON.
    "CtxId": "int",
    # Unit enums, each variant's kebab-case name in JSON: where a mix job's
    # model comes from, what a paired interval says, why rounds stopped.
    "Source": "str",
    "Verdict": "str",
    "StopReason": "str",
}


def py_type(rust: str, known: set[str]) -> str:
    """The Python type of the Rust type ``rust`` as serde writes it to JSON."""
    rust = rust.replace(" ", "").replace("'static", "'static ")
    if m := re.fullmatch(r"Option<(.+)>", rust):
        return f"{py_type(m.group(1), known)} | None"
    if m := re.fullmatch(r"Vec<(.+)>", rust):
        return f"list[{py_type(m.group(1), known)}]"
    if m := re.fullmatch(r"BTreeMap<(\w+),(.+)>", rust):
        return f"dict[{py_type(m.group(1), known)}, {py_type(m.group(2), known)}]"
    if m := re.fullmatch(r"\[(.+);\d+\]", rust):
        return f"list[{py_type(m.group(1), known)}]"
    if m := re.fullmatch(r"\((.+)\)", rust):
        # A tuple is a JSON array, a list in Python: its items' types as one union.
        items = list(dict.fromkeys(a for t in _split(m.group(1)) for a in py_type(t, known).split(" | ")))
        return f"list[{' | '.join(items)}]"
    if rust in SCALARS:
        return SCALARS[rust]
    if rust in known:
        return rust
    raise ValueError(f"no Python type for the Rust type `{rust}`: add it to SCALARS in {__name__}")


def _split(items: str) -> list[str]:
    """A tuple's item types, split at the commas outside angle brackets and parentheses."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(items):
        depth += ch in "<("
        depth -= ch in ">)"
        if ch == "," and depth == 0:
            out.append(items[start:i])
            start = i + 1
    return out + [items[start:]]


def render() -> str:
    """The file's text for the shapes the extension reports."""
    shapes = {name: fields for name, fields in _cosched.report_shapes()}
    known = set(shapes)

    parts = [HEAD]
    for name, shape in shapes.items():
        # A flattened struct's fields come by inheritance: declared once, in its own class.
        bases = [rust for _, rust, flatten, skip in shape if flatten and not skip]
        fields = [(f, py_type(rust, known)) for f, rust, flatten, skip in shape if not (flatten or skip)]
        lines = [f"class {name}({', '.join(bases) or 'TypedDict'}):"]
        lines += [f"    {f}: {t}" for f, t in fields] or ["    pass"]
        parts.append("\n".join(lines) + "\n")
    return "\n\n".join(parts)


def main() -> int:
    """Rewrite the checkout's file; print whether it changed."""
    return write_generated(TARGET, render())


if __name__ == "__main__":
    sys.exit(main())
