"""`cosched complete` against an independent numpy FM. The
prediction formula agrees with the literal Eq. 1 to 1e-9 on the fitted
weights, and the completion beats row/column means on a planted matrix."""

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
COSCHED = ROOT / "target" / "release" / "cosched"
sys.path.append(str(ROOT / "python"))  # fm_reference; the installed cosched comes first
import fm_reference as ref

pytestmark = pytest.mark.skipif(not COSCHED.exists(), reason="build cosched first (scripts/test-all does)")


def run_complete(tmp_path, obs, hid, extra=()):
    lines = ["row,col,value"] + [f"r{r},c{c},{v!r}" for r, c, v in obs] + [f"r{r},c{c}," for r, c, _ in hid]
    f = tmp_path / "m.csv"
    f.write_text("\n".join(lines) + "\n")
    out = subprocess.run([str(COSCHED), "complete", str(f), *extra], check=True, capture_output=True, text=True)
    return pd.read_csv(io.StringIO(out.stdout)), out.stderr


def test_prediction_formula_matches_numpy_on_fitted_weights(tmp_path):
    obs, hid = ref.planted(24, 2, 0.4, 0.01, seed=3)
    model_path = tmp_path / "model.json"
    df, _ = run_complete(tmp_path, obs, hid[:200], ["--model", "sgd", "--model-out", str(model_path)])
    m = json.loads(model_path.read_text())
    comp = m["completion"]
    assert comp["chosen"]["kind"] == "fm", comp["chosen"]
    fm = comp["fm"]
    k, n_rows = fm["params"]["k"], len(m["rows"])
    w = np.array(fm["w"])
    v = np.array(fm["v"]).reshape(fm["n"], k)
    mean, sd = comp["scale"]
    row_of = {name: i for i, name in enumerate(m["rows"])}
    col_of = {name: i for i, name in enumerate(m["cols"])}
    for r, c, value in df[["row", "col", "value"]].itertuples(index=False):
        x = [(row_of[r], 1.0), (n_rows + col_of[c], 1.0)]
        want = mean + sd * ref.predict(fm["w0"], w, v, x)
        assert abs(value - want) <= 1e-9 * max(1.0, abs(want)), (r, c, value, want)


def test_completion_beats_the_means_and_a_plain_sgd_fm_is_comparable(tmp_path):
    obs, hid = ref.planted(48, 2, 0.2, 0.05, seed=5)
    df, err = run_complete(tmp_path, obs, hid, ["--model", "sgd"])
    assert "validation RMSE" in err and "row + column means" in err
    truth = {(f"r{r}", f"c{c}"): t for r, c, t in hid}
    ours = np.sqrt(
        np.mean([(v - truth[(r, c)]) ** 2 for r, c, v in df[["row", "col", "value"]].itertuples(index=False)])
    )
    means = ref.row_col_means(48, 48, obs)
    base = np.sqrt(np.mean([(means(r, c) - t) ** 2 for r, c, t in hid]))
    assert ours < 0.7 * base, (ours, base)


def run_unchecked(path):
    return subprocess.run([str(COSCHED), "complete", str(path)], check=False, capture_output=True, text=True)


def test_adversarial_files_give_a_result_or_one_line_error(tmp_path):
    cases = {
        "one_row.csv": "row,col,value\n" + "".join(f"a,{j},{j}\n" for j in range(12)) + "b,3,\n",
        "constant.csv": "".join(f"{i % 5},{i % 7},4\n" for i in range(40)) + "9,9,\n",
        "dups.csv": "x,y,1\nx,y,3\nz,y,\n",
        "order.csv": "9,2,1\n1,7,2\n5,5,3\n9,7,\n",
    }
    for name, text in cases.items():
        f = tmp_path / name
        f.write_text(text)
        out = run_unchecked(f)
        assert out.returncode == 0, (name, out.stderr)
        df = pd.read_csv(io.StringIO(out.stdout))
        assert len(df) == 1 and np.isfinite(df["value"]).all(), (name, out.stdout)
    const = pd.read_csv(io.StringIO(run_unchecked(tmp_path / "constant.csv").stdout))
    assert abs(const["value"][0] - 4.0) < 1e-9
    for name, text, words in [
        ("nan.csv", "a,b,1\na,c,nan\n", ["nan.csv:2", "not a finite number"]),
        ("fields.csv", "a,b\n", ["fields.csv:1", "3 fields"]),
        ("empty.csv", "a,b,\n", ["empty.csv", "no observed values"]),
    ]:
        f = tmp_path / name
        f.write_text(text)
        out = run_unchecked(f)
        assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
        assert all(w in out.stderr for w in words) and "panicked" not in out.stderr, out.stderr
