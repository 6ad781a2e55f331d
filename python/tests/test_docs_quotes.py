"""Every quotation the docs' "Claims checked" tables attribute to a paper occurs verbatim in
that paper's text (issue #32 item 18): whitespace, line-end hyphenation, curly quotes and the
text conversion's emphasis marks normalised; "..." and "[...]" mark the quoter's cuts and
insertions, and each remaining piece must occur."""

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


def claims_quotes(doc: str) -> list[str]:
    """The quoted strings of the first column of the doc's "Claims checked" table."""
    text = doc[doc.index("### Claims checked") :]
    end = text.find("\n### ", 5)
    out = []
    for line in (text if end < 0 else text[:end]).splitlines():
        if line.startswith("| ") and not line.startswith("| paper"):
            out += re.findall(r'"([^"]+)"', line.split(" | ")[0])
    return out


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
