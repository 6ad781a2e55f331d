# Type stubs of the extension module built from crates/cosched-py (PyO3).
# python/tests/test_stubs.py checks that these match the module.
from collections.abc import Callable, Sequence
from typing import TypeAlias

__version__: str

Point: TypeAlias = tuple[list[str], str | None, str | None, str, int]
Slice: TypeAlias = tuple[int, int, int, int, int]

def listing(what: str) -> str: ...
def knob_list() -> str: ...
def machine_spec(source: str, toml: str | None = None) -> str: ...
def machine_toml(name: str, spec_json: str) -> str: ...
def workload_spec(source: str, toml: str | None = None) -> str: ...
def workload_toml(name: str, spec_json: str) -> str: ...
def simulate(
    flags: Sequence[str],
    machine: str | None,
    workload: str | None,
    policy: str,
    seed: int,
    collect: bool = False,
    trace_path: str | None = None,
) -> tuple[str, list[str], list[Slice]]: ...
def compare(
    flags: Sequence[str],
    machine: str | None,
    workload: str | None,
    policies: Sequence[str] | None,
    baseline: str,
    seed: int,
    seeds: int,
) -> str: ...
def sweep(points: Sequence[Point], progress: Callable[[int], object] | None = None) -> list[str]: ...
def pot(samples: Sequence[float], threshold: str, confidence: float) -> str: ...
def assign(flags: Sequence[str]) -> tuple[str, list[tuple[int, float]], list[float]]: ...
def optimum(flags: Sequence[str]) -> str: ...
def complete(
    observed: Sequence[tuple[int, int, float]],
    rows: int,
    cols: int,
    wanted: Sequence[tuple[int, int]],
    seed: int,
) -> tuple[str, list[float]]: ...
def complete_bayes(
    observed: Sequence[tuple[int, int, float]],
    rows: int,
    cols: int,
    wanted: Sequence[tuple[int, int]],
    rank: int,
    iterations: int,
    seed: int,
) -> tuple[str, list[tuple[float, float]]]: ...
def cli(argv: Sequence[str]) -> int: ...
