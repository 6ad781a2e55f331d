#!/usr/bin/env python3
"""No tracker numbers and no pointers outside the repository where a user or contributor reads:
code, help, messages, scripts and the docs pages say the reason in words (an issue's number and
item mean nothing outside the tracker; git and CHANGELOG.md keep the history) and point only at
files in the repository. Exempt: CHANGELOG.md, the dated design notes, and the recorded
results under docs/results/ (files a command wrote). Prints each place, exits 1 if any.

    python3 scripts/no_outside_references.py [ROOT]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

#: A tracker reference: a `#` and one to three digits (with or without "item N" after it), or the
#: word issue and a number; not an attribute (`#[derive]`), an HTML entity, a CSS colour (`;`
#: after it) or a format's alternate flag (`{:#x}`).
PATTERNS = (
    re.compile(r"(?<![&\w{:#/])#\d{1,3}(?![\w;])"),
    re.compile(r"\b[Ii]ssues?\s+#?\d{1,3}\b"),
)

#: A pointer outside the repository: the first sketch of the design and the papers' text files
#: sit beside the checkout on the developers' machines only (docs/architecture.md is the map,
#: and the papers are cited by title and DOI).
OUTSIDE = (re.compile(r"\.\./shared\b"), re.compile(r"\bshared/(?:design\.md|papers|data)\b"))

#: Files that read the papers where they are beside the checkout, to check the docs' quotations
#: against them (skipped where they are not): the one place a pointer outside is the point.
READS_OUTSIDE = {"python/tests/test_docs_claims.py"}

#: Where people read: sources, scripts, the package, the pages.
GLOBS = (
    "crates/**/*.rs",
    "crates/**/*.c",
    "crates/**/*.h",
    "crates/**/*.toml",
    "crates/**/*.j2",
    "python/**/*.py",
    "python/**/*.pyi",
    "python/**/*.txt",
    "scripts/*",
    "docs/*.md",
    "docs/decisions/*.md",
    "docs/src/*.j2",
    "README.md",
    "Cargo.toml",
    ".ci/*",
)

#: History, kept as written: the changes file. (The decision records are read like any page: they
#: name the work they came from in words.)
EXEMPT = {"CHANGELOG.md"}


def offences(text: str, outside: bool = True) -> list[tuple[int, str]]:
    """The lines of `text` holding a tracker reference (or, with `outside`, a pointer outside
    the repository), numbered from 1."""
    patterns = PATTERNS + OUTSIDE if outside else PATTERNS
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        if any(p.search(line) for p in patterns):
            found.append((n, line.strip()))
    return found


def main(root: Path) -> int:
    bad = 0
    seen: set[Path] = set()
    for glob in GLOBS:
        for path in sorted(root.glob(glob)):
            rel = path.relative_to(root).as_posix()
            if path in seen or not path.is_file() or rel in EXEMPT or "/target/" in f"/{rel}":
                continue
            seen.add(path)
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            for n, line in offences(text, outside=rel not in READS_OUTSIDE):
                print(f"{rel}:{n}: a tracker number or a pointer outside the repository; say it here: {line[:120]}")
                bad += 1
    if bad:
        print(f"no_outside_references: {bad} place(s) in {len(seen)} files", file=sys.stderr)
        return 1
    print(f"no_outside_references: none in {len(seen)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent))
