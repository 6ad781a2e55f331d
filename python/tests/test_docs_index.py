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


def test_every_design_note_says_whether_it_stands():
    # A reader tells which decisions stand: each numbered note has a status line within its first
    # lines, one of the statuses docs/index.md names.
    text = (ROOT / "docs" / "design-notes.md").read_text()
    notes = re.split(r"(?m)^## (\d+)\. ", text)[1:]
    assert len(notes) >= 2 * 70
    for number, body in zip(notes[::2], notes[1::2], strict=True):
        head = "\n".join(body.splitlines()[1:6])
        status = re.search(r"Status:\**\s*(\w+)", head)
        assert status is not None, f"note {number} has no status"
        assert status.group(1).lower() in {"accepted", "superseded", "rejected", "history"}, (number, status.group(1))


def test_every_script_has_its_line_in_scripts_readme():
    listed = set(re.findall(r"^\| `([^`]+)` \|", (ROOT / "scripts" / "README.md").read_text(), re.MULTILINE))
    present = {p.name for p in (ROOT / "scripts").iterdir() if p.is_file() and p.name != "README.md"}
    assert present - listed == set(), "give each script its line in scripts/README.md"
    assert listed - present == set(), "scripts/README.md lists scripts that are gone"
