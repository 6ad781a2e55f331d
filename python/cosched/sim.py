"""Experiments on the simulated machine: lists of policies and presets,
editable machines and workloads, one run (:func:`simulate`), a comparison
over seeds (:func:`compare`).

Every function goes through the same Rust functions as the ``cosched`` CLI,
so ``simulate(...).report`` is what ``cosched simulate --format json`` prints
for the same inputs, and ``compare(...)`` what ``cosched compare --format
json`` prints, as DataFrames.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pandas as pd

from . import _cosched
from ._bars import runs_bar
from ._knobs import Values, _shown, check_bool, check_count, check_policies, check_seed, known, to_values
from ._report_types import Comparison, Metrics, PolicySummary, Report
from .errors import OptionError, PolicyError
from .policy import Policy, custom, is_policy
from .specs import DEFAULT_MACHINE, DEFAULT_WORKLOAD, Machine, Workload, _input

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._knob_types import Knobs

__all__ = [
    "Machine",
    "Run",
    "Workload",
    "compare",
    "knobs",
    "list_machines",
    "list_policies",
    "list_workloads",
    "simulate",
]

_RESERVED = ("machine", "workload", "policy", "seed", "seeds", "policies", "baseline", "format", "trace")


def _listing(what: str) -> pd.DataFrame:
    return pd.DataFrame(_cosched.listing(what))


def list_policies() -> pd.DataFrame:
    """Every policy: name, description, oracle (reads the simulator's ground truth)."""
    return _listing("policies")


def list_machines() -> pd.DataFrame:
    """Every machine preset: name, description, contexts."""
    return _listing("machines")


def list_workloads() -> pd.DataFrame:
    """Every workload preset: name, description, threads."""
    return _listing("workloads")


def list_metrics() -> pd.DataFrame:
    """Every metric a frame or command reports: name, description, unit, better
    (``higher``, ``lower`` or ``neither``); the column names of :func:`compare`'s frames."""
    return _listing("metrics")


def knobs() -> pd.DataFrame:
    """Every keyword knob of :func:`simulate`, :func:`compare` and :func:`cosched.sweep`:
    name, the CLI flag it stands for, default, switch (True/False knob), help."""
    return pd.DataFrame(list(known().values()))


def _inputs(machine: str | Machine, workload: str | Workload, knobs: Mapping[str, Any]) -> tuple[Values, Any, Any]:
    mtexts, mtoml = _input("machine", machine)
    wtexts, wtoml = _input("workload", workload)
    return mtexts + wtexts + to_values(knobs, reserved=_RESERVED), mtoml, wtoml


def _flatten(report: Mapping[str, Any]) -> dict[str, Any]:
    """One run's report as one flat row: identity columns, then every metric
    under its registry name (``cosched list metrics``)."""
    row = {k: report[k] for k in ("policy", "seed", "oracle", "machine", "workload", "threads", "noise")}
    row.update(report["metrics"])
    return row


def runs_frame(reports: list[dict[str, Any]]) -> pd.DataFrame:
    """Reports as a DataFrame, one row per run, numeric metric columns (missing values NaN)."""
    df = pd.DataFrame([_flatten(r) for r in reports])
    for c in df.columns:
        if c not in ("policy", "machine", "workload", "oracle"):
            df[c] = pd.to_numeric(df[c])
    return df


class Run:
    """One simulated run.

    ``report`` is the full report (``cosched simulate --format json``), typed
    (:class:`cosched._report_types.Report`, generated from the Rust struct),
    ``metrics`` its ``metrics``, ``jobs`` one row per job instance.
    """

    def __init__(self, report: dict[str, Any], call: tuple[Any, ...]) -> None:
        self.report: Report = cast(Report, report)
        self._call = call

    @property
    def metrics(self) -> Metrics:
        """Run metrics, the same keys and values as ``cosched simulate --format json``."""
        return self.report["metrics"].copy()

    @property
    def jobs(self) -> pd.DataFrame:
        """One row per job instance: name, threads, turnaround_s, solo_s, slowdown."""
        return pd.DataFrame(self.report["jobs"], columns=["name", "threads", "turnaround_s", "solo_s", "slowdown"])

    @property
    def policy(self) -> str:
        return str(self.report["policy"])

    @property
    def seed(self) -> int:
        return int(self.report["seed"])

    def row(self) -> dict[str, Any]:
        """The run as one flat row (the columns of :func:`compare`'s frame)."""
        return _flatten(self.report)

    def to_pandas(self) -> pd.DataFrame:
        """The run as one row of :func:`compare`'s frame (every metric a column)."""
        return pd.DataFrame([self.row()])

    def trace(self, path: str | Path | None = None) -> pd.DataFrame:
        """The schedule: one row per stretch a thread ran on a context (context,
        thread, job, job_name, start_s, end_s). With ``path``, also writes the
        Chrome/Perfetto trace JSON there (open it in ui.perfetto.dev). The run
        is deterministic, so this reruns it with the same inputs and seed."""
        flags, mtoml, wtoml, policy, seed, code = self._call
        _, names, slices = _cosched.simulate(
            flags,
            mtoml,
            wtoml,
            policy,
            seed,
            collect=True,
            trace_path=None if path is None else str(path),
            custom=code,
        )
        df = pd.DataFrame(slices, columns=["context", "thread", "job", "start_ns", "end_ns"])
        df.insert(3, "job_name", [names[j] for j in df["job"]])
        df["start_s"] = df.pop("start_ns") * 1e-9
        df["end_s"] = df.pop("end_ns") * 1e-9
        return df

    def __repr__(self) -> str:
        m = self.report["metrics"]
        return (
            f"Run({self.policy!r} on {self.report['machine']!r} running {self.report['workload']!r}, "
            f"seed {self.seed}: makespan {m['makespan_s']:.4f} s, energy {m['energy_j']:.1f} J)"
        )


def simulate(
    machine: str | Machine = DEFAULT_MACHINE,
    workload: str | Workload = DEFAULT_WORKLOAD,
    policy: str | Policy = "cfs",
    seed: int = 1,
    **knobs: Unpack[Knobs],
) -> Run:
    """Run ``policy`` on ``machine`` and ``workload`` (preset names, TOML paths,
    or :class:`Machine` / :class:`Workload` objects) with ``seed``; ``knobs`` are
    the CLI's flags as keywords (``quantum_ms=4``, ``noise=0``, ``timing=False``;
    see :func:`knobs`). ``policy`` is a registry name or a :class:`cosched.Policy`
    instance (your own policy, docs/policies.md)."""
    seed = check_seed("seed", seed)
    if not isinstance(policy, str) and not _is_code(policy):
        raise PolicyError(
            f"policy: give a registry name (cosched.list_policies()) or an instance of a cosched.Policy "
            f"subclass, got {_shown(policy)}"
        )
    code = custom(policy) if _is_code(policy) else None
    name = code[0] if code else str(policy)
    flags, mtoml, wtoml = _inputs(machine, workload, knobs)
    report, _, _ = _cosched.simulate(flags, mtoml, wtoml, name, seed, custom=code)
    return Run(report, (flags, mtoml, wtoml, name, seed, code))


def _is_code(p: Any) -> bool:
    """Whether ``p`` is a policy given as code (or its class, refused by :func:`custom` with a hint)."""
    return is_policy(p) or (isinstance(p, type) and issubclass(p, Policy))


def _with_codes(policies: list[Any], codes: list[Any]) -> list[tuple[Any, Any]]:
    """Each entry of ``policies`` with its code tuple (None for a registry name), in order."""
    it = iter(codes)
    return [(p, next(it) if _is_code(p) else None) for p in policies]


def summary_frame(policies: list[PolicySummary]) -> pd.DataFrame:
    """Per-policy summary rows (mean, 95% interval lo/hi, n) from the comparison JSON."""
    rows = []
    for p in policies:
        row: dict[str, Any] = {"policy": p["policy"], "oracle": p["oracle"], "beats_bound": p["beats_bound"]}
        for k, v in p.items():
            if k == "beats_bound":
                continue
            if isinstance(v, dict):
                row.update({f"{k}_mean": v["mean"], f"{k}_lo": v["lo"], f"{k}_hi": v["hi"]})
                row["seeds"] = v["n"]
            elif v is None and k not in ("policy", "oracle"):
                row.update({f"{k}_mean": float("nan"), f"{k}_lo": float("nan"), f"{k}_hi": float("nan")})
        rows.append(row)
    return pd.DataFrame(rows)


def compare(
    machine: str | Machine = DEFAULT_MACHINE,
    workload: str | Workload = DEFAULT_WORKLOAD,
    policies: list[str | Policy] | None = None,
    baseline: str = _cosched.COMPARE_BASELINE,
    seeds: int = _cosched.COMPARE_SEEDS,
    seed: int = _cosched.COMPARE_FIRST_SEED,
    bound: bool = True,
    regimes: bool = True,
    gap: bool | None = None,
    progress: bool = True,
    **knobs: Unpack[Knobs],
) -> pd.DataFrame:
    """Every policy (default: every non-oracle policy needing no extra input) on
    the same machine and workload over ``seeds`` seeds from ``seed``, as
    ``cosched compare``: one row per (policy, seed) with numeric columns and
    ``speedup`` (baseline makespan / this makespan, same seed).

    ``df.attrs["summary"]`` holds one row per policy with ``<metric>_mean``,
    ``_lo``, ``_hi`` (95% t-interval over seeds); ``df.attrs`` also names the
    ``baseline``, ``machine``, ``workload`` and ``seeds``.

    An entry of ``policies`` may be a :class:`cosched.Policy` instance (your own
    policy): it runs on the same seeds and is summarised like the others.
    ``df.attrs["bound"]`` is the bound of each seed (the best static partition
    with idle contexts allowed: each thread pinned to one context, a context's
    threads taking turns, any context idle), or None: ``kind``, ``gips`` and
    ``ci`` (the POT interval per seed, None where exact; an unbounded upper end
    is ``inf``). The summary's ``beats_bound`` is True only at 10 seeds or more
    with the paired interval of the gap to each seed's upper end below zero.
    ``bound=False`` skips the bound (``gap_to_bound_pct``; ``cosched compare
    --no-bound``; ``gap=``, its old name, still works and warns).
    ``df.attrs["identical"]`` lists the groups of policies whose runs were the
    same simulated outcome on every seed, and what each found to act on (as
    the lines under ``cosched compare``'s table). ``df.attrs["regimes"]`` lists the policies that run outside
    their paper's regime here (``policies``, ``paper``, ``regime``, ``here``),
    and where stretching the jobs brings them into it, ``in_regime``: the
    family rerun with every job 100 s alone, same machine, mix and seeds, its
    unfairness minus the baseline's paired by seed beside this run's
    (docs/index.md, "Regimes"); ``regimes=False`` skips it (``cosched compare
    --no-regime``). ``progress`` shows a tqdm bar of the runs (the bound's are
    most of them) once the comparison has run 2 s; ``progress=False`` never.
    """
    codes: list[Any] = []
    entries: Any = policies
    if isinstance(policies, (list, tuple)):
        codes = [custom(p) for p in policies if _is_code(p)]
        entries = [c[0] if c else p for p, c in _with_codes(list(policies), codes)]
    names = check_policies(entries)
    seed, seeds = check_seed("seed", seed), check_count("seeds", seeds)
    if gap is not None:
        warnings.warn("compare(gap=...) is now compare(bound=...), as `--no-bound`", DeprecationWarning, stacklevel=2)
        bound = check_bool("gap", gap)
    bound = check_bool("bound", bound)
    progress = check_bool("progress", progress)
    regimes = check_bool("regimes", regimes)
    if not isinstance(baseline, str):
        raise OptionError(f"baseline: give a policy name, got {_shown(baseline)}")
    flags, mtoml, wtoml = _inputs(machine, workload, knobs)
    c = cast(
        Comparison,
        _cosched.compare(
            flags,
            mtoml,
            wtoml,
            names,
            str(baseline),
            seed,
            seeds,
            customs=codes,
            bound=bool(bound),
            regimes=bool(regimes),
            progress=runs_bar("compare") if progress else None,
        ),
    )
    df = runs_frame(cast(list[dict[str, Any]], c["runs"]))
    df.insert(3, "speedup", c["speedups"])  # computed in Rust, as the summary's
    b = c["best_static"]
    best = None
    if b is not None:
        ci = [None if x is None else (x[0], float("inf") if x[1] is None else x[1]) for x in b["best_ci"]]
        best = {"kind": b["bound"], "gips": list(b["best_gips"]), "ci": ci, "samples": b["samples"]}
    df.attrs.update(
        summary=summary_frame(c["policies"]),
        bound=best,
        regimes=c["regimes"],
        identical=c["identical"],
        baseline=c["baseline"],
        machine=c["machine"],
        workload=c["workload"],
        seeds=c["seeds"],
    )
    return df
