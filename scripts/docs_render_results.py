"""The result files under docs/results as the rendered pages read them (scripts/docs_render.py):
a cell by its file, its row's key and its column; a row's interval; the rows of a file."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_numbers_files import NUMBER_IN_CELL, numbers_in, rows_of
from docs_render_values import Interval, MissingField, RenderError, Value


def masked(text: str) -> str:
    """A report line with each word that is only a number (a result a rerun moves) written `#`;
    a name holding digits (`check-07`, `chase4`, `90th`) is kept: the form a row key may take."""
    return " ".join(w if re.search(r"[A-Za-z]", w) else NUMBER_IN_CELL.sub("#", w) for w in text.split(" "))


#: A plain number as a report line writes it after a name (`0.4355`, `-1.2`, `12`).
NUMBER = r"[-+−]?\d+(?:\.\d+)?"


class Results:
    """The result files under docs/results, parsed once."""

    def __init__(self, root: Path) -> None:
        self.base = root / "docs" / "results"
        self.files: dict[str, list[list[tuple[str, str]]]] = {}
        self.json: dict[str, object] = {}

    def rows_of(self, file: str) -> list[list[tuple[str, str]]]:
        if file not in self.files:
            p = self.base / file
            if not p.is_file():
                raise RenderError(f"{file}: no such result file under docs/results")
            self.files[file] = rows_of(p)
        return self.files[file]

    @staticmethod
    def key(row: list[tuple[str, str]]) -> str:
        if not row:
            return ""
        if row[0][0] == "line":
            return row[0][1].strip()
        if row[0][1] == "null":
            return next((v for fld, v in row if fld == "name" or fld.endswith(".name")), "").strip('"')
        return row[0][1].strip('"')

    def row(self, file: str, key: str | list[str], field: str, section: str | None = None) -> dict[str, str]:
        """The one row of `file` keyed `key` that has `field`: its first cell (a report line:
        starting with it), or its first cells when `key` is a list (`["rda-raytrace",
        "rda-compromise"]` for a row of workload and policy); with `section`, only the rows under
        the report's `## SECTION...` heading (a report that repeats a table per check)."""
        found, current = [], None
        for r in self.rows_of(file):
            if r and r[0][0] == "line" and r[0][1].strip().startswith("## "):
                current = r[0][1].strip()[3:]
            if section is not None and not (current or "").startswith(section):
                continue
            if key == "*":
                hit = True  # the file's one row (a study written as a single row)
            elif isinstance(key, list):
                hit = [v.strip('"') for _, v in r[: len(key)]] == key
            else:
                k = self.key(r)
                line = bool(r and r[0][0] == "line")
                form = masked(r[0][1].strip()) if line else ""
                hit = k == key or (
                    line
                    and (
                        k.startswith(key)
                        or NUMBER_IN_CELL.sub("#", r[0][1]).strip() == key.strip()
                        or form.startswith(key)
                    )
                )
            if hit and any(fl == field for fl, _ in r):
                found.append(dict(r))
        where = f"{file}{f' [{section}]' if section else ''}"
        if not found:
            raise RenderError(f"{where}: no row {key!r} with a field {field!r}")
        if len(found) > 1:
            raise RenderError(
                f"{where}: {len(found)} rows {key!r} with a field {field!r}; give a longer key or a section"
            )
        return found[0]

    def cell(self, file: str, key: str | list[str], field: str, item: int = 0, section: str | None = None) -> Value:
        text = self.row(file, key, field, section)[field]
        xs, _ = numbers_in(text)
        where = f"{file} {key} {field}"
        if item >= len(xs):
            raise RenderError(f"{where}: no number {item} in {text[:80]!r}")
        return Value(xs[item], where)

    def total(self, file: str, key: str | list[str], field: str) -> Value:
        """The sum of the numbers of a cell that holds several (`4 / 9 / 0`: 13)."""
        text = self.row(file, key, field)[field]
        return Value(sum(numbers_in(text)[0]), f"{file} {key} {field} (sum)")

    def iv(
        self,
        file: str,
        key: str | list[str],
        field: str,
        half: str | None = None,
        item: int = 0,
        section: str | None = None,
    ) -> Interval:
        row = self.row(file, key, field, section)
        xs, halves = numbers_in(row[field])
        where = f"{file} {key} {field}"
        if item >= len(xs):
            raise RenderError(f"{where}: no number {item} in {row[field][:80]!r}")
        mean = xs[item]
        if half == "±":
            if item + 1 >= len(xs) or not halves[item + 1]:
                raise RenderError(f"{where}: no ± half-width after number {item}")
            return Interval(mean, xs[item + 1], where)
        if half is not None and "|" in half:
            lo, hi = half.split("|", 1)
            for h in (lo, hi):
                if h not in row:
                    raise RenderError(f"{where}: no field {h!r} for the interval")
            return Interval(mean, (numbers_in(row[hi])[0][0] - numbers_in(row[lo])[0][0]) / 2, where)
        h = half or f"{field} ci95"
        if h not in row or not numbers_in(row[h])[0]:
            raise RenderError(f"{where}: no half-width field {h!r}")
        return Interval(mean, abs(numbers_in(row[h])[0][0]), where)

    def find_line(self, file: str, start: str, section: str | None = None, after: str | None = None) -> str:
        """The one line of a text report starting with `start` (each `#` in it standing for a
        number, so a start need not hold a result: `"whole     # cells"`), within the section
        headed `## SECTION` when given (a report that repeats its lines per setting), or the first
        such line after the line starting with `after` (a report that repeats a line under each
        numbered entry)."""
        found, current, seen = [], None, after is None
        for r in self.rows_of(file):
            if not r or r[0][0] != "line":
                continue
            text = r[0][1].strip()
            if text.startswith("## "):
                current = text[3:].strip()
            elif not seen:
                seen = text.startswith(after or "")
            elif (text.startswith(start) or ("#" in start and masked(text).startswith(start))) and (
                section is None or (current or "").startswith(section)
            ):
                found.append(text)
                if after is not None:
                    break
        if len(found) != 1:
            where = f"{file} [{section or after or ''}] {start!r}"
            raise RenderError(f"{where}: {len(found)} lines start so; give a longer start or a section")
        return found[0]

    def line(
        self,
        file: str,
        start: str,
        section: str | None = None,
        item: int = 0,
        after: str | None = None,
        name: str | None = None,
    ) -> Value:
        """Number `item` of the line `find_line` finds; with `name`, the number written right
        after that name in the line (`ipfwd-mem 0.4355` in a line of `name value` pairs) instead
        of by position."""
        text = self.find_line(file, start, section, after)
        where = f"{file} [{section or after or ''}] {start!r}"
        if name is not None:
            m = re.search(r"(?:^|[\s,;:(])" + re.escape(name) + r"\s+(" + NUMBER + ")", text)
            if not m:
                raise RenderError(f"{where}: no number after {name!r}")
            return Value(float(m.group(1).replace("−", "-")), f"{where} {name}")
        xs, _ = numbers_in(text)
        if item >= len(xs):
            raise RenderError(f"{where}: no number {item}")
        return Value(xs[item], where)

    def data(self, file: str, path: str) -> object:
        """The value at `path` of a JSON result file: fields by name (`summary.makespan_s`),
        list items by index (`runs[0]`), every item (`runs[*]`, a list of what follows), or the
        items whose field has a text (`jobs[name=chase#0]`). A number is a value (its readings and
        filters as a cell's); a text stays a text (`| num` reads a number in it)."""
        if file not in self.json:
            p = self.base / file
            if not p.is_file():
                raise RenderError(f"{file}: no such result file under docs/results")
            self.json[file] = json.loads(p.read_text())
        return walk(self.json[file], path.replace("[", ".[").split("."), f"{file} {path}")

    def rows(self, file: str) -> list[Row]:
        return [Row(self, file, dict(r), self.key(r)) for r in self.rows_of(file)]

    def select(self, file: str, where: dict[str, str]) -> list[Row]:
        """The rows whose cells are the given texts (a text ending in `*`: starting with it);
        a field no row has fails."""
        out, rows = [], self.rows(file)
        for fld in where:
            if not any(fld in r.cells for r in rows):
                raise RenderError(f"{file}: no field {fld!r}")
        for r in rows:
            for fld, want in where.items():
                if fld not in r.cells:
                    break  # a row of another table of the report
                got = r.cells[fld].strip('"')
                if not (got.startswith(want[:-1]) if want.endswith("*") else got == want):
                    break
            else:
                out.append(r)
        if not out:
            raise RenderError(f"{file}: no row where {where}")
        return out

    def whole(self, file: str) -> str:
        """A result file's text as it is (a rendering a command writes for the docs, such as
        `cosched validate --doc`), without its final newline."""
        p = self.base / file
        if not p.is_file():
            raise RenderError(f"{file}: no such result file under docs/results")
        return p.read_text().rstrip("\n")

    def table(self, file: str, first: str, head: list[str] | None = None) -> str:
        """The rows of the table of `file` whose first column is `first` (and whose columns are
        `head`, when a report has two such tables), as Markdown table lines (the header and its
        rule included), each cell as the file writes it: a table a page shows whole, copied from
        its result file rather than typed."""
        rows = [
            r for r in self.rows_of(file) if r and r[0][0] == first and (head is None or [fld for fld, _ in r] == head)
        ]
        if not rows:
            raise RenderError(f"{file}: no table whose columns are {head or [first]!r}")
        head = [fld for fld, _ in rows[0]]
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        out += ["| " + " | ".join(v for _, v in r) + " |" for r in rows]
        return "\n".join(out)

    def ivs(self, file: str, field: str, keys: list[str] | None = None) -> list[Interval]:
        """The intervals of `field` in the rows keyed `keys` (each must exist), or in every row."""
        ks = keys if keys is not None else [r.key for r in self.rows(file)]
        return [self.iv(file, k, field) for k in ks]

    def col(self, file: str, field: str, keys: list[str] | None = None) -> list[Value]:
        """The values of `field` in the rows keyed `keys` (each must exist), or in every row."""
        if keys is None:
            return [r[field] for r in self.rows(file)]
        return [self.cell(file, k, field) for k in keys]


@dataclass
class Row:
    """A row of a result file; `row[FIELD]` is its cell, `row.iv(FIELD)` its interval."""

    results: Results
    file: str
    cells: dict[str, str]
    key: str

    def __getitem__(self, field: str) -> Value:
        if field not in self.cells:
            raise MissingField(f"{self.file} [{self.key}]: no field {field!r}")
        xs, _ = numbers_in(self.cells[field])
        if not xs:
            raise RenderError(f"{self.file} [{self.key}] {field}: no number in {self.cells[field][:80]!r}")
        return Value(xs[0], f"{self.file} [{self.key}] {field}")

    def iv(self, field: str, half: str | None = None) -> Interval:
        """The row's interval of `field` (its own cells, whatever its key): the half-width from
        the field `half` (by default `FIELD ci95`), or with `half="±"` the cell's own `±` number."""
        if field not in self.cells:
            raise MissingField(f"{self.file} [{self.key}]: no field {field!r}")
        where = f"{self.file} [{self.key}] {field}"
        xs, halves = numbers_in(self.cells[field])
        if half == "±":
            if len(xs) < 2 or not halves[1]:
                raise RenderError(f"{where}: no ± half-width after its number")
            return Interval(xs[0], xs[1], where)
        h = half or f"{field} ci95"
        if not xs or h not in self.cells or not numbers_in(self.cells[h])[0]:
            raise RenderError(f"{where}: no number, or no half-width field {h!r}")
        return Interval(xs[0], abs(numbers_in(self.cells[h])[0][0]), where)

    def text(self, field: str) -> str:
        """The cell as the file writes it (a label, or a paper's figure as the paper printed it)."""
        if field not in self.cells:
            raise MissingField(f"{self.file} [{self.key}]: no field {field!r}")
        return self.cells[field]


def ivs_of(rows: Iterable[Row], field: str, half: str | None = None) -> list[Interval]:
    """The interval of `field` in each of `rows` (`half` as in `Row.iv`)."""
    return [r.iv(field, half) for r in rows]


def count(items: Iterable[object]) -> int:
    """How many of `items` are true."""
    return sum(1 for x in items if x)


def walk(node: object, steps: list[str], where: str) -> object:
    """`Results.data`'s path, one step at a time: a JSON number becomes a `Value`."""
    if not steps or steps == [""]:
        if isinstance(node, bool) or node is None:
            return node
        if isinstance(node, (int, float)):
            return Value(float(node), where)
        return node
    step, rest = steps[0], steps[1:]
    if step == "":
        return walk(node, rest, where)
    if step.startswith("[") and step.endswith("]"):
        sel = step[1:-1]
        if not isinstance(node, list):
            raise RenderError(f"{where}: {step} of something not a list")
        if sel == "*":
            return [walk(x, rest, where) for x in node]
        if "=" in sel:
            fld, want = sel.split("=", 1)
            hits = [x for x in node if isinstance(x, dict) and str(x.get(fld)) == want]
            if len(hits) != 1:
                raise RenderError(f"{where}: {len(hits)} items with {fld} = {want!r}")
            return walk(hits[0], rest, where)
        if not sel.isdigit() or int(sel) >= len(node):
            raise RenderError(f"{where}: no item {sel}")
        return walk(node[int(sel)], rest, where)
    if not isinstance(node, dict) or step not in node:
        raise MissingField(f"{where}: no field {step!r}")
    return walk(node[step], rest, where)


def num(text: object, item: int = 0) -> Value:
    """Number `item` of a text (`"7.8628 ± 1.9072 (95% CI, n=3)" | num` is 7.8628)."""
    xs, _ = numbers_in(str(text))
    if item >= len(xs):
        raise RenderError(f"no number {item} in {str(text)[:80]!r}")
    return Value(xs[item], str(text)[:40])
