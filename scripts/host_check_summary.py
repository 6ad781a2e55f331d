#!/usr/bin/env python3
"""Summarise `scripts/host-check`: every held-out mix's
predicted against measured slowdowns and policy ranking, and the targets over
all mixes. Reads DIR/check-*.json, DIR/date.txt, DIR/host.toml; prints
Markdown.

    python3 scripts/host_check_summary.py docs/results/runtime/host-check
"""

import json
import pathlib
import random
import statistics
import sys
import tomllib
from collections.abc import Sequence
from typing import Any

from small_stats import p90

TARGET_MEDIAN = 0.15
TARGET_WORST = 0.30
# The families' targets: on their held-out mixes (not the development mixes).
FAMILY_MEDIAN = 0.10
FAMILY_P90 = 0.25
FAMILY_BEST = 0.90


def pct(x: float) -> str:
    return f"{100 * x:+.1f}%"


def reason(j: dict[str, Any]) -> str:
    """The measured reason of a cell beyond the target (calibrate_check.rs `JobCheck::reason`)."""
    m = j["measured"]
    hw = 100 * (m["hi"] - m["lo"]) / 2 / m["mean"]
    if m["lo"] <= j["predicted"] <= m["hi"]:
        return f"inside the measured interval (half-width {hw:.0f}% of the mean): the host's spread does not resolve the target"
    return f"outside the measured interval (half-width {hw:.0f}%): a model error"


BOOT = 2000


def mix_bootstrap(errors: Sequence[tuple[Any, ...]]) -> tuple[tuple[float, float], tuple[float, float]]:
    """95% percentile-bootstrap intervals of the median and 90th percentile |error|, mixes resampled."""
    by_mix: dict[str, list[float]] = {}
    for e in errors:
        by_mix.setdefault(e[1], []).append(e[0])
    mixes = sorted(by_mix)
    rng = random.Random(1)
    meds, p90s = [], []
    for _ in range(BOOT):
        cells = [x for m in (rng.choice(mixes) for _ in mixes) for x in by_mix[m]]
        meds.append(statistics.median(cells))
        p90s.append(p90(cells))

    def interval(v: list[float]) -> tuple[float, float]:
        v = sorted(v)
        return v[int(0.025 * (len(v) - 1))], v[round(0.975 * (len(v) - 1))]

    return interval(meds), interval(p90s)


def main(arg: str) -> None:
    d = pathlib.Path(arg)
    date = (d / "date.txt").read_text().strip()
    host: dict[str, str] = {}
    for line in (d / "host.toml").read_text().splitlines():
        k, _, v = line.partition("=")
        host.setdefault(k.strip(), v.strip())
    family = d / "family.toml"
    fam = tomllib.loads(family.read_text()) if family.exists() else {}
    if fam:
        print(f"# Predicting this machine: the random mixes of family `{fam.get('name', '?')}` ({date})\n")
        print(
            f"Mixes drawn by `cosched draw-mixes` from `family.toml` (seed {fam.get('seed', '?')}; "
            f"{fam.get('description', '')}): the family was written down before any mechanism it judges "
            "was tuned, and these are the mixes the docs quote the accuracy on (`mixes/`, `mixes.txt`).\n"
        )
    else:
        print(f"# Predicting this machine: the development mixes ({date})\n")
        print(
            "These seven mixes are development mixes: the model was developed and checked on them, so "
            "their accuracy is not the accuracy a stranger's mix gets; that is the random and real "
            "families' (`scripts/host-check --family`).\n"
        )
    print(
        "Written by `scripts/host-check`: this host calibrated "
        f"(`host.toml`: LLC {host.get('llc_mb', '?')} MiB, {host.get('bandwidth_gbs', '?')} GB/s), "
        f"the programs of `{'mixes/programs.toml' if fam else 'data/mixes/host-check/programs.toml'}` "
        "characterised (`programs.toml`, "
        "`record.json`), then each mix below run for real in interleaved rounds and simulated "
        "from the characterised programs. No co-run of one program with another was used to fit "
        "anything. Slowdowns: mean and 95% t-interval over the rounds (each round against its own "
        "solo runs); error = predicted / measured mean - 1; host-noise band: prediction x (1 +- t95(R-1) "
        "sqrt(2) sigma / sqrt(R)), sigma the relative s.d. of the job's solo runs over the R rounds.\n"
    )
    calib = d / "calibrate.txt"
    shares = (
        [line for line in calib.read_text().splitlines() if line.startswith("two chases")] if calib.exists() else []
    )
    if shares:
        print("## Time-sharing one CPU (`calibrate.txt`: the simulator's refill model against the host)\n")
        for line in shares:
            print(f"- {line}")
        print()
    tenants = host.get("tenant_lines_per_s")
    if tenants:
        print(
            f"The host's other tenants insert {float(tenants):.3g} lines/s into the guest's LLC (`host.toml`, "
            "`cache.tenant_lines_per_s`, from `cosched calibrate`'s absence probe: docs/model.md, \"Tenants of a shared "
            'host"); every prediction below is also made without them (the ablation).\n'
        )
    errors = []
    best_ok = []
    in_band = []
    for f in sorted(d.glob("check-*.json")):
        c = json.loads(f.read_text())["check"]
        r = c["result"]
        rounds = r["policies"][0]["measured_makespan_s"]["n"]
        print(f"## {f.stem[len('check-') :]} (`{f.name}`, {rounds} rounds, `linux` simulated as `{c['model']}`)\n")
        print("| policy | job | measured | 95% interval | predicted | host-noise band | error |")
        print("|---|---|---|---|---|---|---|")
        for j in r["jobs"]:
            m = j["measured"]
            band = j.get("band")
            cell = f"{band[0]:.3f}-{band[1]:.3f}{'' if j['in_band'] else ' (outside)'}" if band else "-"
            print(
                f"| {j['policy']} | {j['job']} | {m['mean']:.3f} | {m['lo']:.3f}-{m['hi']:.3f} "
                f"| {j['predicted']:.3f} | {cell} | {pct(j['error'])} |"
            )
            if band:
                in_band.append(j["in_band"])
            errors.append((abs(j["error"]), f.stem, j["policy"], j["job"], j))
        print("\n| policy | measured makespan s | predicted makespan s |")
        print("|---|---|---|")
        for p in r["policies"]:
            m = p["measured_makespan_s"]
            print(
                f"| {p['policy']} | {m['mean']:.3f} ±{(m['hi'] - m['lo']) / 2:.3f} | {p['predicted_makespan_s']:.3f} |"
            )
        extra = []
        if r.get("median_abs_error_pooled") is not None:
            extra.append(
                f"against the pooled measured slowdowns (co-run time over solo time of all rounds) median "
                f"{100 * r['median_abs_error_pooled']:.1f}%, worst {100 * r['worst_abs_error_pooled']:.1f}%"
            )
        if r.get("median_abs_error_without_tenants") is not None:
            extra.append(
                f"without the host's tenants (ablation) median {100 * r['median_abs_error_without_tenants']:.1f}%, "
                f"worst {100 * r['worst_abs_error_without_tenants']:.1f}%"
            )
        print(
            f"\nMedian |error| {100 * r['median_abs_error']:.1f}%, worst {100 * r['worst_abs_error']:.1f}%"
            + (f" ({'; '.join(extra)})" if extra else "")
            + ". "
            f"Best by makespan: measured {r['measured_best']}, predicted {r['predicted_best']} "
            f"({r['best_words']}): {'within' if r['best_within_interval'] else 'NOT within'} the measured interval.\n"
        )
        if r.get("stopped"):
            st = r["stopped"]
            goal = f"every measured slowdown within ±{r['within_pct']:g}% of its mean"
            words = {
                "reached": f"{goal} after {st['rounds']} rounds",
                "max-rounds": f"the {st['rounds']}-round limit came before {goal}",
                "budget": f"the time budget ended after {st['rounds']} rounds, before {goal}",
            }
            print(f"Rounds: {words[st['reason']]}.\n")
        for m in r.get("moved", []):
            print(
                f"The host moved under {m['job']}: its solo time spread {100 * m['solo_spread']:.0f}% across the "
                f"rounds; cells measured on it: {', '.join(m['cells'])}.\n"
            )
        solo = r.get("solo_s", [])
        if solo:
            names = c.get("mix_jobs") or [f"job {i + 1}" for i in range(len(solo[0]))]
            print("| solo turnaround s by round | " + " | ".join(names) + " |")
            print("|---|" + "---|" * len(names))
            for i, row in enumerate(solo):
                print(f"| round {i + 1} | " + " | ".join(f"{x:.3f}" for x in row) + " |")
            print()
        if c["skipped"]:
            print(f"No model: {', '.join(c['skipped'])}.\n")
        best_ok.append((f.stem, r["best_within_interval"]))
    if not errors:
        print("No check files.")
        return
    med = statistics.median(e[0] for e in errors)
    worst = max(errors)
    beyond = [e for e in errors if e[0] > TARGET_WORST]
    print("## Targets over all mixes\n")
    print(
        f"- Median |error| of the predicted slowdowns: {100 * med:.1f}% over {len(errors)} job-policy cells "
        f"(target <= {100 * TARGET_MEDIAN:.0f}%): {'met' if med <= TARGET_MEDIAN else 'missed'}."
    )
    print(
        f"- Worst: {100 * worst[0]:.1f}% ({worst[3]} under {worst[2]} in {worst[1]}); {len(beyond)} cells beyond "
        f"{100 * TARGET_WORST:.0f}% (target: none): {'met' if not beyond else 'missed'}."
    )
    without = [
        abs(e[4]["predicted_without_tenants"] / e[4]["measured"]["mean"] - 1)
        for e in errors
        if e[4].get("predicted_without_tenants")
    ]
    if len(without) == len(errors):
        print(
            f"- Without the host's tenants (the ablation): median |error| {100 * statistics.median(without):.1f}%, "
            f"worst {100 * max(without):.1f}%, {sum(w > TARGET_WORST for w in without)} cells beyond {100 * TARGET_WORST:.0f}%."
        )
    by_job: dict[str, int] = {}
    for e in beyond:
        by_job[e[3]] = by_job.get(e[3], 0) + 1
    if beyond:
        print(
            "- Cells beyond the worst-case target by job: "
            + ", ".join(f"{job} {n}" for job, n in sorted(by_job.items(), key=lambda x: -x[1]))
            + "."
        )
    for label, pick in [("the oversubscribed mixes (check-timeshare-*)", "check-timeshare-")]:
        cells = [e for e in errors if e[1].startswith(pick)]
        if cells:
            m = statistics.median(e[0] for e in cells)
            print(
                f"- Over {label}: median |error| {100 * m:.1f}% over {len(cells)} cells, worst "
                f"{100 * max(e[0] for e in cells):.1f}%, {sum(e[0] > TARGET_WORST for e in cells)} beyond "
                f"{100 * TARGET_WORST:.0f}%; without chase4 median "
                f"{100 * statistics.median([e[0] for e in cells if e[3] != 'chase4'] or [0]):.1f}%, worst "
                f"{100 * max([e[0] for e in cells if e[3] != 'chase4'] or [0]):.1f}%."
            )
    if in_band:
        print(
            f"- Measured mean inside the prediction's host-noise band (the spread of the rounds' solo runs; "
            f"about 95% for a model exact up to host noise): {sum(in_band)} of {len(in_band)} cells."
        )
    ok = sum(1 for _, b in best_ok if b)
    inside = sum(1 for e in errors if e[4]["measured"]["lo"] <= e[4]["predicted"] <= e[4]["measured"]["hi"])
    abs_errors = [e[0] for e in errors]
    q90 = p90(abs_errors)
    print(
        f"- 90th percentile |error| {100 * q90:.1f}%; prediction inside the measured 95% interval in {inside} "
        f"of {len(errors)} cells."
    )
    if fam:
        share = ok / len(best_ok)
        print(
            f"- The family's targets: median |error| <= {100 * FAMILY_MEDIAN:.0f}% "
            f"({'met' if med <= FAMILY_MEDIAN else 'missed'}), 90th percentile <= {100 * FAMILY_P90:.0f}% "
            f"({'met' if q90 <= FAMILY_P90 else 'missed'}), best policy predicted within the measured interval "
            f"in >= {100 * FAMILY_BEST:.0f}% of mixes ({100 * share:.0f}%: {'met' if share >= FAMILY_BEST else 'missed'})."
        )
    print(
        f"- Predicted best policy within the measured interval of the measured best: {ok} of {len(best_ok)} mixes "
        f"({', '.join(n for n, b in best_ok if not b) or 'all'}{' missed' if ok < len(best_ok) else ''})."
    )
    if fam and len(best_ok) > 1:
        lo_hi = mix_bootstrap(errors)
        print(
            f"- Over the mixes (cells of one mix share its rounds, so the mix is the unit): percentile bootstrap of "
            f"{BOOT} resamples of the {len(best_ok)} mixes with replacement (seed 1): median |error| 95% interval "
            f"{100 * lo_hi[0][0]:.1f}-{100 * lo_hi[0][1]:.1f}%, 90th percentile {100 * lo_hi[1][0]:.1f}-"
            f"{100 * lo_hi[1][1]:.1f}%."
        )
    if beyond:
        within = [e for e in beyond if e[4]["measured"]["lo"] <= e[4]["predicted"] <= e[4]["measured"]["hi"]]
        print(
            f"\nCells beyond the worst-case target ({len(within)} of {len(beyond)} with the prediction inside "
            "the measured interval), with the measured reason and each round's measured slowdown:\n"
        )
        for e, mix, pol, job, j in sorted(beyond, key=lambda x: -x[0]):
            rounds = ", ".join(f"{x:.2f}" for x in j.get("rounds", []))
            print(f"- {mix}: {job} under {pol}: {100 * e:.1f}%, {reason(j)}; rounds: {rounds}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/results/runtime/host-check")
