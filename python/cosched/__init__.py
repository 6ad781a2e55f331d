"""cosched from Python: simulate and compare contention-aware schedulers,
analyse the results with pandas, estimate optimal assignments with extreme
value theory, draw the papers' figures, and run sweeps locally or on Dask.

    >>> import cosched
    >>> run = cosched.simulate("i5-2500", "mcf", "cfs", seed=1, no_timing=True)
    >>> run.metrics["makespan_s"] > 0
    True

See docs/python.md for a tour. ``cosched.pp`` serves progress periods to
Python programs run under ``cosched run``.
"""

from __future__ import annotations

from . import errors
from ._cosched import __version__
from .assignment import assign
from .learn import complete
from .sim import (
    Machine,
    Run,
    Workload,
    compare,
    knobs,
    list_machines,
    list_policies,
    list_workloads,
    simulate,
)
from .sweep import sweep

__all__ = [
    "Machine",
    "Run",
    "Workload",
    "__version__",
    "assign",
    "compare",
    "complete",
    "errors",
    "knobs",
    "list_machines",
    "list_policies",
    "list_workloads",
    "simulate",
    "sweep",
]
