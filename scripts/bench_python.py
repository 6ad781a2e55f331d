"""scripts/bench-python: the Python front against the CLI, same runs, same process tree."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # scripts/ (not python/, whose cosched/ would shadow the installed package)
COSCHED = ROOT / "target" / "release" / "cosched"
MACHINE, WORKLOAD, THREADS = "xeon-x5550-16c", "canneal", 32
POLICIES = ["cfs", "g-rrs", "p-rrs", "wss", "eevdf", "efs", "random", "perf-fair", "slits-contention", "rda-strict"]


def best_of(n: int, f: Callable[[], object]) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    import cosched

    runs = seeds * len(POLICIES)
    cli = [
        str(COSCHED),
        "compare",
        "-m",
        MACHINE,
        "-w",
        WORKLOAD,
        "--threads",
        str(THREADS),
        "--policies",
        ",".join(POLICIES),
    ]
    # The sweep computes no best static co-schedule; neither may the CLI (it would by default).
    cli += ["--seeds", str(seeds), "--no-timing", "--no-bound", "--format", "json"]
    t_cli = best_of(3, lambda: subprocess.run(cli, check=True, capture_output=True))
    grid = {
        "machine": MACHINE,
        "workload": WORKLOAD,
        "threads": THREADS,
        "seed": range(1, seeds + 1),
        "policy": POLICIES,
    }
    t_py = best_of(3, lambda: cosched.sweep(grid, progress=False))
    print(
        f"{runs}-run sweep ({MACHINE}, {WORKLOAD} x {THREADS} threads, {len(POLICIES)} policies x {seeds} seeds), best of 3:"
    )
    print(f"  CLI (cosched compare, parallel runner): {t_cli:.3f} s")
    print(f"  Python (cosched.sweep -> DataFrame):    {t_py:.3f} s")
    print(f"  ratio Python / CLI: {t_py / t_cli:.3f} (target <= 1.10)")

    # Per-call overhead: N sequential simulate() calls against one Rust batch of the same N runs,
    # both on one thread (RAYON_NUM_THREADS=1 is set by the child below); then a policy's cost per
    # event in Python against its Rust twin.
    if os.environ.get("RAYON_NUM_THREADS") != "1":
        env = dict(os.environ, RAYON_NUM_THREADS="1")
        subprocess.run([sys.executable, __file__, "--overhead"], check=True, env=env)
        subprocess.run([sys.executable, __file__, "--per-event"], check=True, env=env)


def overhead() -> None:
    import cosched
    from cosched import _cosched

    n = 400
    knobs: list[tuple[str, bool | int | float | str | list[str]]] = [
        ("machine", "i5-2500"),
        ("workload", "mcf"),
        ("timing", False),
    ]
    points = [(knobs, None, None, "cfs", s) for s in range(1, n + 1)]
    t_batch = best_of(5, lambda: _cosched.sweep(points))
    t_calls = best_of(5, lambda: [cosched.simulate("i5-2500", "mcf", "cfs", s, timing=False) for s in range(1, n + 1)])
    per_run = t_batch / n * 1e3
    per_call = (t_calls - t_batch) / n * 1e3
    print(f"simulate() overhead, {n} calls of a {per_run:.3f} ms simulation (one thread, best of 5):")
    print(f"  Rust batch: {t_batch * 1e3:.1f} ms; Python calls: {t_calls * 1e3:.1f} ms")
    print(f"  overhead per call beyond the simulation: {per_call:.3f} ms (target < 1 ms)")


def per_event() -> None:
    """A policy written in Python against its Rust twin (the same decisions, so the same
    simulation): the difference in run time over the events the policy handled."""
    import cosched
    from cosched.examples import GRrs, MpkiPairs

    machine, workload = "xeon-e5645", "spec-mix24"
    print(f"policy cost per event, Python against its Rust twin ({workload} on {machine}, one thread, best of 3):")

    def timed(p: str | cosched.Policy) -> tuple[float, int]:
        """Best of 3 run times of policy `p`, and the events it handled."""
        events: list[int] = []

        def go() -> None:
            events.append(cosched.simulate(machine, workload, p, seed=1, timing=False).metrics["policy_events"])

        return best_of(3, go), events[0]

    targets = {"g-rrs": 1.0, "mpki-pairs": 6.0}
    for py, rust in ((GRrs(), "g-rrs"), (MpkiPairs(), "mpki-pairs")):
        (t_rust, e_rust), (t_py, events) = timed(rust), timed(py)
        assert events == e_rust, "the twins made different decisions"
        per = (t_py - t_rust) / events * 1e6
        own = own_code_us(py, machine, workload)
        print(
            f"  {py.name} vs {rust}: {events} events, Rust {t_rust * 1e3:.1f} ms, Python {t_py * 1e3:.1f} ms: "
            f"{per:.2f} us more per event ({t_py / t_rust:.2f}x the run; target <= {targets[rust]:.0f} us); "
            f"of the Python run, {own:.2f} us per event inside its own on_event (timed there)"
        )


def own_code_us(policy: object, machine: str, workload: str) -> float:
    """Time per event spent inside the policy's own `on_event` (a subclass timing each call;
    the timing adds about 0.2 us of its own): what the boundary does not cost."""
    import cosched

    base = type(policy)
    spent = [0.0, 0]

    class Timed(base):  # type: ignore[misc, valid-type]
        def on_event(self, ev, view):  # type: ignore[no-untyped-def]
            t = time.perf_counter()
            out = super().on_event(ev, view)
            spent[0] += time.perf_counter() - t
            spent[1] += 1
            return out

    Timed.name = f"{base.name}-timed"  # type: ignore[attr-defined]
    cosched.simulate(machine, workload, Timed(), seed=1, timing=False)
    return spent[0] / max(spent[1], 1) * 1e6


if __name__ == "__main__":
    if sys.argv[1:] == ["--overhead"]:
        overhead()
    elif sys.argv[1:] == ["--per-event"]:
        per_event()
    else:
        main()
