"""The numbers' places on the docs' pages: every table cell and prose line whose numbers
scripts/docs_numbers.py checks on a page no template renders, and scripts/docs_render.py on a
template's own text (its expressions blanked)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from docs_numbers_files import NUMBER_IN_CELL

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
# Pages read whole (docs/index.md, "Where a number comes from"): every table and every paragraph,
# not only the verdict tables and the blocks a marker declares. Pages join as their prose is read.
#: Tables that list the presets and the policies with the sizes and defaults their files
#: (data/machines, data/workloads) and knobs (`cosched list knobs`) declare: settings of the
#: method, as a "paper | code" table's are (docs/catalogue.md).
#: So do the format tables of docs/formats.md: each field with the unit, default and range its
#: loader declares (and checks: `tests/any_input.rs`), and each metric with its unit (the registry).
CATALOGUE_TABLES = {
    ("machine", "contexts", "from"),
    ("workloads", "from"),
    ("name", "what"),
    ("field", "meaning", "unit", "default"),
    ("machine field", "range", "workload field", "range"),
    ("metric", "unit", "better", "meaning"),
}

#: Columns that, beside the first, name a table's row (a planted matrix's size, rank and share
#: observed): coordinates, not results.
KEY_COLUMNS = {"n", "rank", "observed"}

#: Pages that are history, dated and exempt as a whole: the design notes (each note
#: dated, its figures those of its day) and the benchmarks' log (hand-recorded runs by date, until
#: its rows are read from the bench scripts' records under docs/results/bench/). CHANGELOG.md is
#: outside docs/. Every other page is read whole (`python/tests/test_docs_numbers.py`).
HISTORY_PAGES = {"design-notes", "benchmarks"}

WHOLE_PAGES: set[str] = {
    "runtime",
    "formats",
    "model",
    "optimum",
    "slits",
    "quintet",
    "perf-fair",
    "efs",
    "rda",
    "index",
    "README",
    "catalogue",
    "policies",
    "evt",
    "python",
    "architecture",
}
# Blocks another test regenerates and compares: their numbers are that test's.
GENERATED = re.compile(r"<!--\s*(validate|mechanisms):(begin|end)\s*-->")
MARKER = re.compile(r"<!--\s*numbers:\s*((?:results/[\w./-]+\s*)+)(?P<paired>paired\s*)?-->")
# A result file or folder a section names: `docs/results/rda`, `results/efs/fig8.csv`, `fig8.csv`.
NAMED_PATH = re.compile(r"(?:docs/)?results/([\w./-]*[\w-])")
NAMED_FILE = re.compile(r"[\w.-]+\.(?:csv|json|md|txt)")


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
    # The block is declared `paired`: every interval holding 0 says "(no difference)".
    paired: bool = False
    # The result folders and files its section names (a pin may read only those).
    named: frozenset[str] = frozenset()
    # In a claims table: the row's claim in full and its verdict cell.
    claim_text: str = ""
    verdict: str = ""
    # Read because its page is read whole, not because a marker or a verdict column declared it.
    strict: bool = False
    # Its page is read whole: a small whole number anywhere on it (a count, a mix's number) is
    # read strictly too, since it matches some cell of almost any file.
    whole: bool = False
    # A paragraph line's neighbours in its paragraph, so a sentence that wraps is read whole.
    before: str = ""
    after: str = ""

    @property
    def quoted(self) -> bool:
        """Whether the line opens inside a quotation its paragraph began above."""
        return self.before.count('"') % 2 == 1

    def sentence_at(self, offset: int) -> str:
        """The sentence holding position `offset` of the cell's text, across its paragraph's lines."""
        return sentence(f"{self.before} {self.text} {self.after}", len(self.before) + 1 + offset)


def sentence(text: str, offset: int) -> str:
    """The sentence (or clause of a list: `;`) of `text` holding position `offset`."""
    starts = [m.end() for m in re.finditer(r"[.;!?]\s+(?=[A-Z(*`\"“])|;\s+", text[:offset])]
    start = starts[-1] if starts else 0
    m = re.search(r"[.;!?]\s+(?=[A-Z(*`\"“])|;\s+", text[offset:])
    return text[start : offset + m.start() if m else len(text)]


def skipped_lines(lines: list[str]) -> set[int]:
    """Lines whose numbers are no page's results: code blocks, headings, comments and markers,
    and the blocks another test regenerates."""
    out, fence, generated, tests, paragraph = set(), False, False, False, False
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith("## "):
            # A "Tests" section describes the tests: their settings live in the test code.
            tests = s[3:].lower().startswith("tests")
        # So does a paragraph that opens with "Tests:" or "**Tests**", to its blank line.
        paragraph = bool(s) and (paragraph or s.startswith(("Tests:", "**Tests**")))
        if tests or paragraph:
            out.add(i)
        elif s.startswith("```"):
            fence = not fence
            out.add(i)
        elif m := GENERATED.search(s):
            generated = m.group(2) == "begin"
            out.add(i)
        elif fence or generated or s.startswith(("#", "<!--")):
            out.add(i)
    return out


def sections(lines: list[str]) -> list[frozenset[str]]:
    """For each line, the result folders and files its section (from one `#`/`##` heading to
    the next) names: paths under results/ and file basenames."""
    out: list[frozenset[str]] = []
    start = 0
    for i in range(len(lines) + 1):
        if i == len(lines) or (i > start and re.match(r"#{1,2} ", lines[i])):
            text = "\n".join(lines[start:i])
            named = {m.group(1).rstrip("./") for m in NAMED_PATH.finditer(text)}
            named |= {m.group(0) for m in NAMED_FILE.finditer(text)}
            named |= {f for m in MARKER.finditer(text) for f in m.group(1).replace("results/", "").split()}
            out += [frozenset(named)] * (i - start)
            start = i
    return out


def rendered(root: Path, page: Path) -> bool:
    """Whether `page` is rendered from a template (docs/src/NAME.md.j2, scripts/docs_render.py):
    its numbers are expressions over their cells, so nothing is pinned; the template's typed
    numbers are read by the renderer's check instead."""
    return (root / "docs" / "src" / f"{page.name}.j2").exists()


def cells(root: Path) -> list[Cell]:
    """Every checked cell of the docs."""
    out = []
    for path in sorted((root / "docs").glob("*.md")) + [root / "README.md"]:
        if rendered(root, path):
            continue
        doc = path.relative_to(root).as_posix()
        lines = path.read_text().splitlines()
        default = FOLDERS.get(path.stem, [])
        named = sections(lines)
        whole = path.stem in WHOLE_PAGES
        skip = skipped_lines(lines)
        i = 0
        while i < len(lines):
            if i in skip:
                i += 1
                continue
            # A marker is a line of its own (one quoted in a sentence marks nothing).
            marker = MARKER.fullmatch(lines[i - 1].strip()) if i > 0 else None
            folders = [f.removeprefix("results/") for f in marker.group(1).split()] if marker else default
            paired = bool(marker and marker.group("paired"))
            # A marker's files are the block's only sources: not the rest of its section's.
            section = frozenset(folders) if marker else None
            line = lines[i]
            if line.startswith("|") and i + 1 < len(lines) and set(lines[i + 1].strip()) <= set("|-: "):
                head = [c.strip().lower() for c in line.strip().strip("|").split("|")]
                declared = marker is not None or "verdict" in head
                # A "paper | code" table maps the paper to the code, and a catalogue table the
                # presets and policies to what their files and knobs declare: their numbers
                # state the method.
                checked = declared or (whole and "code" not in head and tuple(head) not in CATALOGUE_TABLES)
                j = i + 2
                while j < len(lines) and lines[j].startswith("|"):
                    row = [c.strip() for c in lines[j].strip().strip("|").split(" | ")]
                    pos = 0
                    for k, text in enumerate(row if checked else []):
                        pos = lines[j].find(text, pos)
                        # The first column names the row (a claim, a workload, a setting), and a
                        # paper's own column holds the paper's figures: neither is ours.
                        h = head[k] if k < len(head) else ""
                        if k > 0 and not re.match(r"(paper|claim)", h) and h not in KEY_COLUMNS:
                            column = head[k] if k < len(head) else str(k)
                            verdict = row[head.index("verdict")] if "verdict" in head[: len(row)] else ""
                            out.append(
                                Cell(
                                    doc,
                                    j + 1,
                                    row[0][:70],
                                    column,
                                    text,
                                    folders,
                                    pos,
                                    paired,
                                    section or named[j],
                                    row[0],
                                    verdict,
                                    strict=not declared,
                                    whole=whole,
                                )
                            )
                        pos += len(text)
                    j += 1
                i = j
                continue
            if (marker or whole) and line.strip():
                end = i
                while end < len(lines) and lines[end].strip() and end not in skip:
                    end += 1
                j = i
                while j < end:
                    # Named by its first words (numbers masked), so lines added above keep its pins.
                    name = "paragraph: " + NUMBER_IN_CELL.sub("#", lines[i].strip())[:60]
                    before, after = " ".join(lines[i:j]), " ".join(lines[j + 1 : end])
                    cell = Cell(
                        doc, j + 1, name, f"line {j - i + 1}", lines[j], folders, 0, paired, section or named[j]
                    )
                    out.append(replace(cell, before=before, after=after, strict=marker is None or whole, whole=whole))
                    j += 1
                i = j
                continue
            i += 1
    return out
