"""`cosched compare --format csv` loads with
pandas.read_csv into numeric columns, mean and interval apart."""

import io
import subprocess
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
COSCHED = ROOT / "target" / "release" / "cosched"


@pytest.mark.skipif(not COSCHED.exists(), reason="build cosched first (scripts/test-all does)")
def test_compare_csv_is_numeric_for_pandas():
    out = subprocess.run(
        [str(COSCHED), "compare", "-w", "mcf", "-m", "i5-2500", "--policies", "cfs,g-rrs,random"]
        + ["--seeds", "3", "--format", "csv", "--no-timing"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    df = pd.read_csv(io.StringIO(out))
    assert list(df["policy"]) == ["cfs", "g-rrs", "random"]
    numeric = [c for c in df.columns if c.endswith(("_mean", "_lo", "_hi"))]
    assert len(numeric) == 15 * 3  # the 15 summarised metrics of compare (gap_to_bound_pct included)
    for c in numeric:
        assert pd.api.types.is_numeric_dtype(df[c]), f"{c} is {df[c].dtype}"
    assert (df["seeds"] == 3).all()
    base = df.set_index("policy").loc["cfs"]
    assert base["speedup_mean"] == pytest.approx(1.0)
    assert (df["makespan_s_lo"] <= df["makespan_s_mean"]).all()
    assert (df["makespan_s_mean"] <= df["makespan_s_hi"]).all()
