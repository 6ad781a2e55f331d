"""Sweeps: a grid of (machine, workload, policy, seed, knobs) runs, locally in
parallel or on a Dask ``distributed`` cluster, as one DataFrame.

Every run is a pure function of its point (inputs, policy, seed), so the
result does not depend on where or in which order runs execute: a cluster
sweep returns exactly the serial frame, row for row. Decision time (wall
clock) is the one measured quantity; sweeps switch it off unless
``timing=True``.

Runs that share machine, workload, knobs and seed share their plan and solo
reference runs within a partition, as ``cosched compare`` does; the grid's
product puts ``policy`` innermost so they sit together.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

import pandas as pd

from . import _cosched
from ._knobs import Values, check_seed, to_values
from .errors import OptionError
from .policy import custom, is_policy
from .sim import runs_frame
from .specs import DEFAULT_MACHINE, DEFAULT_WORKLOAD, Machine, Workload, _input

__all__ = ["expand", "partition", "sweep"]

_AXES = ("machine", "workload", "seed", "policy")
#: Most points one sweep runs (the Rust side's bound, `cosched_cli::limits::SWEEP_POINTS`).
MAX_POINTS = 1_000_000
Point = tuple[Values, str | None, str | None, str, int]


def expand(grid: Mapping[str, Any] | Iterable[Mapping[str, Any]] | pd.DataFrame) -> list[dict[str, Any]]:
    """The grid's points. A mapping is a product: each value a list of
    settings (a scalar is one setting), ``policy`` varying fastest, then
    ``seed``, then the knobs, then workload and machine. A list of mappings
    or a DataFrame gives the points one by one."""
    if isinstance(grid, pd.DataFrame):
        return [cast(dict[str, Any], dict(r)) for r in grid.to_dict("records")]
    if isinstance(grid, (str, bytes)) or not isinstance(grid, (Mapping, Iterable)):
        raise OptionError(
            "grid: give a mapping of axes to settings ({'policy': ['cfs', 'efs'], 'seed': range(1, 6)}), "
            f"a list of such mappings or a DataFrame, got {type(grid).__name__} {grid!r:.40}"
        )
    if not isinstance(grid, Mapping):
        points = []
        for k, p in enumerate(grid):
            if not isinstance(p, Mapping):
                raise OptionError(f"grid: point {k} must be a mapping of axis to setting, got {p!r:.40}")
            points.append(dict(p))
            if len(points) > MAX_POINTS:
                raise OptionError(f"grid: more than {MAX_POINTS:,} points: split the sweep into several")
        return points
    if not grid:
        raise OptionError(
            "grid: no axis: give at least one ({'policy': ['cfs', 'efs']}); an empty mapping would run one default point"
        )
    axes = {k: (list(v) if isinstance(v, (list, tuple, range)) else [v]) for k, v in grid.items()}
    size = math.prod(len(v) for v in axes.values())
    if size > MAX_POINTS:
        raise OptionError(
            f"grid: {size:,} points, at most {MAX_POINTS:,} in one sweep (every report is kept for the frame): "
            "split the sweep into several"
        )
    knob_keys = [k for k in axes if k not in _AXES]
    order = [k for k in ("machine", "workload") if k in axes] + knob_keys + [k for k in ("seed", "policy") if k in axes]
    return [dict(zip(order, combo)) for combo in itertools.product(*(axes[k] for k in order))]


def _point(p: Mapping[str, Any], timing: bool, tomls: dict[int, str], codes: dict[str, Any]) -> Point:
    knobs = {k: v for k, v in p.items() if k not in _AXES}
    if not timing:
        knobs.setdefault("timing", False)
    texts: Values = []
    specs: list[str | None] = []
    for key, default in (("machine", DEFAULT_MACHINE), ("workload", DEFAULT_WORKLOAD)):
        value = p.get(key, default)
        if isinstance(value, (Machine, Workload)) and id(value) not in tomls:
            tomls[id(value)] = value.to_toml()
        f, _ = _input(key, value.name if isinstance(value, (Machine, Workload)) else value)
        texts += f
        specs.append(tomls[id(value)] if isinstance(value, (Machine, Workload)) else None)
    policy = p.get("policy", "cfs")
    if is_policy(policy):
        code = custom(policy)
        if code[0] in codes and codes[code[0]][3] is not policy:
            raise OptionError(f"policy: two different policies are named {code[0]!r}: give each its own name")
        codes.setdefault(code[0], (*code, policy))
        policy = code[0]
    if not isinstance(policy, str):
        raise OptionError(f"policy: must be a policy name (a string) or a cosched.Policy instance, got {policy!r}")
    return texts + to_values(knobs), specs[0], specs[1], policy, check_seed("seed", p.get("seed", 1))


def partition(n: int, parts: int) -> list[range]:
    """``n`` points in ``parts`` contiguous ranges of near-equal size."""
    parts = max(1, min(parts, n))
    size = math.ceil(n / parts)
    return [range(i, min(i + size, n)) for i in range(0, n, size)]


def _run_partition(points: Sequence[Point]) -> list[dict[str, Any]]:
    """One partition (a Dask task): its reports, in order."""
    return list(_cosched.sweep(list(points)))


def sweep(
    grid: Mapping[str, Any] | Iterable[Mapping[str, Any]] | pd.DataFrame,
    client: Any = None,
    *,
    partitions: int | None = None,
    progress: bool = True,
    timing: bool = False,
) -> pd.DataFrame:
    """Run every point of ``grid`` (see :func:`expand`); one row per run, in
    grid order: the point's knob columns, then the run's identity and metrics
    (the columns of :func:`cosched.compare`).

    Without ``client``, runs in parallel in this process (Rust threads, one
    per core). With a ``dask.distributed.Client``, the points are cut into
    ``partitions`` contiguous tasks (default: 4 per worker thread, at most
    2,000 points each) run on its workers. ``progress`` shows a tqdm bar.
    """
    points = expand(grid)
    if not points:
        return pd.DataFrame()
    tomls: dict[int, str] = {}
    codes: dict[str, Any] = {}
    encoded = [_point(p, timing, tomls, codes) for p in points]
    customs = [c[:3] for c in codes.values()]
    bar = _bar(len(points), progress)
    try:
        if client is None:
            reports = _cosched.sweep(encoded, progress=bar.update if bar is not None else None, customs=customs)
        elif customs:
            raise OptionError(
                "a sweep with policies written in Python runs in this process: drop client= "
                "(the policy objects would have to be shipped to every worker)"
            )
        else:
            reports = _on_cluster(client, encoded, partitions, bar)
    finally:
        if bar is not None:
            bar.close()
    df = runs_frame(list(reports))
    # Knobs the report already carries (threads, noise) keep the report's column.
    knob_cols = sorted({k for p in points for k in p} - set(_AXES) - set(df.columns))
    for i, k in enumerate(knob_cols):
        df.insert(i, k, [p.get(k) for p in points])
    return df


def _on_cluster(client: Any, points: list[Point], partitions: int | None, bar: Any) -> list[dict[str, Any]]:
    from distributed import as_completed

    if partitions is None:
        threads = sum(client.nthreads().values()) or 1
        partitions = max(4 * threads, math.ceil(len(points) / 2000))
    ranges = partition(len(points), partitions)
    futures = client.map(_run_partition, [points[r.start : r.stop] for r in ranges], pure=False)
    index = {f.key: i for i, f in enumerate(futures)}
    out: list[list[dict[str, Any]]] = [[] for _ in ranges]
    for fut in as_completed(futures):  # type: ignore[no-untyped-call]
        i = index[fut.key]
        out[i] = fut.result()
        if bar is not None:
            bar.update(len(ranges[i]))
    return [r for part in out for r in part]


def _bar(total: int, show: bool) -> Any:
    if not show:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="run", desc="sweep")
