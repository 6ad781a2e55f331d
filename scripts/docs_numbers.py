"""Every number of a results table in the docs comes from a result file.

Scope: each Markdown table of the docs whose header has a `verdict` column (the "Claims checked"
tables and the runtime's rounds tables), every table or paragraph that a line
`<!-- numbers: results/DIR ... -->` right above it declares, and every number of those, in every
column but the first (it names the row: a claim, a workload, a setting) and the paper's own
(a header starting with "paper" or "claim").

A number is read with its precision (`+2.2 ±1.1` is a mean and its 95% half-width, `1.034–1.314`
an interval, `12 of 13` a count) and pinned to a cell of the doc's result files (CSV, JSON, and
the tables and lines of the reruns' reports under `docs/results/`): the cell must round to the
number as printed, directly, as a percentage (x 100), as the percentage change of a ratio
((x - 1) x 100), or any of those negated. `docs/results/numbers.csv` holds the pins (page, claim,
column, number; file, row, field, which number of the cell, reading, where the half-width or the
range's end is), which is how a reader finds the cell behind a number.

    scripts/docs-numbers            # check every number against its pinned cell
    scripts/docs-numbers --update   # rewrite every number whose pinned cell changed (after a rerun);
                                    # lists as suspects the rewritten numbers whose pinned row and
                                    # field name nothing the text around them says (read those)
    scripts/docs-numbers --write    # pin a cell for each number without one (new or edited text)
    scripts/docs-numbers --explain docs/rda.md   # where each number of a page comes from

The check fails, naming the page, line and number, when a number has no pinned cell (typed by
hand), when its pinned cell no longer rounds to it (a rerun changed the result: `--update`
regenerates the number), when a pin names a number the docs no longer have, and when a verdict
written beside an interval does not follow from it (`x ±h (no difference)` with |x| > h). Numbers
that are not results (seeds, sizes and parameters of a run, section and figure numbers, names in
backticks) are skipped by the rules in `skipped`.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path

# Run as a script (scripts/docs-numbers) or loaded by path (the tests): the reader beside it.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_numbers_files import NUMBER_IN_CELL, Files, rounds_to, words_of
from docs_numbers_tokens import HALF_WIDTH, LO_HI, NUM, READINGS, Token, num, tokens

# A page -> the folders of docs/results its verdict tables read (a marker line overrides).
FOLDERS = {
    "efs": ["efs"],
    "evt": ["evt", "evt-coverage"],
    "perf-fair": ["perf-fair", "sensitivity"],
    "rda": ["rda", "runtime", "sensitivity"],
    "slits": ["slits"],
    "runtime": ["runtime"],
    "quintet": ["quintet"],
    "optimum": ["optimum"],
}
PIN_FILE = "docs/results/numbers.csv"
PIN_HEADER = ["doc", "claim", "column", "token", "file", "row", "row key", "field", "item", "reading", "half", "to"]
MARKER = re.compile(r"<!--\s*numbers:\s*((?:results/[\w./-]+\s*)+)-->")


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


def near_text(c: Cell, found: list[tuple[int, Token]], ordinal: int) -> str:
    """The words around number `ordinal` of cell `c` that name it: back to the previous number (at
    most 40 characters), on to the next (at most 25: "3 paper-range mixes"), and its column."""
    offset, tok = found[ordinal]
    prev = found[ordinal - 1][0] + len(found[ordinal - 1][1].text) if ordinal else 0
    nxt = found[ordinal + 1][0] if ordinal + 1 < len(found) else len(c.text)
    end = offset + len(tok.text)
    return f"{c.text[max(prev, offset - 40) : offset]} {c.text[end : min(nxt, end + 25)]} {c.column}"


def anchored(pin: Pin, near: str) -> bool:
    """Whether the pinned cell's row, field or file shares a word with the words around the
    number: `--update` rewrites an unanchored number but lists it as a suspect, since a number
    pinned to a cell it merely rounded to follows that cell anywhere."""
    named = stems(f"{pin.key or ''} {pin.field} {Path(pin.file).stem}")
    return bool(stems(near) & named)


# Words too common in the docs' columns and the results' fields to tie a number to a cell.
COMMON = {"ours", "mean", "seeds", "seed", "line", "paragraph", "the", "and", "with", "over", "per", "from"}


def stems(text: str) -> set[str]:
    """The words of `text` split at every non-letter (`perf-fair` and `Perf&Fair` both give perf
    and fair), lower case, at least three letters, common column words left out."""
    return {w for w in re.findall(r"[a-z]{3,}", text.lower()) if w not in COMMON}


def reads(tok: Token, pin: Pin, files: Files) -> bool:
    """Whether the pinned cell still prints as the number."""
    got = read(pin, files)
    if got is None:
        return False
    want = tok.values if tok.kind in ("pm", "range") else tok.values[:1]
    return len(got) == len(want) and all(rounds_to(g, v, d) for g, (v, d) in zip(got, want))


def candidates(tok: Token, name: str, r: int, files: Files) -> list[Pin]:
    """Every pin of row `r` of `name` that prints as the number, in every reading."""
    cells = files.cells(name, r)
    (a, da) = tok.values[0]
    out = []
    for reading, (scale, shift) in READINGS.items():
        for f, xs, halves in cells:
            if (HALF_WIDTH.search(f) and not any(halves)) or LO_HI.search(f):  # a half-width's own field
                continue
            for item in range(len(xs)):
                if halves[item] or not rounds_to(scale * xs[item] + shift, a, da):
                    continue
                base = Pin(name, r, f, item, reading, key=files.key(name, r))
                if tok.kind in ("one", "of"):
                    out.append(base)
                    continue
                if tok.kind == "pm":
                    stem = re.sub(r"[._ ]?mean$", "", f)
                    options = ["±"] if item + 1 < len(xs) and halves[item + 1] else []
                    options += [
                        g for g, _, _ in cells if g != f and g.startswith(stem) and HALF_WIDTH.search(g[len(stem) :])
                    ]
                    los = [g for g, _, _ in cells if g.startswith(stem) and re.search(r"(lo|low)$", g)]
                    his = [g for g, _, _ in cells if g.startswith(stem) and re.search(r"(hi|high)$", g)]
                    options += [f"lo:{lo}|hi:{hi}" for lo in los for hi in his]
                    out += [p for h in options if reads(tok, p := replace(base, half=h), files)]
                else:
                    out += [p for g, _, _ in cells if g != f and reads(tok, p := replace(base, to=g), files)]
    return out


def find(tok: Token, names: list[str], files: Files, near: str, context: str, used: set[str]) -> Pin | None:
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
        return find_range(tok, names, files)
    return best[1] if best else None


def find_range(tok: Token, names: list[str], files: Files) -> Pin | None:
    """A range printed over rows (`0.80-0.97`: the lowest and the highest of a column)."""
    lo = Token(tok.parts[0], (tok.parts[0],), "one")
    for name in names:
        for r in range(len(files.rows[name])):
            for p in candidates(lo, name, r, files):
                for r2 in range(len(files.rows[name])):
                    q = replace(p, to=f"@row {r2 + 1}")
                    if r2 != r and reads(tok, q, files):
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


@dataclass
class Cell:
    """A table cell (or a declared paragraph line) whose numbers are checked."""

    doc: str
    line: int
    claim: str
    column: str
    text: str
    folders: list[str]
    start: int = 0  # where the cell's text starts in its line


def cells(root: Path) -> list[Cell]:
    """Every checked cell of the docs."""
    out = []
    for path in sorted((root / "docs").glob("*.md")) + [root / "README.md"]:
        doc = path.relative_to(root).as_posix()
        lines = path.read_text().splitlines()
        default = FOLDERS.get(path.stem, [])
        i = 0
        while i < len(lines):
            marker = MARKER.search(lines[i - 1]) if i > 0 else None
            folders = [f.removeprefix("results/") for f in marker.group(1).split()] if marker else default
            line = lines[i]
            if line.startswith("|") and i + 1 < len(lines) and set(lines[i + 1].strip()) <= set("|-: "):
                head = [c.strip().lower() for c in line.strip().strip("|").split("|")]
                checked = marker is not None or "verdict" in head
                j = i + 2
                while j < len(lines) and lines[j].startswith("|"):
                    row = [c.strip() for c in lines[j].strip().strip("|").split(" | ")]
                    pos = 0
                    for k, text in enumerate(row if checked else []):
                        pos = lines[j].find(text, pos)
                        # The first column names the row (a claim, a workload, a setting), and a
                        # paper's own column holds the paper's figures: neither is ours.
                        if k > 0 and not re.match(r"(paper|claim)", head[k] if k < len(head) else ""):
                            column = head[k] if k < len(head) else str(k)
                            out.append(Cell(doc, j + 1, row[0][:70], column, text, folders, pos))
                        pos += len(text)
                    j += 1
                i = j
                continue
            if marker and line.strip():
                j = i
                while j < len(lines) and lines[j].strip():
                    # Named by its first words (numbers masked), so lines added above keep its pins.
                    name = "paragraph: " + NUMBER_IN_CELL.sub("#", lines[i].strip())[:60]
                    out.append(Cell(doc, j + 1, name, f"line {j - i + 1}", lines[j], folders))
                    j += 1
                i = j
                continue
            i += 1
    return out


Key = tuple[str, str, str, str]


def key(c: Cell, ordinal: int, tok: Token) -> Key:
    return (c.doc, c.claim, c.column, f"{ordinal}:{tok.text}")


def read_pins(root: Path) -> dict[Key, Pin]:
    path = root / PIN_FILE
    if not path.exists():
        return {}
    pins = {}
    for r in csv.DictReader(io.StringIO(path.read_text())):
        pins[(r["doc"], r["claim"], r["column"], r["token"])] = Pin(
            r["file"], int(r["row"]) - 1, r["field"], int(r["item"]), r["reading"], r["half"], r["to"], r["row key"]
        )
    return pins


def write_pins(root: Path, pins: dict[Key, Pin]) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(PIN_HEADER)
    for k in sorted(pins):
        p = pins[k]
        w.writerow([*k, p.file, p.row + 1, p.key, p.field, p.item, p.reading, p.half, p.to])
    (root / PIN_FILE).write_text(buf.getvalue())


# A mean with its 95% half-width and the verdict written right after it.
VERDICT_AFTER = re.compile(
    rf"(?P<x>{NUM})\s*%?\s*±\s*(?P<h>\d+(?:\.\d+)?)\s*(?:%|points?|pp)?\s*\((?P<v>no difference|[^)]*excludes? (?:0|zero)[^)]*)"
)


def verdict_problems(root: Path) -> list[str]:
    """Every `x ±h (no difference)` of the docs has |x| ≤ h, and every `x ±h (… excludes 0 …)`
    has |x| > h: a verdict written beside an interval follows from it."""
    out = []
    for path in sorted((root / "docs").glob("*.md")) + [root / "README.md"]:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            for m in VERDICT_AFTER.finditer(line):
                x, _ = num(m.group("x"))
                h = float(m.group("h"))
                where = f"{path.relative_to(root)}:{n}: {m.group(0)!r}"
                if m.group("v") == "no difference" and abs(x) > h:
                    out.append(f"{where}: the interval excludes 0, so it is a difference")
                elif m.group("v") != "no difference" and abs(x) <= h:
                    out.append(f"{where}: the interval holds 0")
    return out


def run(root: Path, mode: str, explain: str | None = None) -> int:
    """Check (mode "check"), pin new numbers ("write") or rewrite changed ones ("update")."""
    pins = read_pins(root)
    files = Files(root)
    problems, kept, total = verdict_problems(root), {}, 0
    suspects: list[str] = []
    edits: dict[str, dict[int, list[tuple[int, Token, str]]]] = {}
    # Means with their intervals and ranges first: they pin their files surely, and the line's
    # single numbers then prefer those files.
    work = [
        (c, ordinal, offset, tok, found)
        for c in cells(root)
        for found in [tokens(c.text)]
        for ordinal, (offset, tok) in enumerate(found)
    ]
    work.sort(key=lambda w: w[3].kind not in ("pm", "range"))
    used: dict[tuple[str, int], set[str]] = {}
    seen: set[Key] = set()
    for c, ordinal, offset, tok, found in work:
        names = files.of(c.folders)
        total += 1
        k = key(c, ordinal, tok)
        seen.add(k)
        pin = pins.get(k)
        where = f"{c.doc}:{c.line}: {tok.text!r} ({c.column})"
        if pin is not None and reads(tok, pin, files):
            kept[k] = pin
            used.setdefault((c.doc, c.line), set()).add(pin.file)
        elif pin is not None and mode == "update" and (got := read(pin, files)) is not None:
            new = printed(got, tok)
            edits.setdefault(c.doc, {}).setdefault(c.line, []).append((c.start + offset, tok, new))
            new_tok = next((t for _, t in tokens(new)), tok)
            kept[(k[0], k[1], k[2], f"{ordinal}:{new_tok.text}")] = pin
            print(f"docs-numbers: {where} -> {new!r} ({pin.file} row {pin.row + 1})", file=sys.stderr)
            if not anchored(pin, f"{near_text(c, found, ordinal)} {c.claim}"):
                suspects.append(
                    f"{where} -> {new!r}: its pin ({pin.file}, row {pin.key!r}, {pin.field!r}) names nothing "
                    "the text around the number says; a number that only rounded to that cell when pinned "
                    "(a parameter, a reference, a count) is now wrong: check it by hand"
                )
        elif mode == "write" and (pin is None or read(pin, files) is None or not reads(tok, pin, files)):
            near = near_text(c, found, ordinal)
            line_files = used.setdefault((c.doc, c.line), set())
            new_pin = find(tok, names, files, near, f"{c.text} {c.claim}", line_files)
            if new_pin is None:
                problems.append(f"{where} is in no result file of {', '.join(c.folders) or 'no folder'}")
            else:
                kept[k] = new_pin
                line_files.add(new_pin.file)
        elif pin is None:
            problems.append(f"{where} has no pinned result cell (scripts/docs-numbers --write pins one)")
        else:
            kept[k] = pin  # unreadable: kept, and reported until the page or the pin is fixed
            got = read(pin, files)
            now = "is gone" if got is None else f"now reads {printed(got, tok)!r}"
            problems.append(
                f"{where}: its cell ({pin.file} row {pin.row + 1}, {pin.field!r}) {now}; "
                "scripts/docs-numbers --update rewrites it"
            )
        if explain and c.doc == explain and k in kept:
            p = kept[k]
            extra = f" ± {p.half}" if p.half else (f" to {p.to}" if p.to else "")
            print(
                f"{c.doc}:{c.line}  {tok.text:<22} {p.file} row {p.row + 1} [{p.field}#{p.item}{extra}] ({p.reading})"
            )
    if mode == "check":
        for k in sorted(set(pins) - seen):
            problems.append(
                f"{PIN_FILE}: the pin of {k[0]} {k[1][:40]!r} {k[3]!r} names a number the docs no longer have (--write drops it)"
            )
    for doc, lines in edits.items():
        path = root / doc
        text = path.read_text().split("\n")
        for n, changes in lines.items():
            line = text[n - 1]
            # From the right, so earlier offsets stay valid.
            for at, tok, new in sorted(changes, key=lambda t: -t[0]):
                if line[at : at + len(tok.text)] == tok.text:
                    line = line[:at] + new + line[at + len(tok.text) :]
            text[n - 1] = line
        path.write_text("\n".join(text))
    if mode != "check":
        write_pins(root, kept)
    for p in suspects:
        print(f"docs-numbers: suspect: {p}", file=sys.stderr)
    for p in problems:
        print(f"docs-numbers: {p}", file=sys.stderr)
    if not problems and mode == "check":
        print(f"docs-numbers: the {total} numbers of the docs' result tables read their pinned cells", file=sys.stderr)
    return 1 if problems else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--write", action="store_true", help="pin a result cell for each number without a valid pin")
    g.add_argument("--update", action="store_true", help="rewrite each number whose pinned cell changed")
    ap.add_argument("--explain", metavar="DOC", help="print where each number of DOC (e.g. docs/rda.md) comes from")
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    a = ap.parse_args()
    return run(a.root, "write" if a.write else "update" if a.update else "check", a.explain)


if __name__ == "__main__":
    sys.exit(main())
