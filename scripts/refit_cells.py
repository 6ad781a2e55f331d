"""The cells of `calibrate --check --replay --format json` as `scripts/host-refit` summarises them:
each replay's line, and each arm's figures over its replays, read from the unrounded cells.

    python3 scripts/refit_cells.py line REPLAY.json      # the replay's median and worst |error|
    python3 scripts/refit_cells.py arm ARM DIR           # ARM's figures over DIR/*.ARM.json
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any

from small_stats import p90


def cells(path: Path) -> list[dict[str, Any]]:
    """The replay's cells, in the order replayed."""
    out: list[dict[str, Any]] = json.loads(path.read_text())["cells"]
    return out


def errors(path: Path) -> list[float]:
    """Today's |error| of each cell of one replay, in percent, unrounded."""
    return [100 * abs(c["replayed"] / c["measured"] - 1) for c in cells(path)]


def line(path: Path) -> str:
    """The replay's summary line, as `calibrate --check --replay` prints it."""
    r = json.loads(path.read_text())
    m, w, b = r["median_abs_error"], r["worst_abs_error"], r["beyond_worst"]
    return (
        f"median |error| {100 * m[0]:.1f}% recorded; {100 * m[1]:.1f}% today; worst {100 * w[0]:.1f}% recorded, "
        f"{100 * w[1]:.1f}% today; beyond 30%: {b[0]} recorded, {b[1]} today"
    )


def arm(name: str, d: Path) -> str:
    """An arm's figures over every replay of it in `d`: median, 90th percentile and max |error|,
    and where measured the CPU ratio's median |error| and how many lie inside their interval."""
    e: list[float] = []
    cpu: list[float] = []
    inside = 0
    for f in sorted(d.glob(f"*.{name}.json")):
        for c in cells(f):
            e.append(100 * abs(c["replayed"] / c["measured"] - 1))
            m, today = c.get("measured_cpu"), c.get("replayed_cpu")
            if m and today is not None:
                cpu.append(100 * abs(today / m["mean"] - 1))
                inside += m["lo"] <= today <= m["hi"]
    out = (
        f"{name:<9} {len(e)} cells: median {statistics.median(e):.1f}%, 90th percentile {p90(e):.1f}%, "
        f"max {max(e):.1f}%"
    )
    if cpu:
        out += f"; CPU ratio median |error| {statistics.median(cpu):.1f}%, inside {inside} of {len(cpu)}"
    return out


def main(args: list[str]) -> int:
    if args[:1] == ["line"] and len(args) == 2:
        print(line(Path(args[1])))
    elif args[:1] == ["arm"] and len(args) == 3:
        print(arm(args[1], Path(args[2])))
    else:
        print("refit_cells: usage: refit_cells.py line REPLAY.json | arm ARM DIR", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
