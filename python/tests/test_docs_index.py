"""The README stays a two-minute read and docs/index.md maps every page."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_is_short_and_names_no_issue():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 160
    assert not re.search(r"issue #\d|#\d{2}\b", text), "say what and why, not an issue number"


def test_every_docs_page_is_in_the_index_and_every_link_resolves():
    index = (ROOT / "docs" / "index.md").read_text()
    linked = set(re.findall(r"\]\(([^)#]+)\)", index))
    pages = {p.name for p in (ROOT / "docs").glob("*.md")} - {"index.md"}
    assert pages <= linked, f"pages missing from docs/index.md: {sorted(pages - linked)}"
    for link in linked:
        assert (ROOT / "docs" / link).exists(), link
