"""Random thread assignments measured on the simulated machine, the best
found, and the Peak-Over-Threshold estimate of the optimum (statistical
thread assignment, Secs. 4-6), with SP-POT pruning: ``cosched assign``."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import pandas as pd

from . import _cosched
from ._knobs import Values, _command_values, check_seed, default
from ._report_types import AssignmentReport, PotResult

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._knob_types import AssignOptions

__all__ = ["Assignment", "assign"]


class Assignment:
    """The result: ``report`` (``cosched assign --format json``, typed:
    :class:`cosched._report_types.AssignmentReport`), ``pot`` (the
    estimate), ``samples`` (one row per measured assignment: sample, gips,
    predicted)."""

    def __init__(self, report: object, measured: list[tuple[int, float]], predicted: list[float]) -> None:
        self.report: AssignmentReport = cast(AssignmentReport, report)
        self.samples = pd.DataFrame(measured, columns=["sample", "gips"])
        self.samples["predicted"] = predicted

    @property
    def pot(self) -> PotResult:
        """The POT (or SP-POT) estimate: upb, ci, threshold, fit, best, gap."""
        return self.report["pot"].copy()

    @property
    def best(self) -> float:
        return float(self.report["best"])

    def to_pandas(self) -> pd.DataFrame:
        """:attr:`samples`: one row per measured assignment (sample, gips, predicted)."""
        return self.samples.copy()

    def __repr__(self) -> str:
        p = self.report["pot"]
        return (
            f"Assignment({self.report['workload']!r} on {self.report['machine']!r}: best {self.best:.5g} GIPS, "
            f"bound {p['upb']:.5g} [{p['ci'][0]:.5g}, {p['ci'][1]:.5g}])"
        )


def assign(
    machine: str = default("assign", "machine"),
    workload: str = default("assign", "workload"),
    seed: int = 1,
    **options: Unpack[AssignOptions],
) -> Assignment:
    """Draw ``samples`` random assignments of ``workload``'s threads to
    ``machine``'s contexts, measure each in a run of its own, and estimate the
    best performance any assignment reaches. Options as ``cosched assign``'s
    flags: ``samples=2000``, ``prune=0.0`` (SP-POT share pruned by the
    predictor), ``threshold="auto"`` (or a value, or ``"q0.9"``),
    ``confidence=0.95``, ``noise=1.0``, ``compare_plain=False``."""
    texts: Values = [("machine", machine), ("workload", workload), ("seed", check_seed("seed", seed))]
    texts += _command_values("assign", options)
    report, measured, predicted = _cosched.assign(texts)
    return Assignment(report, measured, predicted)
