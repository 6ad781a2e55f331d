"""No result typed into a page: every number of the docs that is not rendered is a declared kind.

The pages that state results are rendered from their cells (`docs/src/NAME.md.j2`, rendered by
scripts/docs_render.py, which checks each template's own text by the rules here). Every other
page of docs/ and the README is read whole, every table and paragraph, and each number in it must
be one of the declared kinds: a quotation of a paper (in quotes), a method's constant of the one
declared list (`docs_numbers_constants.py`, each with where the code declares it), a never-result
form (a date, a time of day, a list number, a threshold after ≤ or ≥: `docs_numbers_forms.py`), a
reference (a section, figure, equation, design note), a run's size named by its unit, a name in
backticks, or a paragraph describing tests. Anything else is a result typed by hand: the check
fails naming the page, line and number. The history pages (`HISTORY_PAGES`: the design notes and
the benchmarks' log, each entry dated) are exempt as a whole.

    scripts/docs-numbers            # check every page not rendered from a template
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# Run as a script (scripts/docs-numbers) or loaded by path (the tests): the reader beside it.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_numbers_pages import HISTORY_PAGES, WHOLE_PAGES, cells
from docs_numbers_tokens import num, tokens

# The machinery the tests reach through this module.
__all__ = ["HISTORY_PAGES", "WHOLE_PAGES", "cells", "num", "problems", "run", "tokens"]


def problems(root: Path) -> tuple[list[str], int]:
    """Each number typed into a page that no template renders, and how many places were read."""
    out, places = [], 0
    for c in cells(root):
        places += 1
        for _, tok in tokens(c.text, c.quoted, c.whole):
            out.append(
                f"{c.doc}:{c.line}: {tok.text!r} is typed into the text: a result belongs on a rendered "
                "page (docs/src/NAME.md.j2, scripts/docs_render.py); anything else must be a declared kind "
                "(a quotation, a constant of scripts/docs_numbers_constants.py, a reference)"
            )
    return out, places


def run(root: Path) -> int:
    found, places = problems(root)
    for p in found:
        print(f"docs-numbers: {p}", file=sys.stderr)
    if not found:
        print(
            f"docs-numbers: the {places} tables and paragraphs of the pages not rendered hold no typed result",
            file=sys.stderr,
        )
    return 1 if found else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    return run(ap.parse_args().root)


if __name__ == "__main__":
    sys.exit(main())
