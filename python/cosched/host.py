"""Experiments on this Linux machine, with real processes (the command line's
``cosched run --policies`` and ``cosched calibrate --check``/``--replay``,
through the same Rust code, ``cosched_host``):

- :func:`interleaved`: several policies on one mix in interleaved rounds
  (each round measures the jobs alone, then runs every policy once in a
  seeded random order), speedups paired per round against a baseline;
- :func:`calibrate_check`: the simulator's predictions for a mix beside what
  the rounds measured on a calibrated machine description;
- :func:`replay`: a recorded check predicted again by today's simulator,
  measuring nothing;
- :func:`characterise`: programs characterised without a PMU (``cosched
  characterise``): alone and beside cache pirates and bandwidth bandits,
  measured here or read from a record, and fitted into a workload file.

Each returns a small result object: ``.data`` is the command line's
``--format json`` document, ``.to_pandas()`` one row per entry (or cell).
Knobs are the policies' keywords (``cosched.knobs()``), at the real runtime's
defaults. Every run starts a watchdog (this interpreter) that releases every
managed process if Python dies; a failed run raises
:class:`cosched.errors.HostError`. Notes and progress lines go to stderr.
A mix's programs are looked up on ``PATH`` (the command line also looks beside
its own binary: put ``target/release`` on ``PATH`` for ``cosched-bench``).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict, cast

import pandas as pd

from . import _cosched
from ._knobs import Values, check_count, check_number, check_policies, check_seed, to_values
from ._report_types import CheckReport, Interleaved, MeanCi, PairedRatio
from ._report_types import Replay as ReplayReport
from .errors import OptionError

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._knob_types import Knobs

__all__ = [
    "Characterisation",
    "CharacterisedJob",
    "Check",
    "Replay",
    "Rounds",
    "calibrate_check",
    "characterise",
    "interleaved",
    "replay",
]

#: The freezers a run can use (``cosched run --freezer``).
FREEZERS = ("auto", "v1", "v2", "signals")


def _interval(row: dict[str, Any], name: str, value: MeanCi | None) -> None:
    """``name_mean``, ``_lo``, ``_hi`` of a mean and interval (``None``: absent)."""
    row[f"{name}_mean"] = None if value is None else value["mean"]
    row[f"{name}_lo"] = None if value is None else value["lo"]
    row[f"{name}_hi"] = None if value is None else value["hi"]


@dataclass(frozen=True)
class Rounds:
    """Interleaved rounds: ``data`` is ``cosched run --policies --format json``'s
    document (typed: :class:`cosched._report_types.Interleaved`)."""

    data: Interleaved

    def to_pandas(self) -> pd.DataFrame:
        """One row per entry: each metric's mean and 95% interval over the rounds,
        the paired speedup against the baseline and its verdict."""
        rows = []
        for p in self.data["policies"]:
            row: dict[str, Any] = {"policy": p["policy"]}
            for m, v in (
                ("makespan_s", p["makespan_s"]),
                ("antt", p["antt"]),
                ("unfairness", p["unfairness"]),
                ("energy_j", p["energy_j"]),
                ("scheduler_cpu_pct", p["scheduler_cpu_pct"]),
                ("gap_to_bound_pct", p["gap_to_bound_pct"]),
            ):
                _interval(row, m, v)
            vs: PairedRatio | None = p["vs_baseline"]
            row["speedup"] = vs["ratio"] if vs else 1.0
            row["speedup_lo"] = vs["lo"] if vs else 1.0
            row["speedup_hi"] = vs["hi"] if vs else 1.0
            row["verdict"] = p["verdict"]
            rows.append(row)
        return pd.DataFrame(rows)


@dataclass(frozen=True)
class Check:
    """The simulator's check: ``data`` is ``calibrate --check --format json``'s
    ``check`` document (typed: :class:`cosched._report_types.CheckReport`)."""

    data: CheckReport

    @property
    def targets_met(self) -> bool:
        """Median |error| ≤ 15%, none beyond 30%, the predicted best within the measured interval."""
        r = self.data["result"]
        return bool(r["median_abs_error"] <= 0.15 and r["beyond_worst"] == 0 and r["best_within_interval"])

    def to_pandas(self) -> pd.DataFrame:
        """One row per (policy, job): measured slowdown (mean, interval), predicted, error."""
        rows = []
        for j in self.data["result"]["jobs"]:
            row: dict[str, Any] = {"policy": j["policy"], "job": j["job"]}
            _interval(row, "measured", j["measured"])
            row.update(predicted=j["predicted"], error=j["error"], inside=j["inside"])
            rows.append(row)
        return pd.DataFrame(rows)


@dataclass(frozen=True)
class Replay:
    """A replay: ``data`` is ``calibrate --check MIX --replay FILE --format json``'s
    document (typed: :class:`cosched._report_types.Replay`)."""

    data: ReplayReport

    def to_pandas(self) -> pd.DataFrame:
        """One row per (policy, job): measured, recorded and today's predictions."""
        return pd.DataFrame(self.data["cells"], columns=["policy", "job", "measured", "recorded", "replayed"])


def _path(name: str, value: Any, *, optional: bool = False) -> str | None:
    """A file argument as text (``str`` or ``os.PathLike``)."""
    if value is None and optional:
        return None
    if not isinstance(value, (str, os.PathLike)):
        raise OptionError(f"{name}: give a file path, got {value!r}")
    return str(Path(value))


def _live(
    machine: str | None,
    calibration: str | None,
    tick_ms: float,
    freezer: str,
    timeout_s: float | None,
    grace_s: float,
    output_dir: str | os.PathLike[str] | None,
) -> tuple[str | None, str | None, float, str, float | None, float, str | None]:
    """The real runs' settings, type-checked (the Rust side checks ranges, naming the keyword)."""
    for name, v in (("machine", machine), ("calibration", calibration)):
        if v is not None and not isinstance(v, str):
            raise OptionError(f"{name}: give a preset name or file, got {v!r}")
    if machine is not None and calibration is not None:
        raise OptionError("machine, calibration: give one")
    for name, x in (("tick_ms", tick_ms), ("grace_s", grace_s), ("timeout_s", timeout_s)):
        if x is not None and (isinstance(x, bool) or not isinstance(x, (int, float))):
            raise OptionError(f"{name}: give a number, got {x!r}")
    if freezer not in FREEZERS:
        raise OptionError(f"freezer: must be one of {', '.join(FREEZERS)}, got {freezer!r}")
    out = _path("output_dir", output_dir, optional=True)
    return machine, calibration, float(tick_ms), freezer, timeout_s, float(grace_s), out


def _knobs(knobs: dict[str, Any]) -> Values:
    return to_values(knobs)


def _names(name: str, value: Any) -> list[str]:
    names = check_policies(value)
    if not names:
        raise OptionError(f"{name}: give at least one policy name")
    return names


def interleaved(
    mix: str | os.PathLike[str],
    policies: list[str],
    *,
    baseline: str = "linux",
    repeat: int = 3,
    seed: int = 1,
    drift_threshold: float = 0.10,
    min_effect: float = 0.01,
    profile: str | os.PathLike[str] | None = None,
    machine: str | None = None,
    calibration: str | None = None,
    tick_ms: float = 20.0,
    freezer: str = "auto",
    timeout_s: float | None = None,
    grace_s: float = 5.0,
    output_dir: str | os.PathLike[str] | None = None,
    **knobs: Unpack[Knobs],
) -> Rounds:
    """``policies`` on the mix file ``mix`` in ``repeat`` interleaved rounds
    (``cosched run -w MIX --policies … --repeat N``): paired speedups against
    ``baseline``, host drift per round. With ``profile`` (a ``cosched probe``
    file) the best static partition is run every round as entry
    ``best-static`` and each entry's gap to it is measured."""
    if not isinstance(baseline, str):
        raise OptionError(f"baseline: give a policy name, got {baseline!r}")
    for name, x in (("drift_threshold", drift_threshold), ("min_effect", min_effect)):
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise OptionError(f"{name}: give a number, got {x!r}")
    data = _cosched.interleaved(
        str(_path("mix", mix)),
        _names("policies", policies),
        baseline,
        check_count("repeat", repeat),
        check_seed("seed", seed),
        float(drift_threshold),
        float(min_effect),
        _path("profile", profile, optional=True),
        _live(machine, calibration, tick_ms, freezer, timeout_s, grace_s, output_dir),
        _knobs(dict(knobs)),
        sys.executable,
    )
    return Rounds(cast(Interleaved, data))


def calibrate_check(
    mix: str | os.PathLike[str],
    preset: str,
    *,
    policies: list[str] | None = None,
    programs: str | os.PathLike[str] | None = None,
    model: str | None = None,
    repeat: int = 3,
    within: float = 5.0,
    max_rounds: int = 12,
    budget_s: float = 600.0,
    seed: int = 1,
    tick_ms: float = 20.0,
    freezer: str = "auto",
    timeout_s: float | None = None,
    grace_s: float = 5.0,
    output_dir: str | os.PathLike[str] | None = None,
    **knobs: Unpack[Knobs],
) -> Check:
    """The simulator's check against reality on the calibrated machine
    ``preset`` (``cosched calibrate --preset P --check MIX``): ``mix`` runs
    for real in interleaved rounds under ``policies`` (default ``linux,
    g-rrs, slits-contention, random``) and is simulated from its model
    (``programs``: ``cosched characterise`` output). ``model`` is the fair
    class ``linux`` is compared against (``cfs`` or ``eevdf``; default the
    host kernel's). After ``repeat`` rounds, rounds go on until every measured
    slowdown's 95% interval is within ±``within`` % of its mean, or
    ``max_rounds``, or ``budget_s`` seconds (``within=0``: exactly ``repeat``;
    ``cosched calibrate --within --max-rounds --budget-s``)."""
    if not isinstance(preset, str):
        raise OptionError(f"preset: give a preset name or file, got {preset!r}")
    if model is not None and model not in ("cfs", "eevdf"):
        raise OptionError(f"model: must be cfs or eevdf, got {model!r}")
    names = ["linux", "g-rrs", "slits-contention", "random"] if policies is None else _names("policies", policies)
    data = _cosched.calibrate_check(
        str(_path("mix", mix)),
        preset,
        names,
        _path("programs", programs, optional=True),
        model,
        check_count("repeat", repeat),
        check_seed("seed", seed),
        _live(None, None, tick_ms, freezer, timeout_s, grace_s, output_dir),
        _knobs(dict(knobs)),
        sys.executable,
        check_number("within", within),
        check_count("max_rounds", max_rounds),
        check_number("budget_s", budget_s),
    )
    return Check(cast(CheckReport, data))


def replay(
    recorded: str | os.PathLike[str],
    mix: str | os.PathLike[str],
    *,
    programs: str | os.PathLike[str] | None = None,
    seed: int = 1,
    **knobs: Unpack[Knobs],
) -> Replay:
    """The rounds a ``calibrate --check MIX --format json`` output ``recorded``
    measured, predicted again by today's simulator (``seed`` as then); no
    process is run."""
    data = _cosched.replay(
        str(_path("recorded", recorded)),
        str(_path("mix", mix)),
        _path("programs", programs, optional=True),
        check_seed("seed", seed),
        _knobs(dict(knobs)),
    )
    return Replay(cast(ReplayReport, data))


class CharacterisedJob(TypedDict):
    """One fitted job (or one of its phases, named ``JOB phase K``): the row ``cosched
    characterise`` prints. ``spread``: of its solo runs, as three runs would show it (a share);
    ``access``: ``random``, ``sequential`` or ``none`` (``either``: another pattern fits inside the
    interval too); ``footprint_range``, ``apki_range``: the lowest and highest value inside the
    fit's 95% region; ``presence``: its slowdown beside a compute loop (``None``: not fitted);
    ``rms``: how far the fitted slowdowns lie from the measured ones (a share); ``untrusted``: why
    its fit is not to be trusted (empty: it is)."""

    job: str
    solo_s: float
    spread: float
    access: str
    either: bool
    footprint_mb: float
    footprint_range: list[float]
    llc_apki: float
    apki_range: list[float]
    mlp: float
    presence: float | None
    rms: float
    untrusted: list[str]


@dataclass(frozen=True)
class Characterisation:
    """A characterisation: ``workload`` is the workload file's text (what ``cosched
    characterise -o FILE`` writes; write it yourself), ``record`` the measurements (what
    ``--record FILE`` writes, to fit again with ``from_record``), ``jobs`` each fitted job."""

    workload: str
    record: dict[str, Any]
    jobs: list[CharacterisedJob]

    def to_pandas(self) -> pd.DataFrame:
        """One row per fitted job or phase."""
        return pd.DataFrame([dict(j) for j in self.jobs])


def characterise(
    preset: str,
    *,
    mix: str | os.PathLike[str] | None = None,
    from_record: str | os.PathLike[str] | None = None,
    file: str = "programs.toml",
    repeat: int = _cosched.CHARACTERISE_REPEAT,
    within: float = _cosched.CHARACTERISE_WITHIN,
    max_rounds: int = _cosched.CHARACTERISE_MAX_ROUNDS,
    budget_s: float = _cosched.CHARACTERISE_BUDGET_S,
    added_pirates: int | None = None,
    access: Literal["both", "random", "all"] = "both",
    whole: bool = False,
    presence: bool = False,
    tick_ms: float = 20.0,
    freezer: str = "auto",
    timeout_s: float | None = None,
    grace_s: float = 5.0,
    output_dir: str | os.PathLike[str] | None = None,
) -> Characterisation:
    """Characterise the jobs of ``mix`` on this host, or fit the record ``from_record`` (what
    ``cosched characterise --from-record`` does), against the calibrated machine ``preset`` (a
    name or the file ``cosched calibrate`` wrote): each job alone and beside cache pirates,
    bandwidth bandits (and, with ``presence``, a compute loop), ``repeat`` rounds at least, then
    until every co-run's slowdown is known within ±``within`` % or ``max_rounds`` rounds or
    ``budget_s`` seconds a job. ``file`` names the workload file in messages. The keywords are
    ``cosched characterise``'s flags, with its defaults."""
    if not isinstance(preset, str):
        raise OptionError(f"preset: give a preset name or file, got {preset!r}")
    if (mix is None) == (from_record is None):
        raise OptionError("mix, from_record: give one (mix to measure, from_record to fit)")
    if added_pirates is not None:
        added_pirates = check_count("added_pirates", added_pirates, low=0)
    data = _cosched.characterise_jobs(
        preset,
        _path("mix", mix, optional=True),
        _path("from_record", from_record, optional=True),
        file,
        check_count("repeat", repeat),
        check_number("within", within),
        check_count("max_rounds", max_rounds),
        check_number("budget_s", budget_s),
        added_pirates,
        access,
        not whole,
        bool(presence),
        _live(preset, None, tick_ms, freezer, timeout_s, grace_s, output_dir),
        sys.executable,
    )
    return Characterisation(
        workload=data["workload"], record=data["record"], jobs=cast(list[CharacterisedJob], data["jobs"])
    )
