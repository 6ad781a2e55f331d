"""docs/python.md's tour runs: every ```python block, in order, in one namespace."""

from __future__ import annotations

import os
import re
from pathlib import Path

import matplotlib.pyplot as plt

DOC = Path(__file__).resolve().parents[2] / "docs" / "python.md"


def test_the_tour_runs_and_its_asserts_hold(monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)
    assert len(blocks) >= 10
    monkeypatch.chdir(DOC.parents[1])  # figures read docs/results from the working tree
    monkeypatch.delenv("COSCHED_RESULTS", raising=False)
    ns: dict[str, object] = {"__name__": "__main__"}
    for i, code in enumerate(blocks):
        exec(compile(code, f"{DOC.name} block {i + 1}", "exec"), ns)  # noqa: S102 (the docs are ours)
    assert os.getcwd() == str(DOC.parents[1])
    plt.close("all")


def test_the_tour_runs_as_a_plain_script_outside_the_repository(tmp_path):
    """As a user would: the blocks saved as one script, run by the interpreter
    from a folder outside the repository, with COSCHED_RESULTS as the docs say."""
    import subprocess
    import sys

    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)
    script = tmp_path / "tour.py"
    script.write_text("\n".join(blocks))
    env = {**os.environ, "COSCHED_RESULTS": str(DOC.parents[1] / "docs" / "results"), "MPLBACKEND": "Agg"}
    r = subprocess.run(
        [sys.executable, str(script)], check=False, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert r.returncode == 0, r.stderr[-3000:]
