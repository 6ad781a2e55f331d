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


def test_every_decision_record_says_whether_it_stands_and_is_indexed():
    # A reader tells which decisions stand: each record under docs/decisions/ has a status line
    # within its first lines, one of the statuses its index names; the index lists every record
    # with that status, and every record a status links to exists.
    folder = ROOT / "docs" / "decisions"
    index = (folder / "README.md").read_text()
    records = sorted(folder.glob("[0-9][0-9][0-9][0-9]-*.md"))
    assert len(records) >= 70
    for record in records:
        text = record.read_text()
        number = int(record.name[:4])
        assert text.startswith(f"# {number}. "), record.name
        head = "\n".join(text.splitlines()[1:6])
        status = re.search(r"Status:\**\s*(\w+)", head)
        assert status is not None, f"{record.name} has no status"
        word = status.group(1).lower()
        assert word in {"accepted", "superseded", "rejected"}, (record.name, word)
        line = re.search(rf"^\| {number} \| \[.*?\]\({re.escape(record.name)}\) \| (\w+)", index, re.MULTILINE)
        assert line is not None, f"{record.name} is not in docs/decisions/README.md"
        assert line.group(1) == word, (record.name, line.group(1), word)
    for target in re.findall(r"\]\((\d{4}-[^)]+\.md)\)", index + "".join(r.read_text() for r in records)):
        assert (folder / target).is_file(), target


def test_every_script_has_its_line_in_scripts_readme():
    listed = set(re.findall(r"^\| `([^`]+)` \|", (ROOT / "scripts" / "README.md").read_text(), re.MULTILINE))
    present = {p.name for p in (ROOT / "scripts").iterdir() if p.is_file() and p.name != "README.md"}
    assert present - listed == set(), "give each script its line in scripts/README.md"
    assert listed - present == set(), "scripts/README.md lists scripts that are gone"
