"""docs/results/reruns.toml, the one list of which command writes which file of docs/results
(scripts/check-results reruns it), against the files on disk: every file it names exists, and
every file of docs/results is either rerun by one of its entries or declared as recorded, with
what wrote it and why it is not rerun."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"


def manifest() -> dict[str, Any]:
    return tomllib.loads((RESULTS / "reruns.toml").read_text(encoding="utf-8"))


def rerun_files(m: dict[str, Any]) -> set[str]:
    """Every file of docs/results some entry reruns, relative to docs/results."""
    out: set[str] = set()
    for e in m["paper"]:
        out |= {f"{e['folder']}/{f.name}" for f in (RESULTS / e["folder"]).iterdir() if f.is_file()}
    out |= {e["file"] for e in m["output"]}
    out |= set(m["validate"]["files"].values())
    for d in (RESULTS / "runtime").iterdir():
        if not d.is_dir():
            continue
        blocks = m["block"] if any(d.glob("check-*.json")) else []
        out |= {f"runtime/{d.name}/{e['file']}" for e in [*blocks, m["refit"]] if (d / e["file"]).is_file()}
    return out


def unclaimed(m: dict[str, Any], files: list[str]) -> list[str]:
    """The files of `files` neither rerun nor declared recorded."""
    rerun = rerun_files(m)
    globs = [r["paths"] for r in m["recorded"]]
    return [f for f in files if f not in rerun and not any(fnmatch.fnmatch(f, g) for g in globs)]


def test_every_file_named_exists() -> None:
    m = manifest()
    missing = [e["folder"] for e in m["paper"] if not (RESULTS / e["folder"] / "report.md").is_file()]
    missing += [e["file"] for e in m["output"] if not (RESULTS / e["file"]).is_file()]
    missing += [f for f in m["validate"]["files"].values() if not (RESULTS / f).is_file()]
    assert not missing, f"docs/results/reruns.toml names files that do not exist: {missing}"
    assert all(r["by"] and r["why"] for r in m["recorded"]), "a recorded entry without `by` or `why`"


def test_every_file_of_the_results_is_rerun_or_declared_recorded() -> None:
    m = manifest()
    files = sorted(str(f.relative_to(RESULTS)) for f in RESULTS.rglob("*") if f.is_file())
    assert len(files) > 100
    left = unclaimed(m, files)
    assert not left, f"files of docs/results that docs/results/reruns.toml neither reruns nor declares: {left}"
    # The check can fail: a file no entry names is found.
    assert unclaimed(m, [*files, "newstudy/table.csv"]) == ["newstudy/table.csv"]
