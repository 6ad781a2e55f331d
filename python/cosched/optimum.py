"""How far from the bound: the best static partition of a workload on the
simulated machine with idle contexts allowed (each thread pinned to one context,
a context's threads taking turns, any context idle), as ``cosched optimum``
finds it (exact by simulating every distinct one, the exact best static
co-schedule beside the EVT estimate over random partitions, or the EVT estimate
alone), with Jiang et al.'s pairwise matching and its grouping beside it, and
the kind of bound it is. See docs/optimum.md."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import pandas as pd

from . import _cosched
from ._knobs import Values, _command_values, default
from ._report_types import Found, OptimumReport

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._knob_types import OptimumOptions

__all__ = ["Optimum", "optimum"]


class Optimum:
    """The result: ``report`` (``cosched optimum --format json``, typed:
    :class:`cosched._report_types.OptimumReport`), ``bound``
    (what the bound is, e.g. ``"exact best static partition, idle contexts
    allowed"``), ``best`` (its value), ``ci`` (its POT interval, or None where
    exact) and ``frame()`` (one row per candidate found, with its outcome)."""

    def __init__(self, report: object) -> None:
        self.report: OptimumReport = cast(OptimumReport, report)

    @property
    def bound(self) -> str:
        return str(self.report["bound"])

    @property
    def best(self) -> float:
        return float(self.report["best"])

    @property
    def ci(self) -> tuple[float, float] | None:
        ci = self.report["best_ci"]
        if ci is None:
            return None
        return (float(ci[0]), float("inf") if ci[1] is None else float(ci[1]))

    def frame(self) -> pd.DataFrame:
        """One row per co-schedule the search kept: kind, its outcome and assignment."""
        r = self.report
        rows: list[dict[str, Any]] = []

        def add(kind: str, found: Found) -> None:
            rows.append({"kind": kind, **found["outcome"], "assignment": found["assignment"]})

        if (e := r["exhaustive"]) is not None:
            add("exact best partition" if e["idle"] else "exact best co-schedule", e["best"])
            add("worst", e["worst"])
        if (m := r["matching"]) is not None:
            add("pairwise matching", m["found"])
        if (g := r["grouping"]) is not None:
            add(f"grouping by {g['size']}", g["found"])
        if (s := r["sampled"]) is not None:
            add("best of random", s["best"])
        return pd.DataFrame(rows)

    def to_pandas(self) -> pd.DataFrame:
        """:meth:`frame`: one row per co-schedule the search kept."""
        return self.frame()

    def __repr__(self) -> str:
        r = self.report
        return f"Optimum({r['workload']!r} on {r['machine']!r}: {r['objective']} {self.best:.5g}, {self.bound})"


def optimum(
    machine: str = default("optimum", "machine"),
    workload: str = default("optimum", "workload"),
    **options: Unpack[OptimumOptions],
) -> Optimum:
    """The bound of ``workload`` on ``machine``: its best static partition with
    idle contexts allowed, with the searches beside it. Options as
    ``cosched optimum``'s flags: ``objective="throughput"`` (or ``"antt"``),
    ``budget=20000`` (simulate every co-schedule up to this many), ``samples``
    (random assignments for the EVT estimate beyond the budget), ``seed=1``,
    ``confidence=0.95``, ``matching=True`` (Jiang et al.'s pairwise matching and
    its grouping; ``False`` skips them), ``threads``, ``copies``."""
    texts: Values = [("machine", machine), ("workload", workload)]
    texts += _command_values("optimum", options)
    return Optimum(_cosched.optimum(texts))
