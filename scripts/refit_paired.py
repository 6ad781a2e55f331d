"""Each refit arm against refit, paired on the same cells (`scripts/host-refit`).

Reads DIR/NAME.ARM.json (`calibrate --check --replay --format json` of mix NAME from arm ARM's
programs file; each cell's error unrounded, so a verdict is decided on the cells, not on printed text) and prints, per arm, the difference of its median and 90th-percentile
|error| from refit's over the same cells, with a 95% interval from bootstrap draws of
the mixes (cells of one mix move together: they share its rounds and its host).

    python3 scripts/refit_paired.py DIR [ARM...]   # every arm of ARMS, or those named
"""

from __future__ import annotations

import random
import statistics
import sys
from pathlib import Path

from refit_cells import errors
from small_stats import p90

ARMS = ("recorded", "none", "random", "whole", "fixed", "presence")
DRAWS = 2000
SEED = 66


def paired(base: dict[str, list[float]], arm: dict[str, list[float]], names: list[str]) -> str:
    """The arm's median and 90th-percentile |error| minus refit's, each with its interval."""
    rng = random.Random(SEED)

    def diff(pick: list[str]) -> tuple[float, float]:
        a = [e for n in pick for e in arm[n]]
        b = [e for n in pick for e in base[n]]
        return statistics.median(a) - statistics.median(b), p90(a) - p90(b)

    point = diff(names)
    draws = [diff([rng.choice(names) for _ in names]) for _ in range(DRAWS)]
    parts = []
    for k, what in enumerate(("median", "90th percentile")):
        qs = statistics.quantiles([d[k] for d in draws], n=40, method="inclusive")
        lo, hi = qs[0], qs[-1]
        verdict = "no difference" if lo <= 0.0 <= hi else ("worse" if lo > 0.0 else "better")
        parts.append(f"{what} {point[k]:+.1f} ({lo:+.1f} to {hi:+.1f}: {verdict})")
    return "; ".join(parts)


def main() -> None:
    """Print one line per arm (the arms named after the directory, else every one of `ARMS`)."""
    tmp = Path(sys.argv[1])
    arms = tuple(sys.argv[2:]) or ARMS
    names = sorted({p.name.split(".")[0] for p in tmp.glob("*.refit.json")})
    if len(names) < 3:
        print(f"{len(names)} mix(es): too few to draw an interval from")
        return
    base = {n: errors(tmp / f"{n}.refit.json") for n in names}
    for a in arms:
        arm = {n: errors(tmp / f"{n}.{a}.json") for n in names}
        if any(len(arm[n]) != len(base[n]) for n in names):
            sys.exit(f"refit_paired: {a}: its replays print other cells than refit's")
        print(f"{a:<9} - refit over {len(names)} mixes: {paired(base, arm, names)}")


if __name__ == "__main__":
    main()
