"""Summary of scripts/mechanisms: each paper's headline figures with issue
the time-sharing mechanisms on (docs/results, the presets' default) and off
(docs/results/mechanisms/<arm>/), mean ±95% half-width as the CSVs hold them,
and for every paper how many of its CSV cells moved beyond their interval.
"""

import csv
import json
import math
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "docs" / "results"
ARMS = ["conserve-only", "off"]

# (paper, file, row key: first column(s), column): what docs/<paper>.md leads with.
HEADLINES = [
    ("efs", "fig8.csv", ("average",), "system energy saving %"),
    ("efs", "fig8.csv", ("average",), "speedup %"),
    ("efs", "fig10.csv", ("average",), "system energy saving %"),
    ("efs", "fig10.csv", ("average",), "speedup %"),
    ("slits", "headline.csv", ("slits-contention", "g-rrs"), "speedup %"),
    ("slits", "headline.csv", ("slits-contention", "cfs"), "speedup %"),
    ("slits", "fig678-ablation.csv", ('periodic 4 ms (paper\'s "without Lazy")',), "speedup vs full SLITS %"),
    ("slits", "pairing-rules.csv", ("FM - round-robin, per-core",), "speedup %"),
    ("perf-fair", "fig1-unfairness.csv", ("geomean",), "cfs unfairness"),
    ("perf-fair", "fig1-unfairness.csv", ("geomean",), "perf-fair unfairness"),
    ("perf-fair", "fig2-speedup.csv", ("geomean",), "perf speedup %"),
    ("perf-fair", "fig2-speedup.csv", ("geomean",), "fair speedup %"),
    ("perf-fair", "fig2-speedup.csv", ("geomean",), "perf-fair speedup %"),
    ("rda", "summary.csv", ("rda-strict",), "mean speedup %"),
    ("rda", "summary.csv", ("rda-strict",), "mean energy saved %"),
    ("rda", "summary.csv", ("rda-compromise",), "mean speedup %"),
    ("evt", "pot.csv", ("aho-corasick",), "UPB"),
]


def table(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def cell(rows: list[dict[str, str]], key: tuple[str, ...], col: str) -> str:
    for r in rows:
        vals = list(r.values())
        if tuple(vals[: len(key)]) == key:
            mean, half = r.get(col, ""), r.get(f"{col} ci95", "")
            try:
                m = float(mean)
            except ValueError:
                return mean or "n/a"
            if not math.isfinite(m):
                return "n/a"
            # Unfairness is a ratio (max slowdown / min slowdown): three decimals, no sign.
            if "unfairness" in col:
                return f"{m:.3f} ±{float(half):.3f}" if half else f"{m:.3f}"
            return f"{m:+.2f} ±{float(half):.2f}" if half else f"{m:+.2f}"
    return "n/a"


def moved(off: Path, on: Path) -> tuple[int, int]:
    """(cells whose means moved beyond the larger of their two intervals, numeric cells)."""
    a, b = table(off), table(on)
    n = beyond = 0
    for ra, rb in zip(a, b):
        for col, va in ra.items():
            if col is None or col.endswith(" ci95"):
                continue
            try:
                x, y = float(va), float(rb.get(col, ""))
            except (TypeError, ValueError):
                continue
            n += 1
            hx = float(ra.get(f"{col} ci95") or 0)
            hy = float(rb.get(f"{col} ci95") or 0)
            if abs(x - y) > max(hx, hy, 1e-9):
                beyond += 1
    return beyond, n


def main() -> None:
    print("# Time-sharing mechanisms on and off: every paper rerun (scripts/mechanisms)\n")
    print(
        "On: docs/results (the presets' default: `cache.conserve_capacity` and `costs.refill_by_access`). "
        "`conserve-only`: `costs.refill_by_access = false`; `off`: both false (the model before the two mechanisms). "
        "Same seeds; mean ±95% half-width.\n"
    )
    print("| paper | figure | on | " + " | ".join(ARMS) + " |")
    print("|---|---|---|" + "---|" * len(ARMS))
    for paper, f, key, col in HEADLINES:
        off = cell(table(ROOT / paper / f), key, col)
        arms = [cell(table(ROOT / "mechanisms" / a / paper / f), key, col) for a in ARMS]
        print(f"| {paper} | {f} {' / '.join(key)}: {col} | {off} | " + " | ".join(arms) + " |")
    print(
        "\nThe time-sharing points of `kvm-epyc-2c-hostcheck` (`cosched validate`; pair over one alone; "
        "development points: the mechanisms were built after they failed):\n"
    )
    print("| point | measured | on | " + " | ".join(ARMS) + " |")
    print("|---|---|---|" + "---|" * len(ARMS))
    runs = [ROOT / "mechanisms" / "validate-hostcheck.json"] + [
        ROOT / "mechanisms" / a / "validate-hostcheck.json" for a in ARMS
    ]
    points = [json.loads(p.read_text(encoding="utf-8")) for p in runs]
    for i, pt in enumerate(points[0]):
        if pt["kind"] != "timeshare":
            continue
        sims = [f"{p[i]['simulated']:.3f} ({p[i]['error'] * 100:+.1f}%)" for p in points]
        print(f"| {pt['name']} | {pt['published']:.3f} | " + " | ".join(sims) + " |")
    print("\nCells of each paper's CSVs whose mean moved beyond the larger of its two intervals (against on):\n")
    print("| paper | " + " | ".join(ARMS) + " |")
    print("|---|" + "---|" * len(ARMS))
    for paper in ["efs", "slits", "perf-fair", "rda", "evt"]:
        counts = []
        for a in ARMS:
            beyond = total = 0
            for off_csv in sorted((ROOT / paper).glob("*.csv")):
                on = ROOT / "mechanisms" / a / paper / off_csv.name
                if on.exists():
                    b, n = moved(off_csv, on)
                    beyond, total = beyond + b, total + n
            counts.append(f"{beyond} of {total}")
        print(f"| {paper} | " + " | ".join(counts) + " |")


if __name__ == "__main__":
    main()
