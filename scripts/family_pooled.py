#!/usr/bin/env python3
"""The held-out families' accuracy targets, pooled over the mixes each declared verdict reads.

Each block (a folder of `scripts/host-check --family`: family.toml, date.txt, host.toml,
check-*.json) was predicted by the code of its day, on mixes drawn before it ran; pooling them
gives the accuracy a stranger's mix got, with the mix as the unit (the cells of one mix share its
rounds and its host's hour). Prints Markdown:

    python3 scripts/family_pooled.py docs/results/runtime/host-random* docs/results/runtime/host-real*
"""

import json
import math
import pathlib
import statistics
import sys
import tomllib
from collections.abc import Callable
from typing import NamedTuple

from host_check_summary import BOOT, FAMILY_BEST, FAMILY_MEDIAN, FAMILY_P90, mix_bootstrap
from small_stats import p90


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact binomial interval of k successes in n: bisection on the binomial tail sums."""

    def at_least(j: int, p: float) -> float:  # P(X >= j) for X ~ Binomial(n, p), increasing in p
        return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(j, n + 1))

    def root(f: Callable[[float], float], target: float) -> float:  # the p where increasing f crosses target
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) < target else (lo, mid)
        return (lo + hi) / 2

    a = (1 - level) / 2
    low = 0.0 if k == 0 else root(lambda p: at_least(k, p), a)
    high = 1.0 if k == n else root(lambda p: at_least(k + 1, p), 1 - a)
    return low, high


def block(d: pathlib.Path) -> tuple[list[tuple[float, str, bool]], list[tuple[str, bool]]]:
    """One block's cells (|error|, mix key, inside) and each mix's best-policy verdict."""
    cells: list[tuple[float, str, bool]] = []
    best: list[tuple[str, bool]] = []
    for f in sorted(d.glob("check-*.json")):
        r = json.loads(f.read_text())["check"]["result"]
        key = f"{d.name}/{f.stem}"
        for j in r["jobs"]:
            m = j["measured"]
            cells.append((abs(j["error"]), key, m["lo"] <= j["predicted"] <= m["hi"]))
        best.append((key, r["best_within_interval"]))
    return cells, best


class Top(NamedTuple):
    """One mix's top of the ranking (design note 70): the predicted margin of the pick over the
    runner-up, the model's median makespan |error| on the mix, whether the pick is the measured
    best exactly, and the share of policies tied with the measured best (none before checks
    recorded their ties)."""

    margin: float
    makespan_error: float
    exact: bool
    chance: float | None


def tops(d: pathlib.Path) -> list[Top]:
    """Each mix's [`Top`]: the check's recorded `ties` where it has them (crates/cosched-host/src/ties.rs),
    else the same figures from its policies (checks written before `ties` was recorded)."""
    out = []
    for f in sorted(d.glob("check-*.json")):
        r = json.loads(f.read_text())["check"]["result"]
        ties = r.get("ties")
        if ties:
            margin, error = ties["predicted_margin"], ties["makespan_error"]
        else:
            pred = sorted(p["predicted_makespan_s"] for p in r["policies"])
            margin = pred[1] / pred[0] - 1 if len(pred) > 1 and pred[0] > 0 else 0.0
            error = statistics.median(
                abs(p["predicted_makespan_s"] / p["measured_makespan_s"]["mean"] - 1) for p in r["policies"]
            )
        out.append(
            Top(
                margin=margin,
                makespan_error=error,
                exact=r["measured_best"] == r["predicted_best"],
                chance=len(ties["measured"]) / len(r["policies"]) if ties else None,
            )
        )
    return out


def top_lines(top: list[Top], best: list[bool]) -> list[str]:
    """What the best-policy share could tell, in words (descriptive; the target is unchanged)."""
    tie = [b for t, b in zip(top, best, strict=True) if t.margin < t.makespan_error]
    sep = [b for t, b in zip(top, best, strict=True) if t.margin >= t.makespan_error]
    exact = sum(t.exact for t in top)
    lines = [
        (
            f"- What the share could tell (design note 70; descriptive, the target is unchanged): the pick was the "
            f"measured best exactly in {exact} of {len(top)} mixes; the predicted margin of the pick over the "
            f"runner-up (median {pct(statistics.median(t.margin for t in top))}) was below the model's own median "
            f"makespan |error| on the mix (median {pct(statistics.median(t.makespan_error for t in top))}) in "
            f"{len(tie)} of {len(top)} mixes, predicted ties, whose pick was within the measured interval in "
            f"{sum(tie)} of {len(tie)}; the others in {sum(sep)} of {len(sep)}."
        )
    ]
    chances = [t.chance for t in top if t.chance is not None]
    if chances:
        lines.append(
            f"- A pick at random would be within the measured interval with probability "
            f"{pct(statistics.mean(chances))}: the mean share of policies the rounds could not tell from the "
            f"measured best, over the {len(chances)} mixes whose checks recorded their ties."
        )
    return lines


def presence_runs(d: pathlib.Path) -> bool:
    """Whether the block's programs were characterised beside a compute loop too (`--presence`)."""
    rec = d / "record.json"
    if not rec.exists():
        return False
    return any(j.get("presence") for j in json.loads(rec.read_text()).get("jobs", []))


def verdict(point: float, interval: tuple[float, float], target: float) -> str:
    if interval[1] <= target:
        return "met, and its interval lies below the target"
    if point <= target:
        return "met by the point estimate; its interval reaches past the target"
    return "missed"


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


ROOT = pathlib.Path(__file__).resolve().parent.parent


class Declared(NamedTuple):
    """A verdict the family file declares (`[[verdict]]`, crates/cosched-machine/src/family.rs):
    what it judges, the mixes it is read at, when that was fixed, and what had been seen then."""

    reads: str
    first: int
    last: int
    declared: str
    note: str


def declared(name: str) -> list[Declared]:
    """The family's declared verdicts, from its live file under data/mixes (the blocks keep the
    copy they were drawn from)."""
    path = ROOT / "data" / "mixes" / name / "family.toml"
    if not path.exists():
        return []
    fam = tomllib.loads(path.read_text())
    return [
        Declared(v["reads"], v.get("from", 1), v["to"], v["declared"], v.get("note", ""))
        for v in fam.get("verdict", [])
    ]


def mix_number(key: str) -> int:
    """The mix number of a check's key (`host-real-19-21/check-19` -> 19)."""
    return int(key.rsplit("-", 1)[1])


def judge(cells: list[tuple[float, str, bool]], best: list[tuple[str, bool]], top: list[Top]) -> None:
    """The targets over exactly these mixes, each with its interval and its verdict."""
    errs = [c[0] for c in cells]
    med, q90 = statistics.median(errs), p90(errs)
    ok = sum(b for _, b in best)
    (mlo, mhi), (plo, phi) = mix_bootstrap([(c[0], c[1]) for c in cells])
    blo, bhi = clopper_pearson(ok, len(best))
    missed = ", ".join(k for k, b in best if not b) or "none"
    print(
        f"- Median |error| {pct(med)} (95% interval {pct(mlo)} to {pct(mhi)}; target <= {100 * FAMILY_MEDIAN:.0f}%): {verdict(med, (mlo, mhi), FAMILY_MEDIAN)}."
    )
    print(
        f"- 90th percentile {pct(q90)} (95% interval {pct(plo)} to {pct(phi)}; target <= {100 * FAMILY_P90:.0f}%): {verdict(q90, (plo, phi), FAMILY_P90)}."
    )
    share = ok / len(best)
    words = (
        "met, and its interval lies above the target"
        if blo >= FAMILY_BEST
        else "met by the point estimate; its interval reaches below the target"
        if share >= FAMILY_BEST
        else "missed"
    )
    print(
        f"- Best policy predicted within the measured interval in {ok} of {len(best)} mixes ({pct(share)}, "
        f"95% interval {pct(blo)} to {pct(bhi)}; target >= {100 * FAMILY_BEST:.0f}%): {words}. Missed: {missed}."
    )
    print("\n".join(top_lines(top, [b for _, b in best])) + "\n")


def main(dirs: list[str]) -> None:
    families: dict[str, list[pathlib.Path]] = {}
    for d in map(pathlib.Path, dirs):
        if not (d / "family.toml").exists() or not list(d.glob("check-*.json")):
            continue
        name = tomllib.loads((d / "family.toml").read_text())["name"]
        families.setdefault(name, []).append(d)
    print("# Held-out accuracy pooled over every measured block of each family\n")
    print(
        "Written by `scripts/family_pooled.py` from the blocks' `check-*.json`. Each block's "
        "mixes were drawn by `cosched draw-mixes` from the family written down before any mechanism "
        "was tuned, and predicted by the code of the block's day before they ran: the pooled figures are the "
        "accuracy strangers' mixes got, not a replay with today's model. The mix is the unit: the intervals are "
        f"percentile bootstraps of {BOOT:,} resamples of the verdict's mixes (seed 1); the best-policy share's "
        "is exact (Clopper-Pearson). A verdict is read at the mixes its family file declares (`[[verdict]]`), "
        "fixed before they ran or, where the file says so, after: never at a count chosen from the data.\n"
    )
    for name, ds in sorted(families.items()):
        ds.sort(key=lambda d: (d / "date.txt").read_text().strip())
        print(f"## {name}\n")
        print("| block | measured (UTC) | LLC MiB | mixes | cells | median | 90th pct | worst | inside | best policy |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        all_cells: list[tuple[float, str, bool]] = []
        all_best: list[tuple[str, bool]] = []
        all_top: list[Top] = []
        for d in ds:
            cells, best = block(d)
            all_top += tops(d)
            all_cells += cells
            all_best += best
            errs = [c[0] for c in cells]
            llc = tomllib.loads((d / "host.toml").read_text()).get("cache", {}).get("llc_mb", "?")
            note = " (`--presence`)" if presence_runs(d) else ""
            print(
                f"| `{d.name}`{note} | {(d / 'date.txt').read_text().strip()} | {llc} | {len(best)} | {len(cells)} "
                f"| {pct(statistics.median(errs))} | {pct(p90(errs))} | {pct(max(errs))} "
                f"| {sum(c[2] for c in cells)} of {len(cells)} | {sum(b for _, b in best)} of {len(best)} |"
            )
        errs = [c[0] for c in all_cells]
        ok = sum(b for _, b in all_best)
        print(
            f"| all | | | {len(all_best)} | {len(all_cells)} | {pct(statistics.median(errs))} | {pct(p90(errs))} "
            f"| {pct(max(errs))} | {sum(c[2] for c in all_cells)} of {len(all_cells)} | {ok} of {len(all_best)} |\n"
        )
        verdicts = declared(name)
        if not verdicts:
            print("No verdict is declared in the family file: the figures above are descriptive only.\n")
        measured = {mix_number(k) for k, _ in all_best}
        for v in verdicts:
            want = set(range(v.first, v.last + 1))
            head = f"### {v.reads}: mixes {v.first}-{v.last}, declared {v.declared}"
            print(f"{head}\n")
            if v.note:
                print(f"{v.note}\n")
            if not want <= measured:
                print(f"Not read yet: {len(want & measured)} of {len(want)} of its mixes measured.\n")
                continue
            keep = [i for i, (k, _) in enumerate(all_best) if mix_number(k) in want]
            cells = [c for c in all_cells if mix_number(c[1]) in want]
            judge(cells, [all_best[i] for i in keep], [all_top[i] for i in keep])


if __name__ == "__main__":
    main(sys.argv[1:])
