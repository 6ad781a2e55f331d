"""What time-sharing cost each job of a host check, measured and simulated.

Reads the ``check-*.json`` files of a ``scripts/host-check`` directory and writes, to stdout, one
table a mix (every cell's CPU time over its solo CPU time, switches and migrations per run:
measured mean and 95% interval over the rounds, then the simulator's figure) and one table over
all mixes by policy: the cells' median measured and simulated CPU ratio, the median |error| of
the simulated ratio, and the median switches per run, measured and simulated. A check made before
the figures existed has none; such a file is named and skipped. Each cell also gives the CPU time
one switch added, in ms: (CPU ratio - 1) x the job's median solo time / its switches (measured:
per involuntary switch; simulated: per start after another thread), the solo run taken as all CPU
time: what a refill costs, as the host and the model charge it. Last, by policy, the median of the
simulated CPU ratio over the measured one, minus 1 (signed: below 0, the model charges less
time-sharing than the host did), with a 95% percentile-bootstrap interval over the mixes (the unit:
a mix's cells share its rounds and its hour; 2,000 draws, seed 1, as `host_check_summary.py`) and
its verdict, none for fewer than three mixes.

    python3 scripts/time_sharing_summary.py DIR > DIR/time-sharing.md
"""

from __future__ import annotations

import json
import random
import statistics
import sys
from pathlib import Path


def ci(m: dict[str, float], digits: int) -> str:
    """A mean and its 95% interval."""
    return f"{m['mean']:.{digits}f} ({m['lo']:.{digits}f}-{m['hi']:.{digits}f})"


def per_switch(ratio: dict[str, float] | float, solo_s: float | None, switches: float) -> str:
    """The CPU time one switch added, ms (none without a solo time or a switch); for a measured
    ratio, with the interval its ratio's 95% interval gives (the switches taken at their mean)."""
    if solo_s is None or switches < 1:
        return "none"
    solo = solo_s

    def ms(x: float) -> float:
        return 1000 * (x - 1) * solo / switches

    if isinstance(ratio, dict):
        return f"{ms(ratio['mean']):.2f} ({ms(ratio['lo']):.2f}-{ms(ratio['hi']):.2f})"
    return f"{ms(ratio):.2f}"


DRAWS = 2000
# Fewest mixes a bootstrap interval over them is drawn from.
LEAST_MIXES = 3


def signed_interval(by_mix: dict[str, list[float]]) -> tuple[float, float, float] | None:
    """The median of the pooled cells' signed errors and its 95% percentile-bootstrap interval,
    the mixes resampled with replacement (none for fewer than `LEAST_MIXES` mixes)."""
    mixes = sorted(by_mix)
    if len(mixes) < LEAST_MIXES:
        return None
    rng = random.Random(1)
    point = statistics.median(x for m in mixes for x in by_mix[m])
    draws = sorted(
        statistics.median(x for m in (rng.choice(mixes) for _ in mixes) for x in by_mix[m]) for _ in range(DRAWS)
    )
    return point, draws[int(0.025 * (DRAWS - 1))], draws[round(0.975 * (DRAWS - 1))]


def charged_table(signed: dict[str, dict[str, list[float]]]) -> None:
    """By policy: the simulated CPU ratio's signed error, its interval over the mixes, the verdict."""
    print("\n## The model's charge for time-sharing, with its interval over the mixes\n")
    print(
        "| policy | mixes | cpu simulated over measured - 1, median | 95% low | 95% high | verdict |\n"
        "|---|---|---|---|---|---|"
    )
    for policy, by_mix in signed.items():
        iv = signed_interval(by_mix)
        if iv is None:
            print(f"| {policy} | {len(by_mix)} | none | none | none | too few mixes for an interval |")
            continue
        point, lo, hi = iv
        verdict = "under-charged" if hi < 0.0 else "over-charged" if lo > 0.0 else "no difference"
        print(f"| {policy} | {len(by_mix)} | {100 * point:+.1f}% | {100 * lo:+.1f}% | {100 * hi:+.1f}% | {verdict} |")


def main(d: Path) -> int:
    files = sorted(d.glob("check-*.json"))
    if not files:
        print(f"time_sharing_summary: {d}: no check-*.json files", file=sys.stderr)
        return 1
    date = (d / "date.txt").read_text().strip() if (d / "date.txt").exists() else "date not recorded"
    print(f"# What time-sharing cost each job, measured and simulated ({date})\n")
    print(
        "Each cell: the job's CPU time over the same round's solo CPU time (`cpu`), its context switches "
        "per run (voluntary and involuntary; a freezer's stop is a voluntary one) and its leader's moves "
        "between CPUs, measured (mean and 95% interval over the rounds: `wait4` rusage and `/proc/PID/sched`) "
        "and simulated (the engine's time on a context over the solo time, its starts after another thread, "
        "its starts on another core). Written by `scripts/time_sharing_summary.py` from the `check-*.json` "
        'files beside it (docs/runtime.md, "What time-sharing cost each job"). `ms a switch`: the CPU time one '
        "switch added, (cpu - 1) x the job's median solo time / its switches (measured: involuntary ones; "
        "simulated: starts after another thread; none where it has none), the solo run taken as all CPU time; "
        "measured with the interval of its cpu ratio, the switches taken at their mean.\n"
    )
    by_policy: dict[str, list[tuple[float, float, float, float, float, bool]]] = {}
    # Policy -> mix -> each cell's simulated CPU ratio over its measured mean, minus 1.
    signed: dict[str, dict[str, list[float]]] = {}
    for f in files:
        check = json.loads(f.read_text())["check"]
        r = check["result"]
        names: list[str] = check.get("mix_jobs", [])
        solo = {n: statistics.median(row[i] for row in r["solo_s"]) for i, n in enumerate(names)}
        cells = [j for j in r["jobs"] if j.get("time_sharing")]
        if not cells:
            print(f"`{f.name}`: no time-sharing figures (a check made before they were measured).\n")
            continue
        print(f"## {f.stem[len('check-') :]} (`{f.name}`)\n")
        print(
            "| policy | job | cpu measured | cpu simulated | switches measured | involuntary | switches simulated "
            "| migrations measured | migrations simulated | ms a switch measured | ms a switch simulated |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for j in cells:
            t = j["time_sharing"]
            p = t["predicted"]
            mig = ci(t["migrations"], 0) if t.get("migrations") else "unmeasured"
            print(
                f"| {j['policy']} | {j['job']} | {ci(t['cpu_ratio'], 3)} | {p['cpu_ratio']:.3f} "
                f"| {ci(t['switches'], 0)} | {t['involuntary']['mean']:.0f} | {p['switches']:.0f} "
                f"| {mig} | {p['migrations']:.0f} "
                f"| {per_switch(t['cpu_ratio'], solo.get(j['job']), t['involuntary']['mean'])} "
                f"| {per_switch(p['cpu_ratio'], solo.get(j['job']), p['switches'])} |"
            )
            policy = j["policy"].split("#")[0]
            c = t["cpu_ratio"]
            signed.setdefault(policy, {}).setdefault(f.stem, []).append(p["cpu_ratio"] / c["mean"] - 1.0)
            by_policy.setdefault(policy, []).append(
                (
                    c["mean"],
                    p["cpu_ratio"],
                    t["switches"]["mean"],
                    p["switches"],
                    t["involuntary"]["mean"],
                    c["lo"] <= p["cpu_ratio"] <= c["hi"],
                )
            )
        print()
    if not by_policy:
        return 0
    print("## Over all mixes, by policy\n")
    print(
        "| policy | cells | cpu measured, median | cpu simulated, median | median abs error of cpu "
        "| cpu simulated inside the measured interval | cpu simulated above it "
        "| switches measured, median | involuntary, median | switches simulated, median |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for policy, xs in by_policy.items():
        med = statistics.median
        err = med(abs(x[1] / x[0] - 1.0) for x in xs)
        above = sum(1 for x in xs if not x[5] and x[1] > x[0])
        print(
            f"| {policy} | {len(xs)} | {med(x[0] for x in xs):.3f} | {med(x[1] for x in xs):.3f} | {100 * err:.1f}% "
            f"| {sum(x[5] for x in xs)} | {above} | {med(x[2] for x in xs):.0f} | {med(x[4] for x in xs):.0f} "
            f"| {med(x[3] for x in xs):.0f} |"
        )
    charged_table(signed)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/results/runtime/host-check")))
