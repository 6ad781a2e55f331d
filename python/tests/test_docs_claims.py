"""The docs' "Claims checked" tables. Every quotation their first column
attributes to a paper occurs verbatim in that paper's text (whitespace, line-end hyphenation,
curly quotes and the text conversion's emphasis marks normalised; "..." and "[...]" mark the
quoter's cuts and insertions, and each remaining piece must occur). Every verdict that says
"reproduced" shows a 95% interval that excludes zero, unless it says why no interval applies (a
floor: whether the interval is the claim's and points the paper's way is for the reader of the
row, not parsed here)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAPERS = ROOT.parent / "shared" / "papers"
# docs/<name>.md -> the paper file's number (../shared/papers/README.md).
DOCS = {"slits": "000", "efs": "001", "rda": "002", "evt": "003", "perf-fair": "004"}


def norm(text: str) -> str:
    """Lower-case text with the conversion's artefacts removed."""
    t = unicodedata.normalize("NFKC", text)
    t = t.translate(str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'}))
    t = re.sub(r"-\s*\n\s*", "", t)
    t = t.replace("*", "").replace("_", " ")
    return re.sub(r"\s+", " ", t).lower().strip()


def claims_rows(doc: str) -> list[list[str]]:
    """The rows of the doc's "Claims checked" table: paper, ours, verdict, why."""
    text = doc[doc.index("### Claims checked") :]
    end = text.find("\n### ", 5)
    rows = []
    for line in (text if end < 0 else text[:end]).splitlines():
        if line.startswith("| ") and not line.startswith("| paper"):
            rows.append([c.strip() for c in line.strip().strip("|").split(" | ")])
    return rows


def claims_quotes(doc: str) -> list[str]:
    """The quoted strings of the first column of the doc's "Claims checked" table."""
    return [q for row in claims_rows(doc) for q in re.findall(r'"([^"]+)"', row[0])]


# A "reproduced" with no interval must say why: a formula, a fit, or a count of cases.
NO_INTERVAL = re.compile(r"\((by construction|a formula|\d+ of \d+)\)")


def excluding_zero(ours: str) -> list[str]:
    """The `x ±h` figures of a cell whose interval excludes zero."""
    found = re.findall(r"([−+-]?\d+(?:\.\d+)?)\s*±\s*(\d+(?:\.\d+)?)", ours)
    return [f"{x} ±{h}" for x, h in found if abs(float(x.replace("−", "-"))) > float(h)]


def missing_pieces(quote: str, paper: str) -> list[str]:
    """The pieces of `quote` (cut at "..." and "[...]") that `paper` (normalised) lacks."""
    pieces = [p for p in re.split(r"\.\.\.|…|\[[^\]]*\]", quote) if p.strip(" ,.;:")]
    return [p for p in pieces if norm(p).strip(" ,.;:") not in paper]


def paper_text(num: str) -> str:
    return norm(next(PAPERS.glob(f"{num}_*.txt")).read_text())


@pytest.mark.skipif(not PAPERS.is_dir(), reason="../shared/papers is not beside the checkout")
def test_every_claims_quote_occurs_verbatim_in_its_paper():
    bad, total = [], 0
    for name, num in DOCS.items():
        paper = paper_text(num)
        for q in claims_quotes((ROOT / "docs" / f"{name}.md").read_text()):
            total += 1
            if missing_pieces(q, paper):
                bad.append(f"docs/{name}.md: {q!r} not in paper {num}: {missing_pieces(q, paper)}")
    assert total >= 30, f"only {total} quotes found: has a claims table's layout changed?"
    assert not bad, "\n".join(bad)


@pytest.mark.skipif(not PAPERS.is_dir(), reason="../shared/papers is not beside the checkout")
def test_the_lint_catches_a_paraphrase_and_accepts_marked_cuts():
    efs = paper_text("001")
    assert missing_pieces("EFS outperforms every static restriction", efs)
    assert not missing_pieces("We see that EFS outperforms all of the static methods.", efs)
    assert not missing_pieces("The model predictions are within 10% ... of the error is 3.3%", efs)
    assert missing_pieces("The model predictions are within 5% ... of the error is 3.3%", efs)


def test_every_reproduced_verdict_rests_on_an_interval_excluding_zero():
    bad, checked, read = [], 0, 0
    for name in DOCS:
        rows = claims_rows((ROOT / "docs" / f"{name}.md").read_text())
        read += len(rows)
        template = ROOT / "docs" / "src" / f"{name}.md.j2"
        # The template's verdict cells, row for row: one holding an expression is the renderer's.
        typed = [len(r) < 3 or "{{" not in r[2] for r in claims_rows(template.read_text())] if template.exists() else []
        for i, row in enumerate(rows):
            if len(row) < 3 or not re.search(r"(?<!not )\breproduced\b", row[2]):
                continue
            if i < len(typed) and not typed[i]:
                continue
            checked += 1
            if not NO_INTERVAL.search(row[2]) and not excluding_zero(row[1]):
                bad.append(f"docs/{name}.md: {row[0][:60]!r}: verdict {row[2]!r} but no interval excludes zero")
    # On the rendered pages: a verdict the renderer decides (`claim`, `direction`) follows the rule
    # on the unrounded cell by construction; a verdict written in the template (an ordering, a
    # formula) is held here by the interval printed beside it.
    assert read >= 30, f"only {read} claims rows found: has a claims table's layout changed?"
    assert checked >= 1, "no typed 'reproduced' verdict left to check: drop this test or the floor"
    assert not bad, "\n".join(bad)


def test_the_verdict_check_reads_intervals():
    assert excluding_zero("+2.7 ±0.4% and −1.5 ±0.5") == ["+2.7 ±0.4", "−1.5 ±0.5"]
    assert excluding_zero("−0.3 ±0.7 (no difference)") == []
    assert NO_INTERVAL.search("reproduced (7 of 8)") and not NO_INTERVAL.search("reproduced")
