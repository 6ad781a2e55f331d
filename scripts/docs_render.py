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
    line(FILE, START, section=S, item=0, after=A, name=N)
                                      number `item` of a text report's line starting with
                                      START, within its `## S` section when given, or the first
                                      such line after the line starting with A; with `name`, the
                                      number written right after N (`ipfwd-mem 0.4355`)
    line_text(FILE, START, section=S, after=A)   that line's words (`.split("Missed: ")[1]`)
    rows(FILE)                        every row of a file, each `row[FIELD]` a cell
    data(FILE, PATH)                  a JSON result's value at PATH (`summary.makespan_s`,
                                      `runs[*].metrics.unfairness`, `jobs[name=chase#0].cpu_s`);
                                      `| num(i)` reads number i of a text
    whole(FILE)                       a result file's text as it is (a command's own rendering for
                                      the docs, such as `cosched validate --doc`'s)
    table(FILE, FIRST, HEAD)          the table of FILE whose first column is FIRST (and whose
                                      columns are the list HEAD, when given), copied whole as
                                      Markdown (a table a page shows as the file has it)
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
interval holds 0), `nd` (" (no difference)" after an interval exactly when it holds 0), `span(P, dash)` (the
least and greatest of a list, `0.22-0.32`, one number when both print the same); and the verdict words of docs/index.md's one rule, from the unrounded cell:
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
from pathlib import Path

import jinja2

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_render_results import Results, count, ivs_of, num
from docs_render_values import RenderError, claim, direction, f, nd, paired, pm, span, verdict, worst

__all__ = ["RenderError", "main", "render"]

ROOT = Path(__file__).resolve().parent.parent
SOURCES = "docs/src"


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
        line_text=res.find_line,
        rows=res.rows,
        select=res.select,
        table=res.table,
        whole=res.whole,
        data=res.data,
        ivs_of=ivs_of,
        col=res.col,
        count=count,
        worst=worst,
        claim=claim,
    )
    env.filters.update(num=num, span=span, f=f, pm=pm, paired=paired, nd=nd, verdict=verdict, direction=direction)
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
