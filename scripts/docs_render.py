"""Pages rendered from their result cells: each page of docs/ that has a template in docs/src/
(`NAME.md.j2`, Jinja2) is rendered into docs/NAME.md, so every number, interval, count and
verdict word of it is an expression over a result file under docs/results/, never a number typed
into prose and matched to a cell afterwards.

The expressions (globals of every template):

    cell(FILE, ROW, FIELD, item=0)    one number of a result cell: FILE under docs/results/, ROW
                                      the row's key (its first cell; a report line's start; a
                                      list for its first cells: `["rda-blas1", "rda-strict"]`;
                                      a report line also by its text with each number as `#`;
                                      `"*"` for the one row of a single-row file),
                                      FIELD the column (a CSV header, a dotted JSON field, a
                                      report table's header; `line` for a report line); `item`:
                                      which number of a cell that holds several (`1 / 8 / 4`)
    total(FILE, ROW, FIELD)           the sum of a cell's numbers (`4 / 9 / 0`: 13)
    iv(FILE, ROW, FIELD, half=...)    a mean and its 95% half-width: by default the field
                                      `FIELD ci95` of the same row; `half="±"` the cell's next
                                      number; `half="lo|hi"` half the distance of two fields
    line(FILE, START, section=S, item=0)   number `item` of a text report's line starting with
                                      START, within its `## S` section when given
    rows(FILE)                        every row of a file, each `row[FIELD]` a cell
    select(FILE, {FIELD: TEXT, ...})  the rows whose cells are those texts (`TEXT*`: a start)
    ivs_of(ROWS, FIELD)               the interval of FIELD in each of ROWS
    col(FILE, FIELD, [ROW, ...])      the field's values in those rows (all rows without a list);
                                      `| map(attribute="neg") | min` and the like summarise them
    ivs(FILE, FIELD, [ROW, ...])      the field's intervals in those rows (all rows without a list)
    worst(INTERVALS)                  the interval whose mean is farthest from 0
    count(ITEMS)                      how many items are true
    claim(INTERVAL, PAPER)            a claims table's verdict on a signed figure (below)

Each value has readings (`.neg`, `.pct` ×100, `.change` (x − 1) × 100, `.saving` (1 − x) × 100)
and filters that print it: `f(P)` a number at P decimals with its true sign (a negative cell that
rounds to zero prints −0.00), `f(P, sign=True)` with `+` before a positive one, `pm(P)` a mean
±half-width, `paired(P)` a paired difference (signed, "(no difference)" after it exactly when its
interval holds 0), `nd` (" (no difference)" after an interval exactly when it holds 0); and the verdict words of docs/index.md's one rule, from the unrounded cell:
`verdict` ("no difference" when the interval holds 0, else "a difference"), `direction(PAPER)`
("reproduced in direction", "reversed" or "no difference" against the paper's sign, `+` or `−`),
`claim(iv, PAPER)` (the same against the paper's figure, with "direction and size" when the
figure lies inside the interval, else "larger here" or "smaller here").

A missing file, row or field, or a row key that names two rows, fails the render naming the
template and the expression's arguments.

    python3 scripts/docs_render.py            # render every template into its page
    python3 scripts/docs_render.py --check    # fail when a rendered page differs from docs/NAME.md
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import jinja2

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_numbers_files import NUMBER_IN_CELL, numbers_in, rows_of

ROOT = Path(__file__).resolve().parent.parent
SOURCES = "docs/src"
MINUS = "−"


class RenderError(Exception):
    """An expression that names a file, row or field that does not exist (or two rows)."""


class MissingField(RenderError, KeyError):
    """A row's field that does not exist (a KeyError too, so Jinja's `row.key` finds the
    attribute when no field is called `key`)."""

    def __str__(self) -> str:
        return str(self.args[0])


def number(x: float, prec: int, sign: bool = False) -> str:
    """`x` at `prec` decimals with its true sign: the pages' minus (U+2212), a negative that
    rounds to zero kept negative (−0.00), `+` before a non-negative one when `sign`, and
    thousands grouped as the pages write them (262,144)."""
    # Rounded half up from the number as written (a cell that reads 3.25 prints 3.3 at one
    # decimal, as a reader rounds it), not from its binary neighbour.
    q = Decimal(repr(abs(x))).quantize(Decimal(1).scaleb(-prec), rounding=ROUND_HALF_UP)
    text = f"{q:,.{prec}f}"
    if x < 0:
        return MINUS + text
    return ("+" if sign else "") + text


@dataclass(frozen=True)
class Value:
    """One number of a result cell, with where it was read."""

    x: float
    where: str

    @property
    def neg(self) -> Value:
        return Value(-self.x, self.where)

    @property
    def pct(self) -> Value:
        return Value(100 * self.x, self.where)

    @property
    def change(self) -> Value:
        return Value(100 * (self.x - 1), self.where)

    @property
    def saving(self) -> Value:
        return Value(100 * (1 - self.x), self.where)

    def __float__(self) -> float:
        return self.x

    def __lt__(self, other: object) -> bool:
        return self.x < float(other)  # type: ignore[arg-type]

    def __gt__(self, other: object) -> bool:
        return self.x > float(other)  # type: ignore[arg-type]

    def __str__(self) -> str:
        raise RenderError(f"{self.where}: printed without a format (use | f(P))")


@dataclass(frozen=True)
class Interval:
    """A mean and its 95% half-width as the cells hold them (unrounded)."""

    mean: float
    half: float
    where: str

    @property
    def neg(self) -> Interval:
        return Interval(-self.mean, self.half, self.where)

    @property
    def pct(self) -> Interval:
        return Interval(100 * self.mean, 100 * self.half, self.where)

    @property
    def change(self) -> Interval:
        return Interval(100 * (self.mean - 1), 100 * self.half, self.where)

    @property
    def saving(self) -> Interval:
        return Interval(100 * (1 - self.mean), 100 * self.half, self.where)

    @property
    def lo(self) -> float:
        return self.mean - self.half

    @property
    def hi(self) -> float:
        return self.mean + self.half

    @property
    def holds_zero(self) -> bool:
        """The rule of docs/index.md: "no difference" iff the interval holds 0."""
        return abs(self.mean) <= self.half

    def below(self, other: Interval) -> bool:
        """Unpaired intervals apart, this one lower."""
        return self.hi < other.lo

    def above(self, other: Interval) -> bool:
        return other.hi < self.lo

    def above_all(self, others: Iterable[Interval]) -> bool:
        """Above every one of `others`, each interval apart (unpaired)."""
        return all(self.above(o) for o in others)

    def __str__(self) -> str:
        raise RenderError(f"{self.where}: printed without a format (use | pm(P))")


def f(v: Value | Interval | float, prec: int, sign: bool = False) -> str:
    """A value (or an interval's mean) at `prec` decimals with its true sign."""
    x = v.mean if isinstance(v, Interval) else float(v)
    return number(x, prec, sign)


def pm(v: Interval, prec: int, sign: bool = False) -> str:
    """A mean ±half-width, each at `prec` decimals."""
    if not isinstance(v, Interval):
        raise RenderError(f"pm: {v!r} is not an interval")
    return f"{number(v.mean, prec, sign)} ±{number(v.half, prec)}"


def paired(v: Interval, prec: int) -> str:
    """A paired difference as a paired block prints it: signed mean ±half-width, and "(no
    difference)" after it exactly when the interval holds 0 (docs/index.md's rule)."""
    return pm(v, prec, sign=True) + (" (no difference)" if v.holds_zero else "")


def nd(v: Interval) -> str:
    """ " (no difference)" after an interval exactly when it holds 0, else nothing."""
    return " (no difference)" if v.holds_zero else ""


def verdict(v: Interval) -> str:
    """The word "no difference" when the interval holds 0, else "a difference"."""
    return "no difference" if v.holds_zero else "a difference"


def direction(v: Interval, paper: str) -> str:
    """A claim's verdict against the paper's sign (`+` or `−`): "reproduced in direction" when
    the interval excludes 0 on the paper's side, "reversed" on the other, else "no difference"."""
    if paper not in ("+", "-", MINUS):
        raise RenderError(f"direction: the paper's sign is + or −, not {paper!r}")
    if v.holds_zero:
        return "no difference"
    same = (v.mean > 0) == (paper == "+")
    return "reproduced in direction" if same else "reversed"


def claim(v: Interval, paper: float) -> str:
    """A claims table's verdict on a signed figure, by docs/index.md's rule from the unrounded
    interval: "no difference" when it holds 0, "reversed" when it excludes 0 on the other side of
    the paper's figure, and on the paper's side "reproduced (direction and size)" when the paper's
    figure lies inside it, else "direction; larger here" or "direction; smaller here"."""
    if v.holds_zero:
        return "no difference"
    if (v.mean > 0) != (paper > 0):
        return "reversed"
    lo, hi = sorted((abs(v.lo), abs(v.hi)))
    if lo <= abs(paper) <= hi:
        return "reproduced (direction and size)"
    return "direction; larger here" if abs(paper) < lo else "direction; smaller here"


def worst(vs: Iterable[Interval]) -> Interval:
    """The interval whose mean is farthest from 0."""
    return max(vs, key=lambda v: abs(v.mean))


class Results:
    """The result files under docs/results, parsed once."""

    def __init__(self, root: Path) -> None:
        self.base = root / "docs" / "results"
        self.files: dict[str, list[list[tuple[str, str]]]] = {}

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

    def row(self, file: str, key: str | list[str], field: str) -> dict[str, str]:
        """The one row of `file` keyed `key` that has `field`: its first cell (a report line:
        starting with it), or its first cells when `key` is a list (`["rda-raytrace",
        "rda-compromise"]` for a row of workload and policy)."""
        found = []
        for r in self.rows_of(file):
            if key == "*":
                hit = True  # the file's one row (a study written as a single row)
            elif isinstance(key, list):
                hit = [v.strip('"') for _, v in r[: len(key)]] == key
            else:
                k = self.key(r)
                line = bool(r and r[0][0] == "line")
                masked = NUMBER_IN_CELL.sub("#", r[0][1]).strip() if line else ""
                hit = k == key or (line and (k.startswith(key) or masked == key.strip()))
            if hit and any(fl == field for fl, _ in r):
                found.append(dict(r))
        if not found:
            raise RenderError(f"{file}: no row {key!r} with a field {field!r}")
        if len(found) > 1:
            raise RenderError(f"{file}: {len(found)} rows {key!r} with a field {field!r}; give a longer key")
        return found[0]

    def cell(self, file: str, key: str | list[str], field: str, item: int = 0) -> Value:
        text = self.row(file, key, field)[field]
        xs, _ = numbers_in(text)
        where = f"{file} {key} {field}"
        if item >= len(xs):
            raise RenderError(f"{where}: no number {item} in {text[:80]!r}")
        return Value(xs[item], where)

    def total(self, file: str, key: str | list[str], field: str) -> Value:
        """The sum of the numbers of a cell that holds several (`4 / 9 / 0`: 13)."""
        text = self.row(file, key, field)[field]
        return Value(sum(numbers_in(text)[0]), f"{file} {key} {field} (sum)")

    def iv(self, file: str, key: str | list[str], field: str, half: str | None = None, item: int = 0) -> Interval:
        row = self.row(file, key, field)
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

    def line(self, file: str, start: str, section: str | None = None, item: int = 0) -> Value:
        """Number `item` of the one line of a text report starting with `start`, within the
        section headed `## SECTION` when given (a report that repeats its lines per setting)."""
        found, current = [], None
        for r in self.rows_of(file):
            if not r or r[0][0] != "line":
                continue
            text = r[0][1].strip()
            if text.startswith("## "):
                current = text[3:].strip()
            elif text.startswith(start) and (section is None or current == section):
                found.append(text)
        where = f"{file} [{section or ''}] {start!r}"
        if len(found) != 1:
            raise RenderError(f"{where}: {len(found)} lines start so; give a longer start or a section")
        xs, _ = numbers_in(found[0])
        if item >= len(xs):
            raise RenderError(f"{where}: no number {item}")
        return Value(xs[item], where)

    def rows(self, file: str) -> list[Row]:
        return [Row(self, file, dict(r), self.key(r)) for r in self.rows_of(file)]

    def select(self, file: str, where: dict[str, str]) -> list[Row]:
        """The rows whose cells are the given texts (a text ending in `*`: starting with it);
        a field no row has fails."""
        out = []
        for r in self.rows(file):
            for fld, want in where.items():
                if fld not in r.cells:
                    raise RenderError(f"{file}: no field {fld!r}")
                got = r.cells[fld].strip('"')
                if not (got.startswith(want[:-1]) if want.endswith("*") else got == want):
                    break
            else:
                out.append(r)
        if not out:
            raise RenderError(f"{file}: no row where {where}")
        return out

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
        """The row's interval of `field` (its own cells, whatever its key)."""
        if field not in self.cells:
            raise MissingField(f"{self.file} [{self.key}]: no field {field!r}")
        where = f"{self.file} [{self.key}] {field}"
        xs, _ = numbers_in(self.cells[field])
        h = half or f"{field} ci95"
        if not xs or h not in self.cells or not numbers_in(self.cells[h])[0]:
            raise RenderError(f"{where}: no number, or no half-width field {h!r}")
        return Interval(xs[0], abs(numbers_in(self.cells[h])[0][0]), where)

    def text(self, field: str) -> str:
        """The cell as the file writes it (a label, or a paper's figure as the paper printed it)."""
        if field not in self.cells:
            raise MissingField(f"{self.file} [{self.key}]: no field {field!r}")
        return self.cells[field]


def ivs_of(rows: Iterable[Row], field: str) -> list[Interval]:
    """The interval of `field` in each of `rows`."""
    return [r.iv(field) for r in rows]


def count(items: Iterable[object]) -> int:
    """How many of `items` are true."""
    return sum(1 for x in items if x)


def environment(root: Path) -> jinja2.Environment:
    """The Jinja2 environment every template renders in: strict (an unknown name fails), the
    result files of `root`, the filters and rules above."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(root / SOURCES)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
        extensions=["jinja2.ext.do"],
    )
    res = Results(root)
    env.globals.update(
        cell=res.cell,
        total=res.total,
        iv=res.iv,
        ivs=res.ivs,
        line=res.line,
        rows=res.rows,
        select=res.select,
        ivs_of=ivs_of,
        col=res.col,
        count=count,
        worst=worst,
        claim=claim,
    )
    env.filters.update(f=f, pm=pm, paired=paired, nd=nd, verdict=verdict, direction=direction)
    return env


def templates(root: Path) -> list[Path]:
    return sorted((root / SOURCES).glob("*.md.j2"))


def page_of(root: Path, template: Path) -> Path:
    return root / "docs" / template.name.removesuffix(".j2")


HEADER = "<!-- Rendered from docs/src/{name}.j2 by scripts/docs_render.py: edit the template, not this page. -->\n"


def render(root: Path, template: Path) -> str:
    """The page `template` renders into, with the line that says where it comes from."""
    env = environment(root)
    try:
        body = env.get_template(template.name).render()
    except RenderError as e:
        raise RenderError(f"{template.relative_to(root)}: {e}") from None
    except jinja2.TemplateError as e:
        line = getattr(e, "lineno", None)
        at = f":{line}" if line else ""
        raise RenderError(f"{template.relative_to(root)}{at}: {e}") from None
    return HEADER.format(name=page_of(root, template).name) + body


EXPRESSION = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.DOTALL)


def masked(text: str) -> str:
    """The template's own text: every expression, statement and comment blanked (newlines
    kept, so line numbers stay the template's)."""

    # An expression stands as `+v` (a signed value, no digits), so the declared forms that read
    # a setting by the value after it ("25% +1.2") still see one; a statement leaves blanks.
    def blank(m: re.Match[str]) -> str:
        lines = "\n" * m.group(0).count("\n")
        return ("+v" if m.group(0).startswith("{{") else " ") + lines

    return EXPRESSION.sub(blank, text)


def bare_numbers(root: Path, template: Path) -> list[str]:
    """The numbers typed into a template's text that are none of the declared kinds: a quotation
    of a paper (in quotes), a declared constant or never-result form (scripts/docs_numbers_constants.py,
    scripts/docs_numbers_forms.py: dates, list numbers, a seed's number...), a reference (a
    section, figure, table, equation, point), a run's size named by its unit, a name in
    backticks, a paper's column of a table. Read by the same rules as every page read whole,
    on the template with its expressions blanked: what is left is a number typed by hand."""
    from docs_numbers_pages import cells
    from docs_numbers_tokens import tokens

    name = template.name.removesuffix(".md.j2")
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        (t / "docs").mkdir()
        (t / "README.md").write_text("")
        (t / "docs" / f"{name}.md").write_text(masked(template.read_text()))
        out = []
        for c in cells(t):
            for _, tok in tokens(c.text, c.quoted, c.whole):
                out.append(
                    f"{template.relative_to(root)}:{c.line}: {tok.text} is typed into the text: "
                    "render it from its cell, or write it as a declared kind (a quotation, a constant, a reference)"
                )
        return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="fail when a rendered page differs from the committed one")
    ap.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    root: Path = a.root
    bad = 0
    for t in templates(root):
        page = page_of(root, t)
        try:
            text = render(root, t)
        except RenderError as e:
            print(f"docs-render: {e}", file=sys.stderr)
            bad += 1
            continue
        old = page.read_text() if page.exists() else ""
        for problem in bare_numbers(root, t):
            print(f"docs-render: {problem}", file=sys.stderr)
            bad += 1
        if a.check:
            if text != old:
                diff = difflib.unified_diff(
                    old.splitlines(), text.splitlines(), str(page), "rendered", lineterm="", n=0
                )
                print(f"docs-render: {page.relative_to(root)} differs from its rendering:", file=sys.stderr)
                for line in list(diff)[:40]:
                    print(f"  {line}", file=sys.stderr)
                bad += 1
        elif text != old:
            page.write_text(text)
            print(f"docs-render: wrote {page.relative_to(root)}", file=sys.stderr)
    if bad:
        return 1
    n = len(templates(root))
    print(f"docs-render: {n} page{'s' if n != 1 else ''} {'match their' if a.check else 'rendered from'} templates")
    return 0


if __name__ == "__main__":
    sys.exit(main())
