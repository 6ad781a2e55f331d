"""The numbers' places on the docs' pages: every table cell, declared paragraph and prose line
whose numbers scripts/docs_numbers.py checks, with the result folders each may read."""

from __future__ import annotations

import re
from dataclasses import dataclass
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
MARKER = re.compile(r"<!--\s*numbers:\s*((?:results/[\w./-]+\s*)+)-->")


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
