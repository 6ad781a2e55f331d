"""Matrix-completion benchmark for scripts/bench-fm (issue #14): planted
low-rank matrices (sizes 32-256, ranks 1-4, 2-30% observed, noise 0.05)
completed by `cosched complete`, by row/column means and by a plain SGD FM
in numpy (python/fm_reference.py: k 8, lr 0.02, reg 0.01, 60 epochs —
SLITS's online settings, untuned); held-out RMSE on the hidden cells."""

import io
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
import fm_reference as ref

COSCHED = ROOT / "target" / "release" / "cosched"


def rmse(pred, hid):
    return float(np.sqrt(np.mean([(pred(r, c) - t) ** 2 for r, c, t in hid])))


def cosched_complete(obs, hid):
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "m.csv"
        lines = [f"{r},{c},{v!r}" for r, c, v in obs] + [f"{r},{c}," for r, c, _ in hid]
        f.write_text("row,col,value\n" + "\n".join(lines) + "\n")
        t0 = time.perf_counter()
        out = subprocess.run([str(COSCHED), "complete", str(f)], check=True, capture_output=True, text=True)
        dt = time.perf_counter() - t0
    df = pd.read_csv(io.StringIO(out.stdout))
    got = {(int(r), int(c)): v for r, c, v in df.itertuples(index=False)}
    chosen = "FM" if "chosen FM" in out.stderr else "means"
    return (lambda r, c: got[(r, c)]), chosen, dt


def main():
    print(
        "| n | rank | observed | global mean | row/col means | plain SGD FM | cosched complete | chosen | cosched s |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    wins_means = wins_global = wins_plain = total = 0
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
                pred, chosen, dt = cosched_complete(obs, hid)
                c = rmse(pred, hid)
                total += 1
                wins_means += c <= m
                wins_global += c <= g
                wins_plain += c <= p
                print(
                    f"| {n} | {rank} | {share:.0%} ({len(obs)}) | {g:.4f} | {m:.4f} | {p:.4f} | {c:.4f} | {chosen} | {dt:.2f} |"
                )
                sys.stdout.flush()
    print()
    print(
        f"cosched complete <= row/col means on {wins_means}/{total}; <= global mean on {wins_global}/{total};"
        f" <= plain SGD FM on {wins_plain}/{total} (held-out RMSE)"
    )


if __name__ == "__main__":
    main()
