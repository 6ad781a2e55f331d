"""Matrix-completion benchmark for scripts/bench-fm: planted
low-rank matrices (sizes 32-256, ranks 1-4, 2-30% observed, noise 0.05)
completed by `cosched complete` (its default Bayesian FM, rank 8, 400 Gibbs
iterations; and `--model sgd`, the self-tuning SGD FM), by myFM (the
independent Bayesian FM, same rank and iterations, one-hot features, seed 1),
by row/column means and by a plain SGD FM in numpy (python/fm_reference.py:
k 8, lr 0.02, reg 0.01, 60 epochs — SLITS's online settings, untuned);
held-out RMSE on the hidden cells and wall time of each completion, measured
in the same run."""

import io
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sps

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
import fm_reference as ref

COSCHED = ROOT / "target" / "release" / "cosched"


def rmse(pred, hid):
    return float(np.sqrt(np.mean([(pred(r, c) - t) ** 2 for r, c, t in hid])))


def cosched_complete(obs, hid, model):
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "m.csv"
        lines = [f"{r},{c},{v!r}" for r, c, v in obs] + [f"{r},{c}," for r, c, _ in hid]
        f.write_text("row,col,value\n" + "\n".join(lines) + "\n")
        t0 = time.perf_counter()
        cmd = [str(COSCHED), "complete", str(f), "--model", model]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True)
        dt = time.perf_counter() - t0
    df = pd.read_csv(io.StringIO(out.stdout))
    got = {(int(r), int(c)): v for r, c, v in df[["row", "col", "value"]].itertuples(index=False)}
    return (lambda r, c: got[(r, c)]), dt


def myfm_complete(n, obs, hid):
    """myFM's Bayesian FM at our default settings (rank 8, 400 iterations, 300 kept); None when not installed."""
    try:
        import myfm
    except ImportError:
        return None, float("nan")

    def onehot(cells):
        i = np.array([r for r, _, _ in cells])
        j = np.array([c for _, c, _ in cells])
        data = (np.ones(2 * len(cells)), (np.repeat(np.arange(len(cells)), 2), np.c_[i, n + j].ravel()))
        return sps.csr_matrix(data, shape=(len(cells), 2 * n))

    t0 = time.perf_counter()
    fm = myfm.MyFMRegressor(rank=8, random_seed=1)
    fm.fit(onehot(obs), np.array([v for _, _, v in obs]), n_iter=400, n_kept_samples=300)
    pred = fm.predict(onehot(hid))
    dt = time.perf_counter() - t0
    got = {(r, c): p for (r, c, _), p in zip(hid, pred)}
    return (lambda r, c: got[(r, c)]), dt


def main():
    print(
        "| n | rank | observed | global mean | row/col means | plain SGD FM | cosched sgd | cosched bayes | myFM"
        " | sgd s | bayes s | myFM s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    wins = {"means": 0, "sgd": 0, "plain": 0, "myfm10": 0}
    total = 0
    for n in (32, 64, 128, 256):
        for rank in (1, 2, 4):
            for share in (0.02, 0.10, 0.30):
                obs, hid = ref.planted(n, rank, share, 0.05, seed=n * 100 + rank * 10 + int(share * 100))
                if len(obs) < 2:
                    continue
                mu = float(np.mean([v for _, _, v in obs]))
                g = float(np.sqrt(np.mean([(mu - t) ** 2 for _, _, t in hid])))
                m = rmse(ref.row_col_means(n, n, obs), hid)
                p = rmse(ref.plain_sgd_fm(n, n, obs, k=8, lr=0.02, reg=0.01, epochs=60, seed=1), hid)
                pred, dt_s = cosched_complete(obs, hid, "sgd")
                s_ = rmse(pred, hid)
                pred, dt_b = cosched_complete(obs, hid, "bayes")
                b = rmse(pred, hid)
                pred, dt_m = myfm_complete(n, obs, hid)
                y = rmse(pred, hid) if pred else float("nan")
                total += 1
                wins["means"] += b <= m
                wins["sgd"] += b <= s_
                wins["plain"] += b <= p
                wins["myfm10"] += b <= 1.1 * y
                print(
                    f"| {n} | {rank} | {share:.0%} ({len(obs)}) | {g:.4f} | {m:.4f} | {p:.4f} | {s_:.4f} | {b:.4f}"
                    f" | {y:.4f} | {dt_s:.2f} | {dt_b:.2f} | {dt_m:.2f} |"
                )
                sys.stdout.flush()
    print()
    print(
        f"cosched bayes <= row/col means on {wins['means']}/{total}; <= cosched sgd on {wins['sgd']}/{total};"
        f" <= plain SGD FM on {wins['plain']}/{total}; within 10% of myFM (or better) on {wins['myfm10']}/{total}"
        " (held-out RMSE, one seed each)"
    )


if __name__ == "__main__":
    main()
