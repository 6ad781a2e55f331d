"""The result files under docs/results read as rows of (field, text) cells and each cell's
numbers: what the rendered pages' expressions name (scripts/docs_render_results.py): CSV rows,
JSON objects flattened to dotted fields, and the tables and lines of Markdown and text reports."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

Row = list[tuple[str, str]]


def rows_of(path: Path) -> list[Row]:
    """A result file as rows of (field, text) pairs."""
    text = path.read_text(errors="replace")
    if path.suffix == ".csv":
        rows = list(csv.reader(io.StringIO(text)))
        if not rows:
            return []
        names = rows[0]
        return [[(names[i] if i < len(names) else str(i), v) for i, v in enumerate(r)] for r in rows[1:]]
    if path.suffix == ".json":
        try:
            return json_rows(json.loads(text))
        except json.JSONDecodeError:
            return []
    # Markdown and text reports: table rows by their header, other lines as one field.
    out: list[Row] = []
    head: list[str] = []
    for line in text.splitlines():
        if line.startswith("|"):
            if set(line) <= set("|-: "):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not head or len(cells) != len(head):
                head = cells
                continue
            out.append(list(zip(head, cells)))
        else:
            head = []
            if line.strip():
                out.append([("line", line)])
    return out


def json_rows(data: object) -> list[Row]:
    """JSON as rows: nested objects join their parent's row (`unfairness.mean` beside `policy`);
    lists of objects become rows of their own."""
    out: list[Row] = []

    def flat(node: dict[str, object], prefix: str, row: Row) -> None:
        for k, v in node.items():
            if isinstance(v, dict):
                flat(v, f"{prefix}{k}.", row)
            elif isinstance(v, list) and v and isinstance(v[0], dict):
                for item in v:
                    sub: Row = []
                    flat(item, f"{prefix}{k}.", sub)
                    out.append(sub)
            else:
                row.append((prefix + k, json.dumps(v)))

    top: Row = []
    if isinstance(data, dict):
        flat(data, "", top)
    elif isinstance(data, list):
        for item in data:
            if isinstance(item, dict):
                sub: Row = []
                flat(item, "", sub)
                out.append(sub)
    return [top, *out] if top else out


NUMBER_IN_CELL = re.compile(r"[+−-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")


def numbers_in(text: str) -> tuple[list[float], list[bool]]:
    """Every number inside a result cell (a cell may hold `1 / 8 / 4` or `1.2 ±0.3`), and for
    each whether a `±` leads to it (a half-width, never read as a value of its own)."""
    t = text.replace(",", "")
    xs, half, last = [], [], 0
    for m in NUMBER_IN_CELL.finditer(t):
        xs.append(float(m.group(0).replace("−", "-")))
        half.append("±" in t[last : m.start()] and bool(xs[:-1]))
        last = m.end()
    return xs, half
