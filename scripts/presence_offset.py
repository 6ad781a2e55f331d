"""Which recorded programs are slowed by a co-runner's presence rather than by its cache (#66 item 1;
design note 66's next step).

Reads every ``docs/results/runtime/*/record.json`` given (default: all) and, for each job whose
runs are kept, pairs each round's runs with that round's solo run (the fixed sweep's rounds:
`cosched_linux::characterise::measure`'s order) and prints the jobs slowed beside the smallest
fixed pirate beyond their noise (its mean log slowdown above 2.5 standard errors and above 2%)
and no more beside the largest (the per-round difference of the two within 2.5 standard errors):
a response flat from the smallest pirate on, which a cache model can only read as a footprint at
the LLC's size.

    python3 scripts/presence_offset.py [RECORD...]
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from pathlib import Path

# Standard errors a change must exceed, and the least offset counted (2%).
Z = 2.5
LEAST = math.log(1.02)


def paired_logs(runs: list[float], solo: list[float], rounds: int) -> list[float]:
    """Each round's log co-run over the same round's solo run."""
    return [math.log(runs[i] / solo[i]) for i in range(rounds)]


def offsets(path: Path) -> tuple[int, list[tuple[str, float, float]]]:
    """The jobs with kept runs in one record, and those with a flat offset (name, slowdown beside
    the smallest fixed pirate and beside the largest, each the exp of its mean paired log)."""
    rec = json.loads(path.read_text())
    seen, flat = 0, []
    for j in rec["jobs"]:
        fixed = sorted(j["pirates"][:4], key=lambda p: float(p["size"]))
        solo = j.get("solo_runs", [])
        rounds = len(fixed[0]["runs"]) if fixed and fixed[0].get("runs") else 0
        if len(fixed) < 4 or rounds < 2 or len(solo) < rounds:
            continue
        seen += 1
        small, large = (paired_logs(p["runs"], solo, rounds) for p in (fixed[0], fixed[-1]))
        diff = [b - a for a, b in zip(small, large)]
        m, se = statistics.mean(small), statistics.stdev(small) / math.sqrt(rounds)
        d, se_d = statistics.mean(diff), statistics.stdev(diff) / math.sqrt(rounds)
        if m > max(Z * se, LEAST) and abs(d) <= Z * se_d:
            flat.append((j["name"], math.exp(m), math.exp(m + d)))
    return seen, flat


def main(args: list[str]) -> int:
    paths = [Path(a) for a in args] or sorted(Path("docs/results/runtime").glob("*/record.json"))
    total, count = 0, 0
    for p in paths:
        seen, flat = offsets(p)
        total += seen
        count += len(flat)
        for name, small, large in flat:
            print(f"{p.parent.name} {name}: {small:.3f} beside the smallest pirate, {large:.3f} beside the largest")
    print(f"{count} of {total} jobs with runs kept: slowed beside the smallest pirate and no more beside the largest")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
