"""The worked example of docs/policies.md runs as written, its
quoted policy is the module's, its table is what a rerun writes, and the
Python policy equals its Rust twin byte for byte."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import pytest

import cosched
from cosched.examples import MpkiPairs

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "policies.md"
TABLE = ROOT / "docs" / "results" / "policies" / "mpki-pairs.csv"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


def test_the_quoted_policy_is_the_module_source():
    first = _blocks()[0]
    assert inspect.getsource(MpkiPairs) in first


def test_the_worked_example_runs_and_regenerates_its_table(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for block in _blocks():
        exec(compile(block, str(DOC), "exec"), namespace)  # noqa: S102 - the documentation's own code
    assert namespace["one"].metrics["makespan_s"] > 0
    written = (tmp_path / "mpki-pairs.csv").read_text()
    assert written == TABLE.read_text(), "docs/results/policies/mpki-pairs.csv is stale: copy the rerun's"
    # The table in the text is the file's.
    text = DOC.read_text()
    for line in written.splitlines()[1:]:
        versus, gain, half = line.split(",")
        sign = "−" if gain.startswith("-") else ("+" if float(gain) > 0 else "")
        shown = f"{sign}{abs(float(gain)):.3f} ±{float(half):.3f}"
        assert f"| {versus} " in text and shown in text, (versus, shown)


@pytest.mark.parametrize(
    ("machine", "workload"), [("xeon-e5645", "spec-mix8"), ("i5-2500", "spec-mix8"), ("xeon-e5645", "spec-mix24")]
)
def test_the_python_policy_and_its_rust_twin_give_the_same_report(machine, workload):
    mine = cosched.simulate(machine, workload, MpkiPairs(), seed=4, timing=False).report
    theirs = cosched.simulate(machine, workload, "mpki-pairs", seed=4, timing=False).report
    assert mine.pop("policy") == "mpki-pairs-py" and theirs.pop("policy") == "mpki-pairs"
    assert json.dumps(mine, sort_keys=True) == json.dumps(theirs, sort_keys=True)
