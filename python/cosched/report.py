"""``cosched report``: one self-contained HTML file (figures embedded as PNG,
tables as HTML, no external assets) of the papers' figures, a comparison, a
run or a sweep.

    cosched report papers  [--results DIR] -o papers.html
    cosched report compare [-m M] [-w W] [--policies a,b] [--seeds N] -o cmp.html
    cosched report simulate [-m M] [-w W] [-p P] [--seed S] -o run.html
    cosched report sweep GRID.json -o sweep.html   (GRID.json: a grid as cosched.sweep takes it)

From Python: :func:`papers_html`, :func:`compare_html`, :func:`run_html`,
:func:`sweep_html`, and :func:`write`.
"""

from __future__ import annotations

import argparse
import base64
import html
import io
import json
import sys
import threading
import time
from collections.abc import Iterable
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd

from . import __version__, _cosched
from .errors import CoschedError

__all__ = ["compare_html", "main", "papers_html", "run_html", "sweep_html", "write"]

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 70rem; color: #222; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
figure { margin: 1rem 0; } figure img { max-width: 100%; }
figcaption { font-size: 0.9rem; color: #555; }
table { border-collapse: collapse; font-size: 0.8rem; margin: 0.5rem 0; }
td, th { border: 1px solid #ccc; padding: 0.2rem 0.4rem; text-align: right; }
th { background: #f3f3f3; } .scroll { overflow-x: auto; } .note { color: #555; font-size: 0.9rem; }
"""

# Counts the figures the browser decoded (a test reads it back from the DOM).
_SCRIPT = """
window.addEventListener('load', () => {
  const imgs = Array.from(document.querySelectorAll('figure img'));
  document.body.dataset.figuresRendered = imgs.filter(i => i.complete && i.naturalWidth > 0).length;
  document.body.dataset.figures = imgs.length;
});
"""


def _figure(fig: Any, caption: str) -> str:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode()
    return f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}"><figcaption>{html.escape(caption)}</figcaption></figure>'


def _table(df: pd.DataFrame, max_rows: int = 200) -> str:
    more = f'<p class="note">first {max_rows} of {len(df)} rows</p>' if len(df) > max_rows else ""
    table = df.head(max_rows).to_html(index=False, float_format=lambda v: f"{v:.6g}", border=0)
    return f'<div class="scroll">{table}</div>{more}'


def _page(title: str, sections: Iterable[tuple[str, list[str]]]) -> str:
    body = "".join(f"<h2>{html.escape(h)}</h2>{''.join(parts)}" for h, parts in sections)
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{_STYLE}</style><script>{_SCRIPT}</script></head><body><h1>{html.escape(title)}</h1>"
        f'<p class="note">cosched {__version__}, {date.today().isoformat()}</p>{body}</body></html>'
    )


def papers_html(results: str | Path | None = None) -> str:
    """Every figure of :data:`cosched.figures.PAPER_FIGURES` from ``results`` (a missing CSV is said, not fatal)."""
    from . import figures

    where = figures.results_dir(results)
    sections = []
    for name, (draw, about) in figures.PAPER_FIGURES.items():
        try:
            ax = draw(where)
            sections.append(
                (name, [_figure(ax.figure, f"{name} (ours): {about}; error bars: 95% interval over seeds")])
            )
        except FileNotFoundError as e:
            sections.append((name, [f'<p class="note">not drawn: {html.escape(str(e))}</p>']))
    return _page(f"cosched: the papers' figures from {where}", sections)


def _mean_ci_chart(summary: pd.DataFrame, metric: str, label: str) -> Any:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3.5), layout="constrained")
    m = summary[f"{metric}_mean"]
    err = [m - summary[f"{metric}_lo"], summary[f"{metric}_hi"] - m]
    ax.bar(summary["policy"], m, yerr=err, capsize=3)
    ax.set_ylabel(label)
    ax.tick_params(axis="x", rotation=30)
    return fig


def compare_html(df: pd.DataFrame) -> str:
    """A :func:`cosched.compare` frame: summary with intervals, charts, every run."""
    s = df.attrs["summary"]
    title = f"cosched compare: {df.attrs['workload']} on {df.attrs['machine']}, {len(df.attrs['seeds'])} seed(s)"
    charts = [
        _figure(
            _mean_ci_chart(s, "speedup", f"speedup vs {df.attrs['baseline']}"),
            "speedup, mean and 95% interval over seeds",
        ),
        _figure(_mean_ci_chart(s, "energy_j", "system energy, J"), "system energy, mean and 95% interval"),
    ]
    sections = [("Summary", [_table(s)]), ("Charts", charts)]
    if notes := df.attrs.get("regimes"):
        sections.append(("Outside their paper's regime", [_table(_regimes_frame(notes, df.attrs["baseline"]))]))
    return _page(title, sections + [("Runs", [_table(df)])])


def _regimes_frame(notes: list[dict[str, Any]], baseline: str) -> pd.DataFrame:
    """`compare`'s regime notes, one row per policy (docs/index.md, "Regimes")."""
    rows = []
    for n in notes:
        paired = {p["policy"]: p for p in (n["in_regime"] or {}).get("paired", [])}
        for policy in n["policies"]:
            p = paired.get(policy)
            rows.append(
                {
                    "policy": policy,
                    "paper": n["paper"],
                    "the paper's regime": n["regime"],
                    "here": n["here"],
                    f"unfairness − {baseline}'s here": p["here"]["mean"] if p else None,
                    f"unfairness − {baseline}'s in the regime": p["in_regime"]["mean"] if p else None,
                }
            )
    return pd.DataFrame(rows)


def run_html(run: Any) -> str:
    """A :class:`cosched.Run`: metrics, jobs and the schedule."""
    from . import figures

    r = run.report
    metrics = pd.DataFrame([run.row()]).T.reset_index()
    metrics.columns = ["metric", "value"]
    trace = run.trace()
    horizon = float(trace["end_s"].max()) if len(trace) else 0.0
    until = min(horizon, max(horizon / 20, 0.05))
    gantt = _figure(
        figures.gantt(trace, until_s=until).figure, f"the schedule's first {until:.3g} s of {horizon:.3g} s"
    )
    title = f"cosched simulate: {r['policy']} on {r['machine']} running {r['workload']} (seed {r['seed']})"
    return _page(title, [("Metrics", [_table(metrics)]), ("Jobs", [_table(run.jobs)]), ("Schedule", [gantt])])


def sweep_html(df: pd.DataFrame) -> str:
    """A :func:`cosched.sweep` frame: mean makespan and energy per policy and grid setting, every run."""
    import matplotlib.pyplot as plt

    columns = [str(c) for c in df.columns]
    keys = [c for c in columns[: columns.index("policy")] if c != "seed"]
    groups = keys + ["machine", "workload", "policy"]
    means = df.groupby(groups, sort=False, dropna=False)[["makespan_s", "energy_j"]].agg(["mean", "std", "count"])
    means.columns = ["_".join(c) for c in means.columns]
    means = means.reset_index()
    fig, ax = plt.subplots(figsize=(9, 4), layout="constrained")
    labels = [" / ".join(str(v) for v in row) for row in means[groups].itertuples(index=False)]
    ax.barh(labels, means["makespan_s_mean"])
    ax.set_xlabel("mean makespan, s")
    return _page(
        f"cosched sweep: {len(df)} runs",
        [("Means", [_table(means), _figure(fig, "mean makespan per setting")]), ("Runs", [_table(df)])],
    )


def write(path: str | Path, page: str) -> Path:
    """Write ``page`` to ``path``: a regular file whole (through a temporary file
    and a rename), a device or FIFO written into, never replaced."""
    p = Path(path)
    _cosched.write_output(str(p), page.encode("utf-8"), f"--out {p}")
    return p


def check_writable(path: str | Path) -> None:
    """Refuse, before any work, an output file that cannot be written (its folder
    missing or read-only, or a folder in its place); nothing is created."""
    _cosched.check_output(str(path), f"--out {path}")


QUIET = 2.0
"""Seconds a report runs before it says on stderr what it is doing (a short
or refused one prints nothing but its result or its one error line)."""


class _Progress:
    """One line on stderr per step, once the report has run :data:`QUIET` seconds."""

    def __init__(self) -> None:
        self.start = time.monotonic()
        self.what: str | None = None
        self.lock = threading.Lock()
        self.timer = threading.Timer(QUIET, self._say)
        self.timer.daemon = True
        self.timer.start()

    def _say(self) -> None:
        with self.lock:
            if self.what is not None:
                print(
                    f"cosched report: {self.what} ({time.monotonic() - self.start:.1f} s)", file=sys.stderr, flush=True
                )

    def step(self, what: str) -> None:
        with self.lock:
            self.what = what
        if time.monotonic() - self.start >= QUIET:
            self._say()

    def done(self) -> None:
        self.timer.cancel()
        with self.lock:
            self.what = None


def main(argv: list[str] | None = None) -> int:
    """``cosched report``: exit status 0, or 2 with one ``error:`` line; a
    progress line on stderr at each step (running, rendering, writing)."""
    import matplotlib

    matplotlib.use("Agg")
    from . import compare, simulate, sweep
    from .specs import DEFAULT_MACHINE, DEFAULT_WORKLOAD

    ap = argparse.ArgumentParser(prog="cosched report", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("papers", help="the papers' figures from a results directory")
    p.add_argument("--results", help="directory `cosched paper NAME --out` wrote (default: docs/results)")
    c = sub.add_parser("compare", help="cosched compare as a report")
    c.add_argument("-m", "--machine", default=DEFAULT_MACHINE)
    c.add_argument("-w", "--workload", default=DEFAULT_WORKLOAD)
    c.add_argument("--policies", help="comma-separated (default: every non-oracle policy)")
    c.add_argument("--baseline", default=_cosched.COMPARE_BASELINE)
    c.add_argument("--seeds", type=int, default=_cosched.COMPARE_SEEDS)
    s = sub.add_parser("simulate", help="one run with its schedule")
    s.add_argument("-m", "--machine", default=DEFAULT_MACHINE)
    s.add_argument("-w", "--workload", default=DEFAULT_WORKLOAD)
    s.add_argument("-p", "--policy", default="cfs")
    s.add_argument("--seed", type=int, default=1)
    g = sub.add_parser("sweep", help="a sweep of a grid given as JSON")
    g.add_argument("grid", help="JSON file: a mapping of lists (a product) or a list of points")
    for q in (p, c, s, g):
        q.add_argument("-o", "--out", required=True, help="HTML file to write")
    a = ap.parse_args(argv)
    progress = _Progress()
    try:
        check_writable(a.out)
        if a.what == "papers":
            progress.step(f"reading {a.results or 'docs/results'} and drawing the figures")
            page = papers_html(a.results)
        elif a.what == "compare":
            pols = a.policies.split(",") if a.policies else None
            progress.step(f"compare {a.workload} on {a.machine}, {a.seeds} seeds (with the best static co-schedule)")
            df = compare(a.machine, a.workload, pols, a.baseline, a.seeds, timing=False)
            progress.step("drawing the figures")
            page = compare_html(df)
        elif a.what == "simulate":
            progress.step(f"simulate {a.policy} on {a.machine} with {a.workload}")
            r = simulate(a.machine, a.workload, a.policy, a.seed)
            progress.step("drawing the schedule")
            page = run_html(r)
        else:
            try:
                grid = json.loads(Path(a.grid).read_text())
            except (OSError, ValueError) as e:
                raise CoschedError(f"{a.grid}: {e}") from e
            progress.step(f"sweep of {a.grid}")
            df = sweep(grid, progress=True)
            progress.step("drawing the figures")
            page = sweep_html(df)
        progress.step(f"writing {a.out}")
        write(a.out, page)
    except (CoschedError, FileNotFoundError) as e:
        progress.done()
        print(f"error: {e}", file=sys.stderr)
        return 2
    finally:
        progress.done()
    print(a.out)
    return 0
