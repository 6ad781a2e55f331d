"""Exceptions of cosched: one class per error variant of the library (as
polars does), each carrying the same one-line message the CLI prints after
``error:``.

Every class derives from :class:`CoschedError`, and also from the builtin
that fits (``ValueError`` for bad input, ``RuntimeError`` for a run that
stopped), so ``except ValueError`` keeps working.

==========================  ===========================================  =====================================
class                       raised when                                  Rust variant
==========================  ===========================================  =====================================
ConfigError                 a machine or workload (preset, TOML file,    ``RunError::Config`` (``ConfigError``)
                            field) is unknown or out of range
OptionError                 a knob (keyword) is unknown, malformed or    ``RunError::Option``
                            out of range
PolicyError                 an unknown policy, or one refusing its        ``RunError::Policy``
                            options (``static`` without an assignment)
SimulationError             the simulation stopped (simulated-time        ``RunError::Simulation``
                            limit, every thread left waiting)
StudyError                  a study's own measurement could not be made   ``RunError::Study``
                            (a run ended before the window it measures)
TooFewExceedancesError      POT: too few exceedances over the threshold   ``PotError::TooFewExceedances``
UnboundedTailError          POT: the fitted tail has no finite end        ``PotError::UnboundedTail``
NoConvergenceError          POT: the GPD fit did not converge             ``PotError::NoConvergence``
NoThresholdError            POT: no candidate threshold could be fitted   ``PotError::NoThreshold``
BadSampleError              POT: NaN, empty sample, bad confidence        ``PotError::BadInput``
HostError                   a run of real processes failed (the runtime   ``HostError::{Runtime, SoloFailed,
                            refused or stopped it, a round's solo run     Stopped}``
                            failed); ``kind``, ``round``, ``job``/``entry``
CompletionError             matrix completion refused its cells           ``learn::complete`` error
NotFittedError              a result read from an estimator before its    (Python only)
                            ``fit`` (``POT(x).result``)
==========================  ===========================================  =====================================
"""

from __future__ import annotations

__all__ = [
    "BadSampleError",
    "CompletionError",
    "ConfigError",
    "CoschedError",
    "EvtError",
    "HostError",
    "NoConvergenceError",
    "NoThresholdError",
    "NotFittedError",
    "OptionError",
    "PolicyError",
    "SimulationError",
    "StudyError",
    "TooFewExceedancesError",
    "UnboundedTailError",
]


class CoschedError(Exception):
    """Base class of every cosched error; ``str(e)`` is the CLI's one line."""


class ConfigError(CoschedError, ValueError):
    """A machine or workload input: ``file`` (a path or preset name, without a line
    suffix), ``line`` (``None`` when not from a file's line), ``field`` (dotted path
    such as ``job.0.phase.1.ipc`` is written ``job[0].phase[1].ipc``; ``None`` when
    no single field is at fault) and ``problem``."""

    file: str = ""
    line: int | None = None
    field: str | None = None
    problem: str = ""

    @classmethod
    def of(cls, file: str, field: str | None, problem: str) -> ConfigError:
        """The error about ``field`` of ``file``, worded as the CLI words it."""
        e = cls(f"{file}: {field}: {problem}" if field else f"{file}: {problem}")
        e.file, e.field, e.problem = file, field, problem
        return e


class OptionError(CoschedError, ValueError):
    """A knob (a keyword argument, the CLI's flag) unknown, malformed or out of range."""


class PolicyError(CoschedError, ValueError):
    """An unknown policy, or a policy refusing its options.

    ``kind`` names the failure (``unknown``, ``refused``, ``built_in_name``, ``unnamed``,
    ``needs``, or the engine's: ``policy``, ``contract``); ``workload`` the workload whose
    run found it, or None."""

    kind: str | None = None
    workload: str | None = None


class SimulationError(CoschedError, RuntimeError):
    """The simulation itself stopped (the simulated-time limit, a policy leaving every thread waiting).

    ``kind`` names why (``time_limit``, ``stalled``, ``time_stuck``, ``event_budget``,
    ``cancelled``, ``search``: the bound's search); ``workload`` the workload run, or None."""

    kind: str | None = None
    workload: str | None = None


class StudyError(CoschedError, RuntimeError):
    """A study's own measurement could not be made (a run that ended before the window it measures).

    ``kind`` names which (``ended_early``, ``no_window``, ``no_grid_model``, ...)."""

    kind: str | None = None


class HostError(CoschedError, RuntimeError):
    """A run of real processes failed (``cosched.host``): ``kind`` is
    ``runtime`` (the runtime refused it), ``solo_failed`` (a round's solo run
    of ``job``) or ``stopped`` (a run was cut short: ``reason`` says how,
    ``timed out after 0.3 s`` or ``was interrupted by SIGINT``; ``terminated``
    and ``killed`` name the instances sent SIGTERM and SIGKILL; ``entry`` and
    ``round``, from 0, say which run of the rounds). Every managed process has
    been released by then."""

    kind: str | None = None
    round: str | None = None
    job: str | None = None
    entry: str | None = None
    reason: str | None = None
    terminated: str | None = None
    killed: str | None = None


class EvtError(CoschedError, ValueError):
    """The Peak-Over-Threshold estimate failed (statistical thread assignment, Sec. 4)."""


class TooFewExceedancesError(EvtError):
    """Fewer exceedances over the threshold than the GPD fit needs."""


class UnboundedTailError(EvtError):
    """The fitted tail is unbounded (shape >= 0): no finite upper bound exists."""


class NoConvergenceError(EvtError):
    """The GPD fit did not converge (degenerate exceedances)."""


class NoThresholdError(EvtError):
    """The automatic threshold rule found no candidate it could fit."""


class BadSampleError(EvtError):
    """The sample or a parameter is unusable (NaN, empty, confidence outside (0, 1))."""


class CompletionError(CoschedError, ValueError):
    """Matrix completion refused its input (no observed cell, a cell outside the matrix, a non-finite value)."""


class NotFittedError(CoschedError, AttributeError):
    """A result was read from an estimator that was not fitted: call ``fit`` first
    (a read never fits silently, with thresholds the caller did not choose)."""
