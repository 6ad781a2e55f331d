"""scripts/no_outside_references.py: the rule that code, help, scripts and pages say the reason in
words rather than an issue's number. It finds a made-up reference in each form and in each place
it reads, passes the forms that only look alike, and exempts the history files."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("no_outside_references", ROOT / "scripts" / "no_outside_references.py")
assert _spec is not None and _spec.loader is not None
rule = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rule)

HASH = "#"


def test_each_form_of_a_reference_is_found() -> None:
    for line in [
        f"// A comment ({HASH}66 item 2).",
        f"/// issue {HASH}64 item 1: options declared once",
        f"help: the combined policy (issue {33})",
        f"Issues {HASH}30 and more",
        f"{HASH}7 at the start",
    ]:
        assert rule.offences(line) == [(1, line)], line


def test_a_pointer_outside_the_repository_is_found_except_where_reading_it_is_the_point() -> None:
    up = ".." + "/shared"
    for line in [f"see `{up}/papers/000_x.txt`", "(`shared" + '/design.md`, "Engine")', "shared/" + "data/sources.md"]:
        assert rule.offences(line) == [(1, line)], line
        assert rule.offences(line, outside=False) == [], line
    assert "python/tests/test_docs_claims.py" in rule.READS_OUTSIDE


def test_forms_that_only_look_alike_pass() -> None:
    for line in [
        f"{HASH}[derive(Debug)]",
        f"{HASH}![allow(x)]",
        f"color: {HASH}555; background: {HASH}222;",
        f'format!("{{:{HASH}010x}}", v)',
        f"&{HASH}38; an entity",
        "item 2 of the list, section 4.3, 100 issues' worth",
        f"{HASH}1234 is not a tracker number",
    ]:
        assert rule.offences(line) == [], line


def test_every_place_read_is_checked_and_history_is_exempt(tmp_path: Path) -> None:
    ref = f"see {HASH}66 item 2\n"
    files = {
        "crates/a/src/lib.rs": ref,
        "python/cosched/x.py": ref,
        "scripts/tool": ref,
        "docs/page.md": ref,
        "docs/src/page.md.j2": ref,
        "README.md": ref,
        "CHANGELOG.md": ref,
        "docs/decisions/0001-a-decision.md": ref,
        "docs/decisions/README.md": ref,
        "docs/results/x/out.txt": ref,
        "target/release/build/x.rs": ref,
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert rule.main(tmp_path) == 1
    found = {p for p in files if rule.offences((tmp_path / p).read_text())}
    assert len(found) == len(files)
    for exempt in [
        "CHANGELOG.md",
        "docs/results/x/out.txt",
        "target/release/build/x.rs",
    ]:
        (tmp_path / exempt).unlink()
    for read in [
        "crates/a/src/lib.rs",
        "python/cosched/x.py",
        "scripts/tool",
        "docs/page.md",
        "docs/decisions/0001-a-decision.md",
        "docs/decisions/README.md",
        "README.md",
    ]:
        (tmp_path / read).write_text("fine\n")
    assert rule.main(tmp_path) == 1, "docs/src/page.md.j2 still holds one"
    (tmp_path / "docs/src/page.md.j2").write_text("fine\n")
    assert rule.main(tmp_path) == 0


def test_the_repository_holds_none() -> None:
    assert rule.main(ROOT) == 0
