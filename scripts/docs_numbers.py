"""Every number of a results table in the docs comes from a result file.

Scope: each Markdown table of the docs whose header has a `verdict` column (the "Claims checked"
tables and the runtime's rounds tables), every table or paragraph that a line
`<!-- numbers: results/DIR ... -->` right above it declares, and every number of those, in
every column but the paper's own (the first column when its header starts with "paper" or
"claim").

A number is read with its precision (`+2.2 ±1.1` is a mean and a 95% half-width, `1.034–1.314`
an interval, `12 of 13` a count) and looked for among the cells of the doc's result files
(`docs/results/<doc>/`, CSV, JSON, and the tables and lines of the reruns' report.md): a cell
matches when it rounds to the number as printed, directly, as a percentage (x 100) or as a
percentage change of a ratio ((x - 1) x 100). A mean with its interval must be found in one
row. Each number's cell is pinned in `docs/results/numbers.csv` (doc, claim, column, token,
file, row, column of the file, reading), which is how a reader finds the cell behind a number.

    scripts/docs-numbers            # check: every number still reads its pinned cell
    scripts/docs-numbers --write    # find a cell for each number without a valid pin
    scripts/docs-numbers --explain docs/rda.md   # where each number of a page comes from

The check fails, naming the doc, its line and the number, when a number has no pinned cell,
when the pinned cell no longer rounds to it (a rerun changed the result: regenerate the doc's
number), or when a pin names a number the docs no longer have. Numbers that are not results
(seeds, sizes and parameters of a run, section and figure numbers, file names in backticks)
are skipped by the rules in `skipped`.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

# A doc -> the folders of docs/results its tables read (relative to docs/results).
FOLDERS = {
    "efs": ["efs"],
    "evt": ["evt"],
    "perf-fair": ["perf-fair", "sensitivity"],
    "rda": ["rda", "runtime", "sensitivity"],
    "slits": ["slits"],
    "runtime": ["runtime"],
    "quintet": ["quintet"],
    "optimum": ["optimum"],
    "model": ["mechanisms", "perf-fair", "rda", "efs", "slits", "evt", "optimum", "quintet"],
}
PIN_FILE = "docs/results/numbers.csv"
PIN_HEADER = ["doc", "claim", "column", "token", "file", "row", "field", "reading"]
MARKER = re.compile(r"<!--\s*numbers:\s*((?:results/[\w./-]+\s*)+)-->")

# One number as printed: sign, digits (thousands with commas), decimals, and what may follow it.
NUM = r"[+−-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[+−-]?\d+(?:\.\d+)?"
TOKEN = re.compile(
    rf"(?<![\w.\-/#§])(?P<a>{NUM})"
    rf"(?:(?P<pm>\s*%?\s*±\s*)(?P<b>\d+(?:\.\d+)?)"
    rf"|(?P<range>[–-])(?P<c>{NUM})(?![\w.])"
    rf"|(?P<of> of |/)(?P<d>\d+)(?![\w.]))?"
)
# The words after a number that make it a parameter of the run, not a result.
PARAMETER_AFTER = re.compile(
    r"\s*(?:[-–]?\s*)?(seeds?|threads?|molecules|processes|process|copies|instances|periods|"
    r"programs?|jobs|mixes|workloads|benchmarks|applications|cores?|contexts?|contexts|"
    r"rounds|samples|assignments|partitions|repeats|times|x\b|×\s*(?:the|spec)|"
    r"ms periods|µs periods|MiB each|KiB|bits?|SPEC|PARSEC|/µs sustained|"
    r"SMT|-thread|-core|-way|th\b|st\b|nd\b|rd\b|k\b)",
)
PARAMETER_BEFORE = re.compile(
    r"(§|Fig\.?\s*|Figs\.?\s*|Table\s*|Eq\.?\s*|point\s*|points\s+|mix\s*|n\s*=\s*|"
    r"at\s+|first\s+|top\s+|of\s+|every\s+|k\s*=\s*|p\s*=\s*|level\s+|"
    r"beta\(|Weibull\(|Pareto\(|gpd\(|\d,\s*)$"
)


def num(text: str) -> tuple[float, int]:
    """The value and number of decimals of a printed number."""
    t = text.replace("−", "-").replace(",", "")
    return float(t), len(t.split(".")[1]) if "." in t else 0


@dataclass(frozen=True)
class Token:
    """A number (or a mean with its interval, a range, a count of a total) in a doc cell."""

    text: str
    values: tuple[tuple[float, int], ...]
    kind: str  # "one", "pm", "range", "of"


def tokens(cell: str) -> list[tuple[int, Token]]:
    """The numbers of a table cell that are results, with their offsets."""
    out = []
    # Backticked code and link targets are names, not numbers.
    masked = re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), cell)
    masked = re.sub(r"\]\([^)]*\)", lambda m: " " * len(m.group(0)), masked)
    for m in TOKEN.finditer(masked):
        a = m.group("a")
        if m.group("b"):
            tok = Token(m.group(0).strip(), (num(a), num(m.group("b"))), "pm")
        elif m.group("c"):
            tok = Token(m.group(0), (num(a), num(m.group("c"))), "range")
        elif m.group("d"):
            tok = Token(m.group(0), (num(a), num(m.group("d"))), "of")
        else:
            tok = Token(a, (num(a),), "one")
        if skipped(masked, m.start(), m.end(), tok):
            continue
        out.append((m.start(), tok))
    return out


def skipped(text: str, start: int, end: int, tok: Token) -> bool:
    """A parameter of the run, a section or figure number, a name: not a result."""
    before, after = text[:start], text[end:]
    if tok.kind == "one" and PARAMETER_AFTER.match(after) and not after.startswith(" ×"):
        return True
    if tok.kind in ("one", "range") and PARAMETER_BEFORE.search(before):
        return True
    return bool(tok.kind == "one" and re.match(r"[A-Za-z_(]", after[:1]))


def rows_of(path: Path) -> list[list[tuple[str, str]]]:
    """A result file as rows of (field, text) pairs."""
    text = path.read_text(errors="replace")
    if path.suffix == ".csv":
        rows = list(csv.reader(io.StringIO(text)))
        if not rows:
            return []
        head = rows[0]
        return [[(head[i] if i < len(head) else str(i), v) for i, v in enumerate(r)] for r in rows[1:]]
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            return []
        out: list[list[tuple[str, str]]] = []

        def flat(node: dict, prefix: str, row: list[tuple[str, str]]) -> None:
            # Nested objects join their parent's row (`unfairness.mean` beside `policy`);
            # lists of objects become rows of their own.
            for k, v in node.items():
                if isinstance(v, dict):
                    flat(v, f"{prefix}{k}.", row)
                elif isinstance(v, list) and v and isinstance(v[0], dict):
                    for item in v:
                        sub: list[tuple[str, str]] = []
                        flat(item, f"{prefix}{k}.", sub)
                        out.append(sub)
                else:
                    row.append((prefix + k, json.dumps(v)))

        top: list[tuple[str, str]] = []
        if isinstance(data, dict):
            flat(data, "", top)
        elif isinstance(data, list):
            for item in data:
                if isinstance(item, dict):
                    sub: list[tuple[str, str]] = []
                    flat(item, "", sub)
                    out.append(sub)
        return [top, *out] if top else out
    # Markdown and text reports: table rows by their header, other lines as one field.
    out = []
    head: list[str] = []
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if set(line) <= set("|-: "):
                continue
            if not head or len(cells) != len(head):
                head = cells
                continue
            out.append(list(zip(head, cells)))
        else:
            head = []
            if line.strip():
                out.append([("line", line)])
    return out


# How a cell may be printed: as it is, as a percentage, as the percentage change of a ratio, and
# each of those negated (a saving printed as a positive number, a loss as a negative speedup).
READINGS = (
    ("value", 1.0, 0.0),
    ("percent", 100.0, 0.0),
    ("change", 100.0, -100.0),
    ("negated", -1.0, 0.0),
    ("negated percent", -100.0, 0.0),
    ("saving", -100.0, 100.0),
)


def numbers_in(text: str) -> list[float]:
    """Every number inside a result cell (a cell may hold `1 / 8 / 4` or `1.2 [0.9, 1.5]`)."""
    return [float(x.replace("−", "-")) for x in re.findall(r"[+−-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?", text.replace(",", ""))]


def rounds_to(cell: float, printed: float, decimals: int, scale: float, shift: float) -> bool:
    """Whether `cell` read as scale*cell + shift prints as `printed` at `decimals`."""
    x = scale * cell + shift
    half = 0.5 * 10.0**-decimals
    return abs(x - printed) <= half * (1 + 1e-9) + 1e-12 or abs(abs(x) - abs(printed)) <= half * (1 + 1e-9) + 1e-12 and printed == 0


@dataclass(frozen=True)
class Source:
    """Where a number was found: file (relative to docs/results), row index, field, reading."""

    file: str
    row: int
    field: str
    reading: str
    row2: int | None = None  # a range's upper end, read from another row of the same field

    def rows_text(self) -> str:
        return f"{self.row + 1}" if self.row2 is None else f"{self.row + 1}..{self.row2 + 1}"


WORD = re.compile(r"[A-Za-z][\w&-]{2,}")


ROW_WORDS: dict[int, set[str]] = {}


def words_of(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(text)}


def find(tok: Token, files: dict[str, list[list[tuple[str, str]]]], near: str, context: str) -> Source | None:
    """The best cell for a number: the field named by the words just before it (`Perf +1.6`),
    then the row naming most of the cell's words, a direct reading before a percentage or a
    negation, the first file and row."""
    near_words, words = words_of(near), words_of(context)
    best: tuple[tuple[int, int, int, int], Source] | None = None
    for name, rows in files.items():
        for ri, row in enumerate(rows):
            row_words = ROW_WORDS.get(id(row))
            if row_words is None:
                row_words = ROW_WORDS[id(row)] = set().union(*(words_of(v) | words_of(f) for f, v in row)) if row else set()
            for order, (reading, scale, shift) in enumerate(READINGS):
                for field in matches(tok, row, scale, shift):
                    fw = words_of(field)
                    k = (-len(near_words & fw), -len(near_words & row_words), -len(words & row_words), order)
                    if best is None or k < best[0]:
                        best = (k, Source(name, ri, field, reading))
    if best is None and tok.kind == "range":
        return find_range(tok, files)
    return best[1] if best else None


def find_range(tok: Token, files: dict[str, list[list[tuple[str, str]]]]) -> Source | None:
    """A range printed over rows (`0.80-0.97`: the lowest and the highest of a column)."""
    lo, hi = (Token(str(v), ((v, d),), "one") for v, d in tok.values)
    for name, rows in files.items():
        for reading, scale, shift in READINGS:
            for ri, row in enumerate(rows):
                for f in matches(lo, row, scale, shift):
                    for rj, other in enumerate(rows):
                        if rj != ri and matches(hi, [(g, v) for g, v in other if g == f], scale, shift):
                            return Source(name, ri, f, reading, rj)
    return None


CELLS: dict[int, list[tuple[str, list[float], bool]]] = {}
HALF_WIDTH = re.compile(r"(?<![a-z])ci(95)?(?![a-z])|±|half-width|interval")


def matches(tok: Token, row: list[tuple[str, str]], scale: float, shift: float) -> list[str]:
    """The fields of `row` that hold the number (for a mean with its interval, the mean's field,
    its half-width in the same cell after a ±, in a field named after it with "ci", or half of
    its lo/hi pair; an interval's half-width is never read as a mean)."""
    cells = CELLS.get(id(row))
    if cells is None:
        cells = CELLS[id(row)] = [(f, numbers_in(v), "±" in v) for f, v in row]
    (a, da) = tok.values[0]

    def hits(value: float, dec: int, xs: list[float], sc: float, sh: float) -> bool:
        return any(rounds_to(x, value, dec, sc, sh) for x in xs)

    out = []
    for f, xs, pm_cell in cells:
        if HALF_WIDTH.search(f) and not pm_cell or re.search(r"(^|[._ ])(lo|hi|low|high)$", f):
            continue
        first = xs[:1] if pm_cell else xs
        if not hits(a, da, first, scale, shift):
            continue
        if tok.kind in ("one", "of"):
            out.append(f)
            continue
        (b, db) = tok.values[1]
        if tok.kind == "range":
            if hits(b, db, xs, scale, shift) or any(hits(b, db, ys, scale, shift) for g, ys, _ in cells if g != f):
                out.append(f)
            continue
        stem = re.sub(r"[._ ]?mean$", "", f)
        sc = abs(scale)
        if pm_cell and hits(b, db, xs[1:2], sc, 0.0):
            out.append(f)
        elif any(g.startswith(stem) and g != f and HALF_WIDTH.search(g[len(stem) :]) and hits(b, db, ys, sc, 0.0) for g, ys, _ in cells):
            out.append(f)
        else:
            los = [x for g, ys, _ in cells if g.startswith(stem) and re.search(r"(lo|low)$", g) for x in ys]
            his = [x for g, ys, _ in cells if g.startswith(stem) and re.search(r"(hi|high)$", g) for x in ys]
            if any(rounds_to((h - lo) / 2, b, db, sc, 0.0) for lo in los for h in his):
                out.append(f)
    return out


@dataclass
class Cell:
    """A table cell (or a declared paragraph) whose numbers are checked."""

    doc: str
    line: int
    claim: str
    column: str
    text: str
    folders: list[str]


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
                    if checked:
                        for k, text in enumerate(row):
                            if k == 0 and re.match(r"(paper|claim)", head[0]):
                                continue
                            column = head[k] if k < len(head) else str(k)
                            out.append(Cell(doc, j + 1, row[0][:70], column, text, folders))
                    j += 1
                i = j
                continue
            if marker and line.strip():
                j = i
                while j < len(lines) and lines[j].strip():
                    out.append(Cell(doc, j + 1, f"paragraph {i + 1}", "text", lines[j], folders))
                    j += 1
                i = j
                continue
            i += 1
    return out


def load(root: Path, folders: list[str], cache: dict) -> dict[str, list[list[tuple[str, str]]]]:
    files = {}
    for folder in folders:
        for p in sorted((root / "docs" / "results" / folder).rglob("*")):
            if p.is_file() and p.suffix in (".csv", ".json", ".md", ".txt"):
                rel = p.relative_to(root / "docs" / "results").as_posix()
                if rel not in cache:
                    cache[rel] = rows_of(p)
                files[rel] = cache[rel]
    return files


def key(c: Cell, ordinal: int, tok: Token) -> tuple[str, str, str, str]:
    return (c.doc, c.claim, c.column, f"{ordinal}:{tok.text}")


def read_pins(root: Path) -> dict[tuple[str, str, str, str], Source]:
    path = root / PIN_FILE
    if not path.exists():
        return {}
    pins = {}
    for r in csv.DictReader(io.StringIO(path.read_text())):
        first, _, last = r["row"].partition("..")
        pins[(r["doc"], r["claim"], r["column"], r["token"])] = Source(
            r["file"], int(first) - 1, r["field"], r["reading"], int(last) - 1 if last else None
        )
    return pins


def still_reads(tok: Token, src: Source, files: dict) -> bool:
    rows = files.get(src.file)
    if rows is None or src.row >= len(rows) or (src.row2 is not None and src.row2 >= len(rows)):
        return False
    scale, shift = {r: (s, h) for r, s, h in READINGS}[src.reading]
    if src.row2 is None:
        return src.field in matches(tok, rows[src.row], scale, shift)
    ends = [Token(str(v), ((v, d),), "one") for v, d in tok.values]
    return all(
        src.field in matches(end, [(g, v) for g, v in rows[r] if g == src.field], scale, shift)
        for end, r in zip(ends, (src.row, src.row2))
    )


def run(root: Path, write: bool, explain: str | None) -> int:
    pins = read_pins(root)
    cache: dict = {}
    problems, new_pins, total = [], {}, 0
    for c in cells(root):
        files = load(root, c.folders, cache)
        found_tokens = tokens(c.text)
        for ordinal, (offset, tok) in enumerate(found_tokens):
            total += 1
            k = key(c, ordinal, tok)
            src = pins.get(k)
            if src is not None and still_reads(tok, src, files):
                new_pins[k] = src
            elif write:
                prev = found_tokens[ordinal - 1][0] + len(found_tokens[ordinal - 1][1].text) if ordinal else 0
                found = find(tok, files, c.text[max(prev, offset - 40) : offset], c.text + " " + c.claim)
                if found is None:
                    problems.append(f"{c.doc}:{c.line}: {tok.text!r} ({c.column}) is in no result file of {', '.join(c.folders) or 'no folder'}")
                else:
                    new_pins[k] = found
            elif src is None:
                problems.append(f"{c.doc}:{c.line}: {tok.text!r} ({c.column}) has no pinned result cell (scripts/docs-numbers --write finds one)")
            else:
                problems.append(
                    f"{c.doc}:{c.line}: {tok.text!r} ({c.column}) no longer reads {src.file} row {src.rows_text()} field {src.field!r}: "
                    "the result changed; correct the doc's number (scripts/docs-numbers --write re-finds it)"
                )
            if explain and c.doc == explain and k in new_pins:
                s = new_pins[k]
                print(f"{c.doc}:{c.line}  {tok.text:<22} {s.file} row {s.rows_text()} [{s.field}] ({s.reading})")
    stale = sorted(set(pins) - set(new_pins)) if not write else []
    for k in stale:
        problems.append(f"{PIN_FILE}: pin for {k[0]} {k[1][:40]!r} {k[3]!r} names a number the docs no longer have (scripts/docs-numbers --write drops it)")
    if write:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(PIN_HEADER)
        for k in sorted(new_pins):
            s = new_pins[k]
            w.writerow([*k[:3], k[3], s.file, s.rows_text(), s.field, s.reading])
        (root / PIN_FILE).write_text(buf.getvalue())
    for p in problems:
        print(f"docs-numbers: {p}", file=sys.stderr)
    if not problems:
        print(f"docs-numbers: {total} numbers of the docs' result tables read their result files", file=sys.stderr)
    return 1 if problems else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="find a cell for each number without a valid pin")
    ap.add_argument("--explain", metavar="DOC", help="print where each number of DOC (e.g. docs/rda.md) comes from")
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    a = ap.parse_args()
    return run(a.root, a.write, a.explain)


if __name__ == "__main__":
    sys.exit(main())
