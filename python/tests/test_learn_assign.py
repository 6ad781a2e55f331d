"""cosched.complete and cosched.assign: the CLI's results."""

from __future__ import annotations

import numpy as np
import pandas as pd

import cosched


def test_complete_equals_the_cli(cli, tmp_path):
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(12, 2)), rng.normal(size=(9, 2))
    full = a @ b.T
    cells = [(f"r{i}", f"c{j}", full[i, j] if rng.uniform() < 0.5 else np.nan) for i in range(12) for j in range(9)]
    df = pd.DataFrame(cells, columns=["row", "col", "value"])
    out = cosched.complete(df, seed=2)
    path = tmp_path / "m.csv"
    path.write_text(
        "row,col,value\n" + "".join(f"{r},{c},{'' if np.isnan(v) else repr(float(v))}\n" for r, c, v in cells)
    )
    cli_out = pd.read_csv(__import__("io").StringIO(cli("complete", str(path), "--seed", "2", parse=False)))
    pred = out[out["predicted"]]
    assert list(pred["row"]) == list(cli_out["row"])
    assert np.allclose(pred["value"].to_numpy(), cli_out["value"].to_numpy(), rtol=0, atol=1e-12)
    assert np.allclose(pred["std"].to_numpy(), cli_out["std"].to_numpy(), rtol=0, atol=1e-12)
    assert out.loc[~out["predicted"], "value"].equals(df.loc[df["value"].notna(), "value"])
    assert out.loc[~out["predicted"], "std"].isna().all()
    assert out.attrs["model"]["chosen"]["kind"] == "bayes"
    sgd = cosched.complete(df, seed=2, model="sgd")
    assert sgd["std"].isna().all() and "validation" in sgd.attrs["model"]


def test_assign_equals_the_cli(cli):
    a = cosched.assign("ultrasparc-t2", "ipfwd-mem", seed=2, samples=400, prune=0.5)
    expected = cli("assign", "--samples", "400", "--prune", "0.5", "--seed", "2", "--format", "json")
    assert a.report == expected
    assert len(a.samples) == expected["measured"]
    assert a.best == a.samples["gips"].max()
    assert a.pot["ci"][0] <= a.pot["upb"] <= a.pot["ci"][1]
