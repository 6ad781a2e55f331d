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
from pathlib import Path

# Run as a script (scripts/docs-numbers) or loaded by path (the tests): the reader beside it.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_numbers_files import Files, rounds_to
from docs_numbers_pages import HISTORY_PAGES, WHOLE_PAGES, Cell, cells
from docs_numbers_pins import Pin, anchored, find, near_text, printed, read, reads
from docs_numbers_tokens import NUM, Token, num, tokens
from docs_numbers_verdicts import Interval, beside, interval, table_verdict

# The machinery the tests reach through this module.
__all__ = [
    "HISTORY_PAGES",
    "WHOLE_PAGES",
    "Cell",
    "Pin",
    "cells",
    "num",
    "printed",
    "rounds_to",
    "run",
    "tokens",
    "verdict_problems",
]

PIN_FILE = "docs/results/numbers.csv"
PIN_HEADER = ["doc", "claim", "column", "token", "file", "row", "row key", "field", "item", "reading", "half", "to"]


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


def verdict_problems(root: Path, decided: frozenset[tuple[str, int]] = frozenset()) -> list[str]:
    """Every `x ±h (no difference)` of the docs not read from a cell has |x| ≤ h, and every
    `x ±h (… excludes 0 …)` has |x| > h. A line in `decided` (its intervals pinned) is judged
    on the unrounded cells instead (`docs_numbers_verdicts.beside`), never on the rounded text."""
    out = []
    for path in sorted((root / "docs").glob("*.md")) + [root / "README.md"]:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if (path.relative_to(root).as_posix(), n) in decided:
                continue
            for m in VERDICT_AFTER.finditer(line):
                x, _ = num(m.group("x"))
                h = float(m.group("h"))
                where = f"{path.relative_to(root)}:{n}: {m.group(0)!r}"
                if m.group("v") == "no difference" and abs(x) > h:
                    out.append(f"{where}: the interval excludes 0, so it is a difference")
                elif m.group("v") != "no difference" and abs(x) <= h:
                    out.append(f"{where}: the interval holds 0")
    return out


def number_cell(pin: Pin, files: Files) -> bool:
    """Whether the pinned cell's number stands on its own, not glued into a name or a setting
    (`rda-blas1`, `spec-mix8`, `x0.5`): a count is read from a number, not from a name."""
    r = files.locate(pin.file, pin.row, pin.key, pin.field)
    text = dict(files.rows[pin.file][r]).get(pin.field, "") if r is not None else ""
    found = list(re.finditer(r"[+−-]?\d[\d,]*(?:\.\d+)?", text))
    if pin.item >= len(found):
        return False
    m = found[pin.item]
    return not re.search(r"[A-Za-z_-]$", text[: m.start()]) and not re.match(r"[A-Za-z]", text[m.end() :])


def noun_after(pin: Pin, files: Files) -> str:
    """The word a pinned cell prints right after its number ("18 cells beyond" -> "cells")."""
    r = files.locate(pin.file, pin.row, pin.key, pin.field)
    text = dict(files.rows[pin.file][r]).get(pin.field, "") if r is not None else ""
    found = list(re.finditer(r"[+−-]?\d[\d,]*(?:\.\d+)?", text))
    if pin.item >= len(found):
        return ""
    m = re.match(r"\s*([A-Za-z][\w-]*)", text[found[pin.item].end() :])
    return m.group(1).lower() if m else ""


def pin_problems(
    c: Cell, found: list[tuple[int, Token]], ordinal: int, pin: Pin, files: Files, verdicts: bool = True
) -> list[str]:
    """What is wrong with a pin that reads its number: a file the section does not name, a cell
    that names nothing the number's sentence says, a count of a total without its total, a verdict
    beside its interval that the unrounded cell does not support."""
    offset, tok = found[ordinal]
    out = []
    if not c.names(pin.file):
        out.append(
            f"reads {pin.file}, which its section names neither by file nor by folder "
            "(name the file where the section says what it quotes, or re-pin: --write)"
        )
    words = f"{c.sentence_at(offset)} {near_text(c, found, ordinal)} {c.claim}"
    # A count of a total matches some cell of almost any file: its row and field must be named.
    # A small whole number (a count, a mix's number; not a percentage) matches some cell of almost
    # any file.
    percent = c.text[offset + len(tok.text) :].lstrip().startswith("%")
    small = tok.kind == "one" and num(tok.text)[1] == 0 and abs(num(tok.text)[0]) <= 100 and not percent
    strict = tok.kind == "of" or c.strict or (c.whole and small)
    got = read(pin, files)
    # A report's prose line holds the run's settings beside its results: no small whole number is
    # read from one.
    whole_cell = got is not None and got[0] == round(got[0]) and number_cell(pin, files)
    # A count of a total read from a report line as the line prints it ("24 of 35") is anchored by both.
    from_line = pin.field == "line" and not (tok.kind == "of" and pin.to == "@item")
    # ... unless the line prints it as the page does, before the same noun ("18 cells beyond").
    noun = re.match(r"\s*([A-Za-z][\w-]*)", c.text[offset + len(tok.text) :])
    from_line = from_line and not (noun and noun.group(1).lower() == noun_after(pin, files))
    if strict and small and (pin.reading not in ("value", "negated") or not whole_cell or from_line):
        out.append("a whole number read from a cell that is not one, as it is: a count reads a count")
    elif not anchored(pin, words, strict, files, f"{c.before} {c.text} {c.after} {c.column}"):
        out.append(
            f"its pin ({pin.file}, row {pin.key!r}, {pin.field!r}) names nothing its sentence says: "
            "a number that merely rounds to a cell is not read from it (re-pin it, or say what it is)"
        )
    if tok.kind == "of" and not pin.to:
        out.append("a count of a total: its total is not pinned (re-pin both: --write)")
    iv = interval(tok, read(pin, files)) if verdicts else None
    if iv is not None:
        end = offset + len(tok.text)
        # The verdict may open the line before ("… no difference\n(−1.00 ±0.72%)").
        why = beside(iv, f"{c.before} {c.text[:offset]}", f"{c.text[end:]} {c.after}", c.paired)
        if why:
            out.append(why)
    return out


def run(root: Path, mode: str, explain: str | None = None) -> int:
    """Check (mode "check"), pin new numbers ("write") or rewrite changed ones ("update")."""
    pins = read_pins(root)
    files = Files(root)
    problems, kept, total = [], {}, 0
    decided: set[tuple[str, int]] = set()
    suspects: list[str] = []
    edits: dict[str, dict[int, list[tuple[int, Token, str]]]] = {}
    # Means with their intervals and ranges first: they pin their files surely, and the line's
    # single numbers then prefer those files.
    work = [
        (c, ordinal, offset, tok, found)
        for c in cells(root)
        for found in [tokens(c.text, c.quoted, c.whole)]
        for ordinal, (offset, tok) in enumerate(found)
    ]
    work.sort(key=lambda w: w[3].kind not in ("pm", "range"))
    used: dict[tuple[str, int], set[str]] = {}
    seen: set[Key] = set()
    # Each claims-table row's first pinned interval (in column order), for its verdict cell.
    firsts: dict[tuple[str, int], tuple[Cell, Interval | None]] = {}
    for c, ordinal, offset, tok, found in work:
        # The page's folders and those of the files its section names.
        named_folders = {n.split("/")[0] for n in c.named if "/" in n and (root / "docs/results" / n).exists()}
        names = files.of(sorted(set(c.folders) | named_folders))
        total += 1
        k = key(c, ordinal, tok)
        seen.add(k)
        pin = pins.get(k)
        where = f"{c.doc}:{c.line}: {tok.text!r} ({c.column})"
        stale = pin is not None and mode == "write" and bool(pin_problems(c, found, ordinal, pin, files, False))
        if pin is not None and reads(tok, pin, files) and not stale:
            kept[k] = pin
            used.setdefault((c.doc, c.line), set()).add(pin.file)
            problems += [f"{where}: {p}" for p in pin_problems(c, found, ordinal, pin, files)]
            if tok.kind == "pm":
                decided.add((c.doc, c.line))
            if c.verdict and tok.kind == "pm" and (c.doc, c.line) not in firsts:
                firsts[(c.doc, c.line)] = (c, interval(tok, read(pin, files)))
        elif pin is not None and mode == "update" and (got := read(pin, files)) is not None:
            new = printed(got, tok)
            edits.setdefault(c.doc, {}).setdefault(c.line, []).append((c.start + offset, tok, new))
            new_tok = next((t for _, t in tokens(new, whole=c.whole)), tok)
            kept[(k[0], k[1], k[2], f"{ordinal}:{new_tok.text}")] = pin
            print(f"docs-numbers: {where} -> {new!r} ({pin.file} row {pin.row + 1})", file=sys.stderr)
            if not anchored(pin, f"{near_text(c, found, ordinal)} {c.claim}"):
                suspects.append(
                    f"{where} -> {new!r}: its pin ({pin.file}, row {pin.key!r}, {pin.field!r}) names nothing "
                    "the text around the number says; a number that only rounded to that cell when pinned "
                    "(a parameter, a reference, a count) is now wrong: check it by hand"
                )
        elif mode == "write":
            near = near_text(c, found, ordinal)
            line_files = used.setdefault((c.doc, c.line), set())

            def sound(p: Pin, c: Cell = c, found: list[tuple[int, Token]] = found, ordinal: int = ordinal) -> bool:
                return not pin_problems(c, found, ordinal, p, files, False)

            new_pin = find(tok, names, files, near, f"{c.text} {c.claim}", line_files, sound)
            if new_pin is None:
                problems.append(
                    f"{where} is in no result file its section names ({', '.join(sorted(c.named)) or 'none'}) "
                    "at a cell its sentence names"
                )
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
    for (doc, line), (c, first) in sorted(firsts.items()):
        if why := table_verdict(c.verdict, c.claim_text, first):
            problems.append(f"{doc}:{line}: verdict {c.verdict[:50]!r}: {why}")
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
    problems = verdict_problems(root, frozenset(decided)) + problems
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
