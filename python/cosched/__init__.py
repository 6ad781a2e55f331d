"""cosched from Python: simulate and compare contention-aware schedulers,
analyse the results with pandas, estimate optimal assignments with extreme
value theory, draw the papers' figures, and run sweeps locally or on Dask.

    >>> import cosched
    >>> run = cosched.simulate("i5-2500", "mcf", "cfs", seed=1, timing=False)
    >>> run.metrics["makespan_s"] > 0
    True

See docs/python.md for a tour, docs/policies.md for writing your own policy
(a :class:`cosched.Policy` subclass). ``cosched.pp`` serves progress periods to
Python programs run under ``cosched run``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import errors
from ._cosched import __version__

if TYPE_CHECKING:
    from .assignment import assign
    from .learn import complete
    from .optimum import optimum
    from .policy import Policy
    from .sim import (
        Machine,
        Run,
        Workload,
        compare,
        knobs,
        list_machines,
        list_metrics,
        list_policies,
        list_workloads,
        simulate,
    )
    from .sweeps import sweep

# (The module of `sweep` is `sweeps`: a submodule named like a function of
# the package would replace the function once imported.)
# The analysis API loads pandas and matplotlib's helpers; it is imported on
# first use, so that a program under `cosched run` importing only
# `cosched.pp` starts in tens of milliseconds rather than half a second.
_LAZY = {
    "assign": ".assignment",
    "complete": ".learn",
    "optimum": ".optimum",
    "Policy": ".policy",
    "sweep": ".sweeps",
    **{
        n: ".sim"
        for n in (
            "Machine",
            "Run",
            "Workload",
            "compare",
            "knobs",
            "list_machines",
            "list_metrics",
            "list_policies",
            "list_workloads",
            "simulate",
        )
    },
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cosched' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "Machine",
    "Policy",
    "Run",
    "Workload",
    "__version__",
    "assign",
    "compare",
    "complete",
    "errors",
    "knobs",
    "list_machines",
    "list_metrics",
    "list_policies",
    "list_workloads",
    "optimum",
    "simulate",
    "sweep",
]
