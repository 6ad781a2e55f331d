"""scripts/refit_sum.py: the checksum that lets scripts/check-results hold a block's refit without a
rerun changes whenever the refit's output could (a file of the block, the code under crates/ or
data/, the workspace's manifest and lock, the scripts that run the refit) or the held file itself
was edited, and only then."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("refit_sum", ROOT / "scripts" / "refit_sum.py")
assert _spec and _spec.loader
rs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rs)

BLOCK = "docs/results/runtime/host-x"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    files = {
        "crates/cosched-sim/src/engine/solve.rs": "fn solve() {}\n",
        "crates/cosched-cli/src/main.rs": "fn main() {}\n",
        "data/machines/m.toml": "name = 'm'\n",
        "data/mixes/host-check/a.toml": "[[job]]\n",
        "Cargo.toml": "[workspace]\n",
        "Cargo.lock": "# lock\n",
        "scripts/host-refit": "#!/bin/sh\n",
        "scripts/refit-lib.sh": "fit_record() { :; }\n",
        "scripts/refit_sum.py": "# itself\n",
        f"{BLOCK}/record.json": "{}\n",
        f"{BLOCK}/check-a.json": "{}\n",
        f"{BLOCK}/mixes/a.toml": "[[job]]\n",
        f"{BLOCK}/refit.md": "# refit\n",
        "docs/runtime.md": "# page\n",
        "python/cosched/sim.py": "x = 1\n",
    }
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path


@pytest.mark.parametrize(
    "changed",
    [
        "crates/cosched-sim/src/engine/solve.rs",
        "crates/cosched-cli/src/main.rs",
        "data/machines/m.toml",
        "data/mixes/host-check/a.toml",
        "Cargo.toml",
        "Cargo.lock",
        "scripts/host-refit",
        "scripts/refit-lib.sh",
        "scripts/refit_sum.py",
        f"{BLOCK}/record.json",
        f"{BLOCK}/check-a.json",
        f"{BLOCK}/mixes/a.toml",
        f"{BLOCK}/refit.md",
    ],
)
def test_a_change_of_an_input_or_of_the_code_changes_the_sum(tree: Path, changed: str) -> None:
    before = rs.digest(tree, Path(BLOCK))
    (tree / changed).write_text((tree / changed).read_text() + "// changed\n")
    assert rs.digest(tree, Path(BLOCK)) != before


@pytest.mark.parametrize("added", ["crates/cosched-sim/src/new.rs", "data/machines/n.toml", f"{BLOCK}/check-b.json"])
def test_a_new_file_changes_the_sum(tree: Path, added: str) -> None:
    before = rs.digest(tree, Path(BLOCK))
    (tree / added).write_text("new\n")
    assert rs.digest(tree, Path(BLOCK)) != before


def test_a_renamed_file_changes_the_sum(tree: Path) -> None:
    before = rs.digest(tree, Path(BLOCK))
    (tree / "data/machines/m.toml").rename(tree / "data/machines/m2.toml")
    assert rs.digest(tree, Path(BLOCK)) != before


@pytest.mark.parametrize(
    "other",
    [
        f"{BLOCK}/refit.sum",
        "docs/runtime.md",
        "python/cosched/sim.py",
        "crates/target/x",
        "data/__pycache__/y.pyc",
        "crates/cosched-cli/tests/new_test.rs",
        "crates/cosched-sim/benches/b.rs",
        "crates/cosched-lab/examples/tour.rs",
    ],
)
def test_the_sum_file_and_what_the_refit_never_reads_leave_it(tree: Path, other: str) -> None:
    before = rs.digest(tree, Path(BLOCK))
    (tree / other).parent.mkdir(parents=True, exist_ok=True)
    (tree / other).write_text("anything\n")
    assert rs.digest(tree, Path(BLOCK)) == before


def test_check_holds_only_what_write_wrote(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # main() reads the tree beside its own file: point it at the fixture's.
    monkeypatch.setattr(rs, "__file__", str(tree / "scripts" / "refit_sum.py"))
    block = str(tree / BLOCK)
    assert rs.main([block, "--check"]) == 1, "no refit.sum yet"
    assert rs.main([block, "--write"]) == 0
    assert (tree / BLOCK / "refit.sum").read_text().strip() == rs.digest(tree, Path(BLOCK))
    assert rs.main([block, "--check"]) == 0
    (tree / "crates/cosched-sim/src/engine/solve.rs").write_text("fn solve() { moved() }\n")
    assert rs.main([block, "--check"]) == 1, "the code moved: a rerun is due"


def test_bad_arguments_are_refused_with_a_message(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert rs.main([]) == 2
    assert rs.main([str(tree / BLOCK), "--nope"]) == 2
    assert rs.main([str(tree / "no-such-folder")]) == 2
    assert "not a folder" in capsys.readouterr().err
