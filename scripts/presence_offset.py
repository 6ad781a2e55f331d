"""Which recorded programs are slowed by a co-runner's presence rather than by its cache
(design note 66's next step).

Reads every ``docs/results/runtime/*/record.json`` given (default: all) and, for each job whose
runs are kept, pairs each round's runs with that round's solo run (the fixed sweep's rounds:
`cosched_linux::characterise::measure`'s order) and prints the jobs slowed beside the smallest
fixed pirate beyond their noise (its mean log slowdown above 2.5 standard errors and above 2%)
and no more beside the largest (the per-round difference of the two within 2.5 standard errors):
a response flat from the smallest pirate on, which a cache model can only read as a footprint at
the LLC's size.

For a record that also ran each job beside a compute loop (design note 67: `presence`), it prints
the premise of the presence factor job by job: the slowdown beside the compute loop, each round's
run over its solo run, with its 95% interval (t over the rounds), and the smallest pirate's paired
difference from it (log ratio, its interval): a compute loop holds no cache, so where the two do
not differ the slowdown beside the smallest pirate is the other core's presence, not its cache.

    python3 scripts/presence_offset.py [RECORD...]
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from pathlib import Path

from small_stats import half_width

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


def interval(xs: list[float]) -> tuple[float, float, float]:
    """Mean of `xs` and its 95% interval (t over their count)."""
    m, h = statistics.mean(xs), half_width(xs)
    return m, m - h, m + h


def presence(path: Path) -> list[str]:
    """One line per job of a record with compute-loop runs: the premise of the presence factor."""
    rec = json.loads(path.read_text())
    out = []
    for j in rec["jobs"]:
        pres, solo = j.get("presence"), j.get("solo_runs", [])
        if not pres or len(pres.get("runs", [])) < 2 or not j["pirates"]:
            continue
        rounds = len(pres["runs"])
        small = min(j["pirates"][:4], key=lambda p: float(p["size"]))
        if len(small["runs"]) < rounds or len(solo) < rounds:
            continue
        c = paired_logs(pres["runs"], solo, rounds)
        d = [math.log(small["runs"][i] / pres["runs"][i]) for i in range(rounds)]
        m, lo, hi = interval(c)
        dm, dlo, dhi = interval(d)
        beyond = "slowed" if lo > 0 else ("faster" if hi < 0 else "within noise")
        same = (
            "no difference" if dlo <= 0 <= dhi else ("more beside the pirate" if dlo > 0 else "less beside the pirate")
        )
        out.append(
            f"{path.parent.name} {j['name']}: compute loop {math.exp(m):.3f} ({math.exp(lo):.3f}-{math.exp(hi):.3f}, {beyond}); "
            f"the {small['size']} MiB pirate over it {math.exp(dm):.3f} ({math.exp(dlo):.3f}-{math.exp(dhi):.3f}, {same}); {rounds} rounds"
        )
    return out


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
    lines = [line for p in paths for line in presence(p)]
    if lines:
        print("\nBeside a compute loop (design note 67), each round against its own solo run:")
        print("\n".join(lines))
        slowed = sum(": compute loop" in x and ", slowed)" in x for x in lines)
        same = sum("no difference)" in x for x in lines)
        print(
            f"{slowed} of {len(lines)} jobs slowed beside the compute loop beyond their noise; "
            f"{same} of {len(lines)} no different beside the smallest pirate than beside it"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
