"""The papers' key figures drawn from our results (the CSV files
``cosched paper NAME --out DIR`` writes; ``docs/results`` holds the
committed ones), and a Gantt view of a schedule.

Each function takes the results directory (default: ``docs/results`` of the
source tree, or ``$COSCHED_RESULTS``) and an optional matplotlib ``ax``, and
returns the ``ax``. Bars carry their 95% intervals over seeds as error bars.
:data:`PAPER_FIGURES` lists them for :mod:`cosched.report`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

__all__ = [
    "PAPER_FIGURES",
    "efs_fig8",
    "efs_table1",
    "evt_fig5",
    "evt_fig8",
    "evt_fig9",
    "gantt",
    "perf_fair_fig1",
    "perf_fair_fig2",
    "perf_fair_fig3",
    "rda_fig7",
    "results_dir",
    "slits_fig3",
]


def results_dir(path: str | Path | None = None) -> Path:
    """The results directory: ``path``, ``$COSCHED_RESULTS``, or ``docs/results`` of the source tree / working directory."""
    if path is not None:
        return Path(path)
    if "COSCHED_RESULTS" in os.environ:
        return Path(os.environ["COSCHED_RESULTS"])
    for base in (Path.cwd(), *Path.cwd().parents):
        if (base / "docs" / "results").is_dir():
            return base / "docs" / "results"
    raise FileNotFoundError(
        "no results directory: pass one, set COSCHED_RESULTS, or run `cosched paper NAME --out DIR`"
    )


def _csv(results: str | Path | None, paper: str, name: str) -> pd.DataFrame:
    path = results_dir(results) / paper / name
    if not path.exists():
        raise FileNotFoundError(f"{path}: not found (write it with `cosched paper {paper} --out DIR`)")
    return pd.read_csv(path)


def _ax(ax: Any, size: tuple[float, float] = (8.0, 4.0)) -> Any:
    """``ax``, or the axes of a new figure of ``size`` inches (every plot helper of the package)."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=size, layout="constrained")
    return ax


def _bars(ax: Any, labels: list[str], series: dict[str, tuple[np.ndarray, np.ndarray]], ylabel: str) -> Any:
    """Grouped bars: one group per label, one bar per series (values, ci95 half-widths)."""
    x = np.arange(len(labels))
    width = 0.8 / max(1, len(series))
    for i, (name, (v, ci)) in enumerate(series.items()):
        ax.bar(x + (i - (len(series) - 1) / 2) * width, v, width, yerr=ci, capsize=2, label=name)
    ax.set_xticks(x, labels, rotation=45, ha="right", fontsize="small")
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize="small", ncols=min(3, len(series)))
    return ax


def _pairs(df: pd.DataFrame, suffix: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Columns ``<name> <suffix>`` with their ``... ci95`` partners."""
    out = {}
    for c in df.columns:
        if c.endswith(suffix) and f"{c} ci95" in df.columns:
            out[c.removesuffix(suffix).strip()] = (df[c].to_numpy(float), df[f"{c} ci95"].to_numpy(float))
    return out


def slits_fig3(results: str | Path | None = None, ax: Any = None, threads: int = 64) -> Any:
    """SLITS Fig. 3: speedup over G-RRS of each policy per workload at ``threads`` threads."""
    df = _csv(results, "slits", "fig3-speedup.csv")
    df = df[df["threads"] == threads]
    ax = _bars(_ax(ax), list(df["workload"]), _pairs(df, "speedup %"), "speedup over G-RRS, %")
    ax.set_title(f"SLITS Fig. 3 (ours): speedup over G-RRS, {threads} threads")
    return ax


def efs_table1(results: str | Path | None = None, ax: Any = None) -> Any:
    """EFS Table 1: time and system energy of the four schedules of the motivating example."""
    df = _csv(results, "efs", "table1.csv")
    df = df[~df["schedule"].str.endswith("%")]  # the derived percentage rows
    ax = _ax(ax)
    x = np.arange(len(df))
    ax.bar(x - 0.2, df["time s"], 0.4, yerr=df["time s ci95"], capsize=2, label="time, s")
    ax.set_ylabel("time, s")
    ax2 = ax.twinx()
    ax2.bar(
        x + 0.2,
        df["system energy J"],
        0.4,
        yerr=df["system energy J ci95"],
        capsize=2,
        color="C1",
        label="system energy, J",
    )
    ax2.set_ylabel("system energy, J")
    ax.set_xticks(x, list(df["schedule"]), rotation=20, ha="right", fontsize="small")
    ax.set_title("EFS Table 1 (ours): time and energy of each schedule")
    ax.figure.legend(loc="upper left", fontsize="small")
    return ax


def efs_fig8(results: str | Path | None = None, ax: Any = None) -> Any:
    """EFS Fig. 8: system energy saving and speedup of EFS over CFS per benchmark."""
    df = _csv(results, "efs", "fig8.csv")
    series = {k: v for k, v in _pairs(df, "%").items() if k in ("system energy saving", "speedup")}
    ax = _bars(_ax(ax), list(df["benchmark"]), series, "% vs CFS")
    ax.set_title("EFS Fig. 8 (ours): energy saving and speedup over CFS")
    return ax


def rda_fig7(results: str | Path | None = None, ax: Any = None) -> Any:
    """RDA Fig. 7: system energy saved against CFS per workload, Strict and Compromise."""
    df = _csv(results, "rda", "figs7-10.csv")
    col = "system energy saved vs CFS %"
    wide = df.pivot(index="workload", columns="policy", values=col)
    ci = df.pivot(index="workload", columns="policy", values=f"{col} ci95")
    series = {p: (wide[p].to_numpy(float), ci[p].to_numpy(float)) for p in wide.columns}
    ax = _bars(_ax(ax), list(wide.index), series, "system energy saved vs CFS, %")
    ax.set_title("RDA Fig. 7 (ours): system energy saved against CFS")
    return ax


def _ci_lines(ax: Any, lines: Iterable[tuple[str, Any, Any, Any]], fontsize: str = "small", **labels: str) -> Any:
    """One line with 95% error bars per (label, x, y, ci95); ``labels`` set xlabel, ylabel, title."""
    for label, x, y, ci in lines:
        ax.errorbar(x, y, yerr=ci, marker="o", ms=3, capsize=2, label=label)
    ax.set(**labels)
    ax.legend(fontsize=fontsize)
    return ax


def _perf_fair_lines(df: pd.DataFrame, suffix: str, ax: Any, ylabel: str, title: str) -> Any:
    x = df["avg BW_MM trans/µs"].to_numpy(float)
    lines = [(name, x, v, ci) for name, (v, ci) in _pairs(df, suffix).items()]
    xlabel = "average memory bandwidth of the mix, transactions/µs"
    return _ci_lines(ax, lines, xlabel=xlabel, ylabel=ylabel, title=title)


def perf_fair_fig1(results: str | Path | None = None, ax: Any = None) -> Any:
    """Perf&Fair Fig. 1: unfairness of each scheduler per mix, by the mix's bandwidth."""
    df = _csv(results, "perf-fair", "fig1-unfairness.csv")
    ylabel = "unfairness (max slowdown / min slowdown)"
    return _perf_fair_lines(df, "unfairness", _ax(ax), ylabel, "Perf&Fair Fig. 1 (ours): unfairness")


def perf_fair_fig2(results: str | Path | None = None, ax: Any = None) -> Any:
    """Perf&Fair Fig. 2: speedup over Linux per mix, by the mix's bandwidth."""
    df = _csv(results, "perf-fair", "fig2-speedup.csv")
    return _perf_fair_lines(df, "speedup %", _ax(ax), "speedup over Linux, %", "Perf&Fair Fig. 2 (ours): speedup")


def perf_fair_fig3(results: str | Path | None = None, ax: Any = None) -> Any:
    """Perf&Fair Fig. 3: processes remaining over time under each scheduler (one mix, seed 1)."""
    df = _csv(results, "perf-fair", "fig3-remaining.csv")
    ax = _ax(ax)
    for name, g in df.groupby("scheduler", sort=False):
        g = g.sort_values("time_s")
        ax.step(np.r_[0.0, g["time_s"]], np.r_[g["remaining"].max() + 1, g["remaining"]], where="post", label=str(name))
    ax.set(xlabel="time, s", ylabel="processes remaining", title="Perf&Fair Fig. 3 (ours): completion over time")
    ax.legend(fontsize="small")
    return ax


def evt_fig5(results: str | Path | None = None, ax: Any = None) -> Any:
    """Statistical assignment Fig. 5: best observed performance and the POT upper bound with its interval per application."""
    df = _csv(results, "evt", "pot.csv")
    ax = _ax(ax)
    x = np.arange(len(df))
    ax.errorbar(x, df["UPB"], yerr=df["UPB ci95"], fmt="o", capsize=3, label="UPB (mean over seeds, 95% CI)")
    ax.scatter(x, df["best observed (all seeds)"], marker="x", color="C3", label="best observed")
    ax.set_xticks(x, list(df["application"]), rotation=20, ha="right", fontsize="small")
    ax.set(ylabel="performance, GIPS", title="Statistical assignment Fig. 5 (ours): POT estimate of the optimum")
    ax.legend(fontsize="small")
    return ax


def evt_fig8(results: str | Path | None = None, ax: Any = None) -> Any:
    """Statistical assignment Fig. 8: SP-POT's upper bound against plain POT's, by share pruned."""
    df = _csv(results, "evt", "sp-pot.csv")
    ax = _ax(ax)
    col = "UPB difference from POT %"
    groups = df.groupby(["application", "predictor"], sort=False)
    lines = [
        (f"{a} ({p})", g["pruned"].str.rstrip("%").astype(float), g[col], g[f"{col} ci95"]) for (a, p), g in groups
    ]
    ax.axhline(0.0, color="grey", lw=0.8)
    labels = {"xlabel": "assignments pruned, %", "ylabel": "UPB difference from POT, %"}
    return _ci_lines(ax, lines, "x-small", title="Statistical assignment Fig. 8 (ours): SP-POT", **labels)


def evt_fig9(results: str | Path | None = None, ax: Any = None) -> Any:
    """Statistical assignment Fig. 9: gap between the best of n random assignments and the UPB, by n."""
    df = _csv(results, "evt", "random-sampling.csv")
    ax = _ax(ax)
    col = "mean best-of-n gap to UPB %"
    lines = [(str(a), g["n"], g[col], g[f"{col} ci95"]) for a, g in df.groupby("application", sort=False)]
    ax.set_xscale("log")
    labels = {"xlabel": "random assignments n", "ylabel": "gap to the UPB, %"}
    return _ci_lines(ax, lines, title="Statistical assignment Fig. 9 (ours): random sampling", **labels)


def gantt(trace: pd.DataFrame, ax: Any = None, until_s: float | None = None) -> Any:
    """A schedule (``Run.trace()``) as a Gantt chart: one row per context, one
    bar per slice, coloured by job; ``until_s`` shows only the start."""
    import matplotlib as mpl

    t = trace if until_s is None else trace[trace["start_s"] < until_s]
    contexts = int(t["context"].max()) + 1 if len(t) else 1
    ax = _ax(ax, (10.0, max(2.5, 0.35 * contexts + 1.5)))
    jobs = list(dict.fromkeys(t["job_name"]))
    cmap = mpl.colormaps["tab20"]
    colour = {j: cmap(i % 20) for i, j in enumerate(jobs)}
    for ctx, g in t.groupby("context"):
        spans = list(zip(g["start_s"], g["end_s"] - g["start_s"]))
        ax.broken_barh(spans, (float(cast(float, ctx)) - 0.4, 0.8), facecolors=[colour[j] for j in g["job_name"]])
    ax.set(xlabel="time, s", ylabel="hardware context", title="Schedule", ylim=(-0.6, contexts - 0.4))
    if len(jobs) <= 40:
        handles = [mpl.patches.Patch(color=colour[j], label=j) for j in jobs]
        ax.legend(handles=handles, fontsize="x-small", ncols=8, loc="upper center", bbox_to_anchor=(0.5, -0.25))
    return ax


Figure = Callable[..., Any]

PAPER_FIGURES: dict[str, tuple[Figure, str]] = {
    "SLITS Fig. 3": (slits_fig3, "speedup over G-RRS per workload (64 threads)"),
    "EFS Table 1": (efs_table1, "time and energy of the motivating example's schedules"),
    "EFS Fig. 8": (efs_fig8, "energy saving and speedup over CFS per benchmark"),
    "RDA Fig. 7": (rda_fig7, "system energy saved against CFS"),
    "Perf&Fair Fig. 1": (perf_fair_fig1, "unfairness per mix"),
    "Perf&Fair Fig. 2": (perf_fair_fig2, "speedup over Linux per mix"),
    "Perf&Fair Fig. 3": (perf_fair_fig3, "processes remaining over time"),
    "Statistical assignment Fig. 5": (evt_fig5, "POT estimate of the optimal assignment"),
    "Statistical assignment Fig. 8": (evt_fig8, "SP-POT against POT"),
    "Statistical assignment Fig. 9": (evt_fig9, "random sampling's gap to the bound"),
}
