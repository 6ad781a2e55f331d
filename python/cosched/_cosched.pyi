# Type stubs of the extension module built from crates/cosched-py (PyO3).
# python/tests/test_stubs.py checks that these match the module.
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias, overload

__version__: str
SOURCE_TREE: str
#: `compare`'s defaults, declared once in the lab (`cosched_lab::compare::DEFAULT_*`).
COMPARE_BASELINE: str
COMPARE_SEEDS: int
COMPARE_FIRST_SEED: int
CHARACTERISE_REPEAT: int
CHARACTERISE_WITHIN: float
CHARACTERISE_MAX_ROUNDS: int
CHARACTERISE_BUDGET_S: float

#: A knob's value as it crosses (checked by its declaration on the Rust side).
KnobValue: TypeAlias = bool | int | float | str | list[str]
Point: TypeAlias = tuple[list[tuple[str, KnobValue]], str | None, str | None, str, int]
Slice: TypeAlias = tuple[int, int, int, int, int]
# A policy given as Python code: (name, factory of fresh instances, needs).
Custom: TypeAlias = tuple[str, Callable[[], object], list[str]]
Counters: TypeAlias = tuple[float, float, float, float, float, float, float, float]

COUNTERS: list[str]

class Event:
    kind: str
    thread: int | None
    job: int | None
    ctx: int | None
    reason: str | None
    key: int | None
    period: int | None
    demand: tuple[str, float, str] | None

class View:
    def now(self) -> int: ...
    def n_contexts(self) -> int: ...
    def n_threads(self) -> int: ...
    def topology(self) -> list[tuple[int, int, int, int]]: ...
    def running_on(self, ctx: int) -> int | None: ...
    def job_of(self, thread: int) -> int: ...
    def thread_counters(self, thread: int) -> Counters | None: ...
    @overload
    def counters(self, threads: Sequence[int]) -> list[Counters | None]: ...
    @overload
    def counters(self, threads: Sequence[int], fields: Sequence[str]) -> list[tuple[float, ...] | None]: ...
    def socket_counters(self, socket: int) -> Counters | None: ...
    def energy(self) -> tuple[float, float, float] | None: ...
    def llc_bytes(self) -> float | None: ...
    def bus_lines_per_s(self) -> float | None: ...
    def power_table(self) -> list[float] | None: ...
    def job_rss_bytes(self, job: int) -> float | None: ...

def listing(what: str) -> list[dict[str, Any]]: ...
def knob_list() -> list[dict[str, Any]]: ...
def machine_spec(source: str, toml: str | None = None) -> dict[str, Any]: ...
def write_output(path: str, data: bytes, name: str) -> None: ...
def check_output(path: str, name: str) -> None: ...
def machine_toml(name: str, spec_json: str) -> str: ...
def workload_spec(source: str, toml: str | None = None) -> dict[str, Any]: ...
def workload_toml(name: str, spec_json: str) -> str: ...
def simulate(
    knobs: Sequence[tuple[str, KnobValue]],
    machine: str | None,
    workload: str | None,
    policy: str,
    seed: int,
    collect: bool = False,
    trace_path: str | None = None,
    custom: Custom | None = None,
) -> tuple[dict[str, Any], list[str], list[Slice]]: ...
def compare(
    knobs: Sequence[tuple[str, KnobValue]],
    machine: str | None,
    workload: str | None,
    policies: Sequence[str] | None,
    baseline: str,
    seed: int,
    seeds: int,
    customs: Sequence[Custom] = ...,
    bound: bool = True,
    regimes: bool = True,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]: ...
def sweep(
    points: Sequence[Point], progress: Callable[[int], object] | None = None, customs: Sequence[Custom] = ...
) -> list[dict[str, Any]]: ...
def pot(samples: Sequence[float], threshold: str, confidence: float) -> dict[str, Any]: ...
def assign(options: Sequence[tuple[str, KnobValue]]) -> tuple[dict[str, Any], list[tuple[int, float]], list[float]]: ...
def optimum(options: Sequence[tuple[str, KnobValue]]) -> dict[str, Any]: ...
def option_list(command: str) -> list[dict[str, Any]]: ...
def report_shapes() -> list[tuple[str, list[tuple[str, str, bool, bool]]]]: ...

Live: TypeAlias = tuple[str | None, str | None, float, str, float | None, float, str | None]

def _watchdog() -> None: ...
def interleaved(
    mix: str,
    policies: Sequence[str],
    baseline: str,
    repeat: int,
    seed: int,
    drift_threshold: float,
    min_effect: float,
    profile: str | None,
    live_in: Live,
    knobs: Sequence[tuple[str, KnobValue]],
    python: str,
) -> dict[str, Any]: ...
def calibrate_check(
    mix: str,
    preset: str,
    policies: Sequence[str],
    programs: str | None,
    model: str | None,
    repeat: int,
    seed: int,
    live_in: Live,
    knobs: Sequence[tuple[str, KnobValue]],
    python: str,
    within: float,
    max_rounds: int,
    budget_s: float,
) -> dict[str, Any]: ...
def replay(
    recorded: str, mix: str, programs: str | None, seed: int, knobs: Sequence[tuple[str, KnobValue]]
) -> dict[str, Any]: ...
def _variant_errors() -> list[tuple[str, Exception]]: ...
def _error_classes() -> list[str]: ...
def complete(
    observed: Sequence[tuple[int, int, float]],
    rows: int,
    cols: int,
    wanted: Sequence[tuple[int, int]],
    seed: int,
) -> tuple[dict[str, Any], list[float]]: ...
def complete_bayes(
    observed: Sequence[tuple[int, int, float]],
    rows: int,
    cols: int,
    wanted: Sequence[tuple[int, int]],
    rank: int,
    iterations: int,
    seed: int,
) -> tuple[dict[str, Any], list[tuple[float, float]]]: ...
def characterise_jobs(
    preset: str,
    mix: str | None,
    from_record: str | None,
    file: str,
    repeat: int,
    within: float,
    max_rounds: int,
    budget_s: float,
    added_pirates: int | None,
    access: str,
    phases: bool,
    presence: bool,
    live_in: tuple[str | None, str | None, float, str, float | None, float, str | None],
    python: str,
) -> dict[str, Any]: ...
