"""Shared fixtures: the CLI binary the Python results are checked against."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import matplotlib
import pytest

matplotlib.use("Agg")  # figures render without a display

ROOT = Path(__file__).resolve().parents[2]
COSCHED = ROOT / "target" / "release" / "cosched"


@pytest.fixture(scope="session")
def cli():
    """Run the `cosched` CLI and return its stdout (JSON parsed when asked)."""
    if not COSCHED.exists():
        pytest.skip("build cosched first (scripts/test-all does)")

    def run(*args: str, parse: bool = True, check: bool = True) -> Any:
        p = subprocess.run([str(COSCHED), *args], check=False, capture_output=True, text=True)
        if check and p.returncode != 0:
            raise AssertionError(f"cosched {' '.join(args)}: {p.stderr}")
        if not check:
            return p
        return json.loads(p.stdout) if parse else p.stdout

    return run
