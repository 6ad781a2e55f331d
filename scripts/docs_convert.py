"""Seed a page's template from its pins (development tooling, for the conversion of the docs to
rendered pages; see scripts/docs_render.py): every number of docs/PAGE.md that
docs/results/numbers.csv pins to a cell becomes an expression naming that cell, and the template
is written to docs/src/PAGE.md.j2. The pins are where coincidences live (a number that merely
rounds to some cell), so every expression written here is then read against its sentence before
the template is committed.

    python3 scripts/docs_convert.py efs     # writes docs/src/efs.md.j2 (refuses to overwrite one)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_numbers import key, read_pins
from docs_numbers_files import rows_of
from docs_numbers_pages import cells
from docs_numbers_pins import Pin
from docs_numbers_tokens import Token, num, tokens

ROOT = Path(__file__).resolve().parent.parent

READING = {
    "value": "",
    "negated": ".neg",
    "percent": ".pct",
    "negated percent": ".pct.neg",
    "change": ".change",
    "saving": ".saving",
}


def q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def row_key(pin: Pin) -> str:
    """The row's key as the renderer matches it: a report line by its start before its first
    number; a row whose first cell names several rows by its first two cells."""
    k = pin.key
    rows = rows_of(ROOT / "docs" / "results" / pin.file)
    if pin.field == "line" and pin.row < len(rows) and rows[pin.row][0][0] == "line":
        # The shortest start of the pinned line, word by word, that no other line shares.
        lines = [r[0][1].strip() for r in rows if r and r[0][0] == "line"]
        words = rows[pin.row][0][1].strip().split(" ")
        for n in range(1, len(words) + 1):
            start = " ".join(words[:n])
            if sum(x.startswith(start) for x in lines) == 1:
                return q(start)
        return q(" ".join(words))
    if pin.row < len(rows) and len(rows[pin.row]) > 1:
        # As many of the row's first cells as tell it from every other row.
        row = [v for _, v in rows[pin.row]]
        for n in range(1, len(row)):
            if sum(1 for r in rows if [v for _, v in r[:n]] == row[:n]) == 1:
                break
        if n > 1:
            return "[" + ", ".join(q(v) for v in row[:n]) + "]"
    return q(k.strip('"'))


def base(pin: Pin, item: int | None = None) -> str:
    i = pin.item if item is None else item
    extra = f", item={i}" if i else ""
    return f"{q(pin.file)}, {row_key(pin)}, {q(pin.field)}{extra}"


def expression(tok: Token, pin: Pin) -> str:
    """The template text that prints `tok` from `pin`'s cell."""
    reading = READING[pin.reading]
    parts = tok.parts
    prec = num(parts[0])[1]
    sign = ", sign=True" if parts[0].startswith("+") else ""
    if tok.kind == "pm":
        half = pin.half
        arg = ""
        if half == "±":
            arg = ', half="±"'
        elif half.startswith("lo:"):
            lo, hi = half[3:].split("|hi:", 1)
            arg = f", half={q(lo + '|' + hi)}"
        elif half and half != f"{pin.field} ci95":
            arg = f", half={q(half)}"
        p = max(prec, num(parts[1])[1])
        sep = tok.text[len(parts[0]) : tok.text.index("±")]
        if sep.strip() == "%":
            return f"{{{{ iv({base(pin)}{arg}){reading} | f({p}{sign}) }}}}%{sep.replace('%', '', 1)}±{{{{ iv({base(pin)}{arg}){reading}.half | f({p}) }}}}"
        return f"{{{{ iv({base(pin)}{arg}){reading} | pm({p}{sign}) }}}}"
    one = f"{{{{ cell({base(pin)}){reading} | f({prec}{sign}) }}}}"
    if tok.kind == "one":
        return one
    dash = tok.text[len(parts[0]) : len(tok.text) - len(parts[1])]
    p2 = num(parts[1])[1]
    if tok.kind == "range":
        to = pin.to
        if to.startswith("@row "):
            return f"{one}{dash}{{{{ TODO_ROW({q(to)}) }}}}"
        return f"{one}{dash}{{{{ cell({q(pin.file)}, {row_key(pin)}, {q(to)}){reading} | f({p2}) }}}}"
    # A count of a total.
    if pin.to == "@rows":
        total = f"{{{{ rows({q(pin.file)}) | length }}}}"
    elif pin.to == "@item":
        total = f"{{{{ cell({base(pin, pin.item + 1)}) | f(0) }}}}"
    elif pin.to == "@sum":
        total = f"{{{{ TODO_SUM({q(pin.file)}) }}}}"
    elif pin.to:
        total = f"{{{{ cell({q(pin.file)}, {row_key(pin)}, {q(pin.to)}) | f(0) }}}}"
    else:
        total = parts[1]
    return f"{one}{dash}{total}"


def convert(root: Path, page: str) -> str:
    doc = f"docs/{page}.md"
    lines = (root / doc).read_text().splitlines(keepends=True)
    pins = read_pins(root)
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for c in cells(root):
        if c.doc != doc:
            continue
        for ordinal, (off, tok) in enumerate(tokens(c.text, c.quoted, c.whole)):
            pin = pins.get(key(c, ordinal, tok))
            if pin is None:
                continue
            line = c.line - 1
            start = c.start + off
            assert lines[line][start : start + len(tok.text)] == tok.text, (doc, c.line, tok.text)
            edits.setdefault(line, []).append((start, start + len(tok.text), expression(tok, pin)))
    for line, es in edits.items():
        text = lines[line]
        for a, b, e in sorted(es, reverse=True):
            text = text[:a] + e + text[b:]
        lines[line] = text
    return "".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("page", help="the page's name under docs/ (efs for docs/efs.md)")
    a = ap.parse_args()
    out = ROOT / "docs" / "src" / f"{a.page}.md.j2"
    if out.exists() or (ROOT / "docs" / f"{a.page}.md").read_text().startswith("<!-- Rendered from"):
        print(f"docs-convert: {out} exists; not overwritten", file=sys.stderr)
        return 2
    out.parent.mkdir(exist_ok=True)
    out.write_text(convert(ROOT, a.page))
    print(f"docs-convert: wrote {out.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
