"""The result files under docs/results read as rows of (field, text) cells, with each cell's
numbers and words: what scripts/docs_numbers.py pins a page's numbers to (CSV rows, JSON objects
flattened to dotted fields, and the tables and lines of Markdown and text reports)."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from pathlib import Path

WORD = re.compile(r"[A-Za-z][\w&-]{2,}")

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


def rounds_to(x: float, printed: float, decimals: int) -> bool:
    """Whether `x` prints as `printed` at `decimals` (a printed 0 may be −0)."""
    half = 0.5 * 10.0**-decimals * (1 + 1e-9) + 1e-12
    return abs(x - printed) <= half


class Files:
    """The result files' rows, parsed once, with their numbers and words."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.rows: dict[str, list[Row]] = {}
        self.nums: dict[tuple[str, int], list[tuple[str, list[float], list[bool]]]] = {}
        self.words: dict[tuple[str, int], set[str]] = {}
        self.listed: dict[tuple[str, ...], list[str]] = {}
        self.freq: dict[str, dict[str, int]] = {}

    def of(self, folders: list[str]) -> list[str]:
        """The result files under `folders` (walked once per set of folders)."""
        key = tuple(folders)
        if key not in self.listed:
            self.listed[key] = self.walk(folders)
        return self.listed[key]

    def walk(self, folders: list[str]) -> list[str]:
        names = []
        for folder in folders:
            base = self.root / "docs" / "results"
            for p in sorted((base / folder).rglob("*")):
                if p.is_file() and p.suffix in (".csv", ".json", ".md", ".txt") and p.name != "numbers.csv":
                    rel = p.relative_to(base).as_posix()
                    if rel not in self.rows:
                        self.rows[rel] = rows_of(p)
                    names.append(rel)
        return names

    def cells(self, name: str, r: int) -> list[tuple[str, list[float], list[bool]]]:
        k = (name, r)
        if k not in self.nums:
            self.nums[k] = [(f, *numbers_in(v)) for f, v in self.rows[name][r]]
        return self.nums[k]

    def key(self, name: str, r: int) -> str:
        """What names row `r`: its first cell, or a report line with its numbers masked."""
        row = self.rows[name][r]
        if not row:
            return ""
        if row[0][0] == "line":
            return NUMBER_IN_CELL.sub("#", row[0][1])
        # A JSON object whose first field is empty is named by its `name`, if it has one.
        if row[0][1] == "null":
            return next((v for f, v in row if f == "name" or f.endswith(".name")), row[0][1])
        return row[0][1]

    def locate(self, name: str, r: int, key: str, field: str) -> int | None:
        """Row `r` if it still has `key` and `field`, else the first row that has both."""
        rows = self.rows.get(name)
        if rows is None:
            return None

        def fits(i: int) -> bool:
            return self.key(name, i) == key and any(f == field for f, _ in rows[i])

        if r < len(rows) and fits(r):
            return r
        found = next((i for i in range(len(rows)) if fits(i)), None)
        # A text file's line whose wording changed around its numbers keeps its place.
        if found is None and name.endswith(".txt") and r < len(rows) and rows[r][0][0] == "line":
            return r
        return found

    def distinct(self, name: str, r: int, stems: Callable[[str], set[str]]) -> set[str]:
        """The words of row `r`'s text cells (not its numbers) that tell it from the file's other
        rows: in at most half of them. Empty for a row that only numbers tell apart."""
        rows = self.rows[name]
        if name not in self.freq:
            counts: dict[str, int] = {}
            for row in rows:
                for w in set().union(*(stems(v) for _, v in row if not numbers_in(v)[0])):
                    counts[w] = counts.get(w, 0) + 1
            self.freq[name] = counts
        words = set().union(*(stems(v) for _, v in rows[r] if not numbers_in(v)[0])) if r < len(rows) else set()
        return {w for w in words if self.freq[name].get(w, 0) * 2 <= len(rows)}

    def row_words(self, name: str, r: int) -> set[str]:
        k = (name, r)
        if k not in self.words:
            self.words[k] = set().union(*(words_of(v) | words_of(f) for f, v in self.rows[name][r]))
        return self.words[k]


def words_of(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(text)}
