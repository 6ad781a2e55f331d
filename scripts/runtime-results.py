#!/usr/bin/env python3
"""Real results of the user-level scheduler on this machine (docs/runtime.md).

Runs data/mixes/runtime-results.toml under `linux` and every policy that can
run without a PMU, several repetitions each, with solo turnarounds measured
first (median of 3), a co-run probe for the SLITS policies, and the
scheduler's own CPU use with 24 managed processes and 100 ms quanta.

    python3 scripts/runtime-results.py [--repeat 5] [--out docs/results/runtime]

Needs: target/release/cosched (cargo build --release), stress-ng, xz.
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from small_stats import half_width

ROOT = Path(__file__).resolve().parents[1]
COSCHED = ROOT / "target" / "release" / "cosched"
MIX = ROOT / "data" / "mixes" / "runtime-results.toml"
MACHINE = "kvm-epyc-2c"
POLICIES = [
    "linux",
    "cfs",
    "g-rrs",
    "p-rrs",
    "wss",
    "random",
    "rda-strict",
    "rda-compromise",
    "slits-contention",
    "slits-fairness",
]


def cosched(*args: str) -> dict[str, Any]:
    r = subprocess.run([str(COSCHED), *args, "--format", "json"], capture_output=True, text=True, check=False)
    if r.returncode != 0:
        sys.exit(f"cosched {' '.join(args)}: {r.stderr.strip()}")
    out: dict[str, Any] = json.loads(r.stdout)
    return out


def ci(xs: list[float]) -> tuple[float, float]:
    return statistics.fmean(xs), half_width(xs)


def toml_value(v: object) -> str:
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return repr(v)


def write_mix(path: Path, mix: dict[str, Any], solo: dict[str, float] | None = None) -> None:
    lines = [f"name = {json.dumps(mix['name'])}"]
    for j in mix["job"]:
        lines.append("\n[[job]]")
        for k, v in j.items():
            if k != "profile":
                lines.append(f"{k} = {toml_value(v)}")
        if solo:
            lines.append(f"solo_s = {solo[j['name']]}")
        if "profile" in j:
            lines.append("[job.profile]")
            lines.extend(f"{k} = {toml_value(v)}" for k, v in j["profile"].items())
    path.write_text("\n".join(lines) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "results" / "runtime")
    ap.add_argument("--skip-overhead", action="store_true")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    mix = tomllib.loads(MIX.read_text())
    tmp = Path(tempfile.mkdtemp(prefix="cosched-results-"))

    solo = {}
    for j in mix["job"]:
        one = {"name": j["name"], "job": [{**{k: v for k, v in j.items() if k != "count"}, "count": 1}]}
        write_mix(tmp / "one.toml", one)
        runs = cosched("run", "-w", str(tmp / "one.toml"), "--repeat", "3")["runs"]
        solo[j["name"]] = statistics.median(r["jobs"][0]["turnaround_s"] for r in runs)
        print(f"solo {j['name']}: {solo[j['name']]:.3f} s", file=sys.stderr)
    mixsolo = tmp / "mix.toml"
    write_mix(mixsolo, mix, solo)
    (a.out / "solo.json").write_text(json.dumps(solo, indent=2) + "\n")

    profile = a.out / "profile.json"
    probe = cosched("probe", "-w", str(mixsolo), "--pairs", "0.5", "-o", str(profile))
    (a.out / "probe.json").write_text(json.dumps(probe, indent=2) + "\n")

    rows = []
    for p in POLICIES:
        extra = ["--profile", str(profile)] if p.startswith("slits") else []
        print(f"{p} x{a.repeat}", file=sys.stderr)
        r = cosched("run", "-p", p, "-m", MACHINE, "-w", str(mixsolo), "--repeat", str(a.repeat), *extra)
        runs = r.get("runs", [r])
        (a.out / f"{p}.json").write_text(json.dumps(r, indent=2) + "\n")
        mk = [x["metrics"]["makespan_s"] for x in runs]
        tt = [statistics.fmean(j["turnaround_s"] for j in x["jobs"]) for x in runs]
        un = [x["metrics"]["unfairness"] for x in runs]
        an = [x["metrics"]["antt"] for x in runs]
        cpu = [x["scheduler_cpu_pct"] for x in runs]
        per_job = {
            name: statistics.fmean(j["slowdown"] for x in runs for j in x["jobs"] if j["name"].split("#")[0] == name)
            for name in solo
        }
        rows.append((p, ci(mk), ci(tt), ci(un), ci(an), ci(cpu), per_job))

    base = rows[0]
    lines = [
        f"Mix `{mix['name']}` on {MACHINE} (this VM), {a.repeat} repetitions per policy, mean ± 95% CI (t).",
        "",
        "| policy | makespan s | vs linux | mean turnaround s | unfairness | ANTT | scheduler CPU % |",
        "|---|---|---|---|---|---|---|",
    ]
    csv = [
        "policy,makespan_s,makespan_ci,turnaround_s,turnaround_ci,unfairness,unfairness_ci,antt,antt_ci,sched_cpu_pct"
    ]
    for p, mk_ci, tt_ci, un_ci, an_ci, cpu_ci, _ in rows:
        lines.append(
            f"| {p} | {mk_ci[0]:.2f} ± {mk_ci[1]:.2f} | {base[1][0] / mk_ci[0]:.3f}x | {tt_ci[0]:.2f} ± {tt_ci[1]:.2f} | "
            f"{un_ci[0]:.2f} ± {un_ci[1]:.2f} | {an_ci[0]:.2f} ± {an_ci[1]:.2f} | {cpu_ci[0]:.2f} |"
        )
        csv.append(
            f"{p},{mk_ci[0]:.4f},{mk_ci[1]:.4f},{tt_ci[0]:.4f},{tt_ci[1]:.4f},{un_ci[0]:.4f},{un_ci[1]:.4f},"
            f"{an_ci[0]:.4f},{an_ci[1]:.4f},{cpu_ci[0]:.3f}"
        )
    lines += ["", "Mean slowdown per job (turnaround / median solo turnaround):", ""]
    lines.append("| policy | " + " | ".join(solo) + " |")
    lines.append("|---|" + "---|" * len(solo))
    for p, *_, per_job in rows:
        lines.append(f"| {p} | " + " | ".join(f"{per_job[n]:.2f}" for n in solo) + " |")
    lines += ["", "Solo turnaround (median of 3), s: " + ", ".join(f"{k} {v:.2f}" for k, v in solo.items())]

    if not a.skip_overhead:
        big = {
            "name": "overhead24",
            "job": [{"name": "compute", "cmd": ["cosched-bench", "compute", "--mops", "1000"], "count": 24}],
        }
        write_mix(tmp / "big.toml", big)
        lines += ["", "Scheduler CPU with 24 managed processes (24 × cosched-bench compute), 100 ms quanta:", ""]
        for p in ["linux", "g-rrs", "p-rrs", "cfs"]:
            r = cosched("run", "-p", p, "-w", str(tmp / "big.toml"), "--quantum-ms", "100")
            lines.append(
                f"- {p}: {r['scheduler_cpu_pct']:.2f}% of one core over a {r['metrics']['makespan_s']:.1f} s run"
            )
            print(lines[-1], file=sys.stderr)
    (a.out / "summary.md").write_text("\n".join(lines) + "\n")
    (a.out / "summary.csv").write_text("\n".join(csv) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
