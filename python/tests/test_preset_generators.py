"""The generated workload presets are what their generators write today: each of
`scripts/gen-{spec,parsec,rda}-presets.py` run into a temporary folder writes, for every file it
names, the bytes committed under `data/workloads/` (an edit made to a preset by hand, or to a
generator without rerunning it, fails here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("generator", ["gen-spec-presets.py", "gen-parsec-presets.py", "gen-rda-presets.py"])
def test_every_generated_preset_is_committed_as_generated(generator: str, tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(ROOT / "scripts" / generator), str(tmp_path)], check=True, capture_output=True)
    written = sorted(tmp_path.glob("*.toml"))
    assert len(written) >= 5, f"{generator} wrote {len(written)} presets"
    stale = [p.name for p in written if p.read_bytes() != (ROOT / "data" / "workloads" / p.name).read_bytes()]
    assert not stale, f"data/workloads differs from {generator}'s output (rerun it): {stale}"
