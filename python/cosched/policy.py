"""Your own scheduling policy in Python.

Subclass :class:`Policy`, give it a ``name``, and pass an instance wherever a
policy name goes: ``cosched.simulate(policy=MyPolicy())``,
``cosched.compare(policies=["cfs", MyPolicy()])`` or a sweep's ``policy``
axis. It gets the events and makes the decisions of the Rust trait
``cosched_core::policy::Policy`` (the contract every built-in policy runs
behind, docs/architecture.md, "The policy boundary"):

* ``init(view)`` once before the first event;
* ``on_event(event, view)`` for every :class:`Event` (``event.kind`` is
  ``arrived``, ``runnable``, ``blocked``, ``exited``, ``timer``,
  ``period_begin`` or ``period_end``), returning a list of decisions built
  with :func:`run`, :func:`preempt`, :func:`idle`, :func:`timer`,
  :func:`cancel` and :func:`admit` (or None for none).

The ``view`` (:class:`View`) reads the machine as plain Python values: ``now()``
(ns), ``topology()`` ((pipe, core, llc, socket) per context),
``running_on(ctx)``, ``job_of(thread)``, ``thread_counters(thread)`` (a tuple
in :data:`COUNTERS` order, cumulative; None without counters),
``counters(threads)``, ``socket_counters``, ``energy``, ``llc_bytes``,
``bus_lines_per_s``, ``power_table``, ``n_threads()``, ``n_contexts()``. It is
valid only during the call it is passed to.

Each run gets its own deep copy of the instance given (runs share no state
and may run in parallel). Runs are deterministic: the same inputs and seed
give byte-identical reports, as for a built-in policy, provided the policy is
(seed any randomness it uses from ``self``). An exception raised by the
policy, or a decision that is not one, stops the run with
:class:`cosched.errors.SimulationError` whose message holds the traceback and
the simulated time.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from . import _cosched
from .errors import PolicyError

__all__ = [
    "COUNTERS",
    "NEEDS",
    "Event",
    "Policy",
    "View",
    "admit",
    "cancel",
    "idle",
    "preempt",
    "run",
    "timer",
]

#: The order of the counters in ``view.thread_counters(t)``'s tuple.
COUNTERS: tuple[str, ...] = tuple(_cosched.COUNTERS)
#: What a policy may declare in ``needs``.
NEEDS = ("counters", "smt", "progress_periods", "energy")
#: One event (``kind``, ``thread``, ``job``, ``ctx``, ``reason``, ``key``, ``period``, ``demand``).
Event = _cosched.Event
#: The machine as the policy sees it during a call.
View = _cosched.View

Decision = tuple[Any, ...]


def run(thread: int, ctx: int) -> Decision:
    """Run ``thread`` on ``ctx`` (whatever runs there is preempted and stays runnable)."""
    return ("run", thread, ctx)


def preempt(ctx: int) -> Decision:
    """Stop the thread running on ``ctx`` (it stays runnable) and leave ``ctx`` idle."""
    return ("preempt", ctx)


def idle(ctx: int) -> Decision:
    """Leave ``ctx`` idle on purpose (recorded; EFS §4.2)."""
    return ("idle", ctx)


def timer(key: int, at_ns: int) -> Decision:
    """Arm timer ``key`` to fire at absolute time ``at_ns`` (replaces an earlier setting of ``key``)."""
    return ("timer", key, at_ns)


def cancel(key: int) -> Decision:
    """Cancel timer ``key``."""
    return ("timer", key, None)


def admit(period: int) -> Decision:
    """Admit a waiting progress period (RDA §2.3): its thread becomes runnable."""
    return ("admit", period)


class Policy:
    """Base class of a policy written in Python: override :meth:`on_event`
    (and :meth:`init` if it needs the machine first); set ``name`` (not a
    built-in policy's) and ``needs`` (a tuple of :data:`NEEDS` words)."""

    name: str = "python-policy"
    needs: tuple[str, ...] = ()

    def init(self, view: Any) -> None:
        """Called once before the first event."""

    def on_event(self, event: Any, view: Any) -> list[Decision] | None:
        """Handle one event; return the decisions (default: none)."""
        return None

    def __repr__(self) -> str:
        return f"<cosched policy {self.name!r} ({type(self).__name__})>"


def is_policy(p: Any) -> bool:
    """Whether ``p`` is a policy given as code (an instance of :class:`Policy`)."""
    return isinstance(p, Policy)


def custom(p: Any) -> tuple[str, Callable[[], Policy], list[str]]:
    """What the Rust side needs to run ``p``: its name, a factory of fresh
    deep copies, and its needs; bad declarations raise :class:`PolicyError`."""
    if isinstance(p, type):
        raise PolicyError(f"pass an instance of {p.__name__} (e.g. {p.__name__}()), not the class")
    name = getattr(p, "name", None)
    if not isinstance(name, str) or not name.strip():
        raise PolicyError(f"{type(p).__name__}.name must be a non-empty string, got {name!r}")
    if not name.isprintable():
        raise PolicyError(f"{type(p).__name__}.name must be printable (no control characters), got {name!r}")
    needs = getattr(p, "needs", ())
    if isinstance(needs, str) or not all(isinstance(n, str) for n in needs):
        raise PolicyError(f"{name}: needs must be a tuple of words from {NEEDS}, got {needs!r}")
    try:
        template = copy.deepcopy(p)
    except Exception as e:  # noqa: BLE001 - any failure to copy is the same refusal
        raise PolicyError(
            f"{name}: each run needs a fresh copy of the policy, and copying it failed ({type(e).__name__}: {e}); "
            "keep locks, files and threads out of its attributes, or give it a __deepcopy__"
        ) from None
    return name, lambda: copy.deepcopy(template), list(needs)
