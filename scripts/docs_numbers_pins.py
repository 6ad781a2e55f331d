"""Where a number of the docs is read: a pin (file, row, field, which number of the cell, reading)
into the result files under docs/results, the cells that print as a number, and the number as
the page prints it from new values (scripts/docs_numbers.py's machinery)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from docs_numbers_files import Files, rounds_to, words_of
from docs_numbers_tokens import HALF_WIDTH, LO_HI, READINGS, Token, num


class Where(Protocol):
    """What names a number on its page: the cell's text and column."""

    text: str
    column: str


@dataclass(frozen=True)
class Pin:
    """Where a number is read: file (under docs/results), row (0-based), field, which number of
    the cell, reading; for a mean, where its half-width is (`±`: the cell's next number, a field
    name, or `lo,hi` fields); for a range, its upper end (a field of the row, or `row N`)."""

    file: str
    row: int
    field: str
    item: int
    reading: str
    half: str = ""
    to: str = ""
    # What names the row (its first cell; a report line with its numbers masked), so a pin follows
    # its row when a rerun inserts rows above it.
    key: str = ""


def read(pin: Pin, files: Files) -> list[float] | None:
    """The values a pin reads, as the doc prints them (reading applied): one, or two for a mean
    with its half-width or a range; None when the cell is gone."""
    r = files.locate(pin.file, pin.row, pin.key, pin.field)
    if r is None:
        return None
    rows = files.rows[pin.file]
    cells = {f: (xs, halves) for f, xs, halves in files.cells(pin.file, r)}
    if pin.field not in cells or pin.item >= len(cells[pin.field][0]):
        return None
    scale, shift = READINGS[pin.reading]
    a = scale * cells[pin.field][0][pin.item] + shift
    if pin.half:
        if pin.half == "±":
            xs, halves = cells[pin.field]
            if pin.item + 1 >= len(xs) or not halves[pin.item + 1]:
                return None
            return [a, abs(scale) * xs[pin.item + 1]]
        if pin.half.startswith("lo:"):
            lo, hi = pin.half[3:].split("|hi:", 1)
            if lo not in cells or hi not in cells or not cells[lo][0] or not cells[hi][0]:
                return None
            return [a, abs(scale) * (cells[hi][0][0] - cells[lo][0][0]) / 2]
        if pin.half not in cells or not cells[pin.half][0]:
            return None
        return [a, abs(scale) * cells[pin.half][0][0]]
    if pin.to == "@rows":
        return [a, float(len(rows))]
    if pin.to == "@item":  # a cell that holds both: `8/10`
        xs = cells[pin.field][0]
        return [a, xs[pin.item + 1]] if pin.item + 1 < len(xs) else None
    if pin.to == "@sum":  # a cell of counts whose sum is the total: `4 / 9 / 0` of 13
        return [a, sum(cells[pin.field][0])]
    if pin.to:
        if pin.to.startswith("@row "):
            r2 = int(pin.to[5:]) - 1
            if r2 >= len(rows):
                return None
            other = {f: xs for f, xs, _ in files.cells(pin.file, r2)}
            if pin.field not in other or pin.item >= len(other[pin.field]):
                return None
            return [a, scale * other[pin.field][pin.item] + shift]
        if pin.to not in cells or not cells[pin.to][0]:
            return None
        return [a, scale * cells[pin.to][0][0] + shift]
    return [a]


def near_text(c: Where, found: list[tuple[int, Token]], ordinal: int) -> str:
    """The words around number `ordinal` of cell `c` that name it: back to the previous number (at
    most 40 characters), on to the next (at most 25: "3 paper-range mixes"), and its column."""
    offset, tok = found[ordinal]
    prev = found[ordinal - 1][0] + len(found[ordinal - 1][1].text) if ordinal else 0
    nxt = found[ordinal + 1][0] if ordinal + 1 < len(found) else len(c.text)
    end = offset + len(tok.text)
    return f"{c.text[max(prev, offset - 40) : offset]} {c.text[end : min(nxt, end + 25)]} {c.column}"


def anchored(pin: Pin, near: str, strict: bool = False, files: Files | None = None, around: str = "") -> bool:
    """Whether the words around the number (its sentence, its row's claim, its column) name its
    cell: share a word with its row key, field or file (a number pinned to a cell it merely
    rounds to shares none and fails the check; the section's named files are the other guard,
    `Cell.names`). `strict` (a count, and a number of a page read whole): the sentence must
    name a word that tells the cell's row from the file's other rows (`Files.distinct`), where
    the row has one, and the paragraph (`around`) its field or file."""
    said = stems(near)
    if not strict:
        return bool(said & stems(f"{pin.key or ''} {pin.field} {Path(pin.file).stem}"))
    if pin.field == "line":  # a report's line: its own words name it (two, or its only one)
        own = stems(pin.key or "")
        if not own:  # a line named by a short word only (`xz`): the sentence says that word
            first = re.findall(r"[a-z0-9]+", (pin.key or "").lower())[:1]
            return bool(first) and re.search(rf"(?<![\w-]){first[0]}(?![\w-])", near.lower()) is not None
        return len(own & said) >= min(2, len(own))
    row = (files.distinct(pin.file, pin.row, stems) if files else stems(pin.key or "")) - GENERIC_ROWS
    named = said | stems(around)
    # A row its number alone tells apart (`mix 11`): the sentence names that number.
    if (
        not row
        and re.fullmatch(r"\d+", (pin.key or "").strip('"'))
        and not re.search(rf"(?<![\w.]){pin.key}(?![\w.]\d?)", near.replace(",", ""))
    ):
        return False
    return (not row or bool(row & said)) and bool(named & stems(f"{pin.field} {Path(pin.file).stem}"))


# Fields of the result files whose numbers are not results: a recorded machine preset and the
# prose of a check point.
NOT_RESULTS = re.compile(r"(^|\.)(preset|sources?|known_gap|missing_mechanism|description)(\.|$)")

# Row keys that name no row of their own: a table's summary row.
GENERIC_ROWS = {"geomean", "mean", "all", "total", "average", "summary"}


# Words too common in the docs' columns and the results' fields to tie a number to a cell.
COMMON = {"ours", "mean", "seeds", "seed", "line", "paragraph", "the", "and", "with", "over", "per", "from"}


def stems(text: str) -> set[str]:
    """The words of `text` split at every non-letter (`perf-fair` and `Perf&Fair` both give perf
    and fair), lower case, at least three letters, common column words left out."""
    words = {w for w in re.findall(r"[a-z]{3,}", text.lower()) if w not in COMMON}
    # A plural names what its singular does (`programs`, `6-program mix`).
    words = {w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words}
    return {ALIASES.get(w, w) for w in words}


# Words the pages and the result files spell differently for the same thing: the kernel's fair
# class is `linux` on the real machine and the `cfs` model in the simulator's files.
ALIASES = {"linux": "cfs"}


def reads(tok: Token, pin: Pin, files: Files) -> bool:
    """Whether the pinned cell still prints as the number."""
    got = read(pin, files)
    if got is None:
        return False
    both = tok.kind in ("pm", "range") or (tok.kind == "of" and bool(pin.to))
    want = tok.values if both else tok.values[:1]
    return len(got) == len(want) and all(rounds_to(g, v, d) for g, (v, d) in zip(got, want))


def candidates(tok: Token, name: str, r: int, files: Files) -> list[Pin]:
    """Every pin of row `r` of `name` that prints as the number, in every reading."""
    cells = files.cells(name, r)
    (a, da) = tok.values[0]
    out = []
    for reading, (scale, shift) in READINGS.items():
        for f, xs, halves in cells:
            # A machine description recorded beside a run, and a point's prose (its source, its
            # gap), hold settings and quoted figures, not the run's results.
            if NOT_RESULTS.search(f):
                continue
            # A half-width is not a value of its own; an interval's end is, printed alone ([lo, hi]).
            if tok.kind != "of" and (
                (HALF_WIDTH.search(f) and not any(halves)) or (tok.kind == "pm" and LO_HI.search(f))
            ):
                continue
            for item in range(len(xs)):
                if halves[item] or not rounds_to(scale * xs[item] + shift, a, da):
                    continue
                base = Pin(name, r, f, item, reading, key=files.key(name, r))
                if tok.kind == "one":
                    out.append(base)
                    continue
                if tok.kind == "of":
                    # A count of a total: the count a cell's first number, the total the same
                    # cell's next (`8/10`) or its sum (`4 / 9 / 0` of 13), a cell of the same
                    # row, or the file's row count; the count whole, its row named by words.
                    whole = xs[item] == int(xs[item])
                    first = item == 0 or f == "line"  # a report line holds its counts anywhere
                    # Not the row's own name (`spec-mix8 on …` is no count of 8).
                    first = first and (f == "line" or f != files.rows[name][r][0][0])
                    if reading == "value" and first and whole and stems(files.key(name, r)):
                        totals = ["@item"] + (["@sum"] if "/" in f else [])
                        totals += [g for g, ys, _ in cells if g != f and ys] + ["@rows"]
                        out += [p for g in totals if reads(tok, p := replace(base, to=g), files)]
                    continue
                if tok.kind == "pm":
                    stem = re.sub(r"[._ ]?mean$", "", f)
                    options = ["±"] if item + 1 < len(xs) and halves[item + 1] else []
                    options += [
                        g for g, _, _ in cells if g != f and g.startswith(stem) and HALF_WIDTH.search(g[len(stem) :])
                    ]
                    # A file of one value column may head its half-width just `ci95`.
                    options += [g for g, _, _ in cells if g != f and re.fullmatch(r"ci95|half[-_ ]width", g)]
                    los = [g for g, _, _ in cells if g.startswith(stem) and re.search(r"(lo|low)$", g)]
                    his = [g for g, _, _ in cells if g.startswith(stem) and re.search(r"(hi|high)$", g)]
                    options += [f"lo:{lo}|hi:{hi}" for lo in los for hi in his]
                    out += [p for h in options if reads(tok, p := replace(base, half=h), files)]
                else:
                    out += [p for g, _, _ in cells if g != f and reads(tok, p := replace(base, to=g), files)]
    return out


def find(
    tok: Token,
    names: list[str],
    files: Files,
    near: str,
    context: str,
    used: set[str],
    ok: Callable[[Pin], bool] = lambda _: True,
) -> Pin | None:
    """The best cell for a number: the field named by the words around it (`Perf +1.6`), a file
    the line's other numbers read (`used`), the row naming most of the words around it and then
    of the cell, a direct reading before a percentage or a negation, the first file and row."""
    near_words, words = words_of(near), words_of(context)
    order = {r: i for i, r in enumerate(READINGS)}
    best: tuple[tuple[int, ...], Pin] | None = None
    for name in names:
        for r in range(len(files.rows[name])):
            row_words = files.row_words(name, r)
            for p in candidates(tok, name, r, files):
                if not ok(p):
                    continue
                k = (
                    -len(near_words & words_of(p.field)),
                    -(name in used),
                    -name.endswith((".csv", ".json")),
                    -len(near_words & row_words),
                    -len(words & row_words),
                    order[p.reading],
                )
                if best is None or k < best[0]:
                    best = (k, p)
    if best is None and tok.kind == "range":
        return find_range(tok, names, files, ok)
    return best[1] if best else None


def find_range(tok: Token, names: list[str], files: Files, ok: Callable[[Pin], bool]) -> Pin | None:
    """A range printed over rows (`0.80-0.97`: the lowest and the highest of a column)."""
    lo = Token(tok.parts[0], (tok.parts[0],), "one")
    for name in names:
        for r in range(len(files.rows[name])):
            for p in candidates(lo, name, r, files):
                for r2 in range(len(files.rows[name])):
                    q = replace(p, to=f"@row {r2 + 1}")
                    if r2 != r and reads(tok, q, files) and ok(q):
                        return q
    return None


def printed(values: list[float], tok: Token) -> str:
    """The number as the doc prints it, from new values, in the token's style (sign, minus sign,
    thousands separators, decimals)."""

    def one(x: float, part: str, signed_ok: bool) -> str:
        _, d = num(part)
        plain = part.lstrip("+−-")
        text = f"{abs(x):,.{d}f}" if "," in plain else f"{abs(x):.{d}f}"
        if float(text.replace(",", "")) == 0:
            x = 0.0
        minus = "-" if "-" in tok.text.replace("−", "") and "−" not in tok.text else "−"
        if x < 0:
            return minus + text
        return ("+" + text) if signed_ok and part[:1] in "+−-" and part[:1] else text

    if tok.kind == "one":
        return one(values[0], tok.parts[0], True)
    if tok.kind == "of":
        return tok.text.replace(tok.parts[0], one(values[0], tok.parts[0], False), 1)
    a, b = one(values[0], tok.parts[0], True), one(values[1], tok.parts[1], tok.kind == "range")
    sep = tok.text[len(tok.parts[0]) : len(tok.text) - len(tok.parts[1])]
    return f"{a}{sep}{b}"
