"""Bad input and signals from Python: every keyword is type-checked at the
call with the package's own error classes, Ctrl-C stops long Rust work,
KeyboardInterrupt and SystemExit from a policy come out as themselves, and
the gym environment refuses bad actions without ending its episode and
cannot leak its thread."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest

import cosched
from cosched import errors
from cosched.evt import POT
from cosched.gym import SchedEnv


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: cosched.simulate("i5-2500", "mcf", "g-rrs", quantum_ms=[100]), "quantum_ms: must be a number"),
        (lambda: cosched.simulate("i5-2500", "mcf", "cfs", noise="1"), "noise: must be a number"),
        (lambda: cosched.simulate("i5-2500", "mcf", "cfs", timing="yes"), "timing: is a switch"),
        (lambda: cosched.compare("i5-2500", "mcf", policies=["cfs"], bound="no"), "bound: give True or False"),
        (lambda: cosched.compare("i5-2500", "mcf", policies=["cfs"], baseline=3), "baseline: give a policy name"),
        (lambda: cosched.simulate(3, "mcf", "cfs"), "machine: give a preset name"),
        (lambda: cosched.assign(samples="5"), "samples: must be a whole number"),
        (lambda: cosched.optimum(budget=1.5), "budget: must be a whole number"),
        (lambda: SchedEnv(max_steps=1.5), "max_steps: a whole number"),
        (lambda: SchedEnv(quantum_ms=[4]), "quantum_ms: a number"),
        (lambda: SchedEnv(objective=1), "objective: give one of"),
        (lambda: cosched.complete(pd.DataFrame({"row": [0], "col": [0], "value": [1.0]}), rank=2.5), "rank"),
    ],
)
def test_keywords_of_the_wrong_type_are_refused_at_the_call(call, match):
    with pytest.raises(errors.OptionError, match=match):
        call()


def test_spec_edits_and_inputs_raise_the_packages_classes():
    m = cosched.Machine("i5-2500")
    with pytest.raises(errors.ConfigError, match="must be a number, string, bool, list or table, got object"):
        m["freq_ghz"] = object()
    with pytest.raises(errors.ConfigError, match="dotted string"):
        m[5] = 1
    with pytest.raises(errors.ConfigError, match="dotted string"):
        _ = m[5]
    m["freq_ghz"] = np.float64(3.0)  # numpy scalars are numbers
    assert m["freq_ghz"] == 3.0
    with pytest.raises(errors.CompletionError, match="no column 'row', 'col', 'value'"):
        cosched.complete(pd.DataFrame({"a": [1.0]}))
    with pytest.raises(errors.BadSampleError, match=r"shape \(3, 3\)"):
        POT(np.zeros((3, 3)))


def test_policies_that_are_not_policies_or_cannot_be_copied_are_named():
    class Duck:
        def on_event(self, event, view):
            return None

    with pytest.raises(errors.PolicyError, match="instance of a cosched.Policy subclass, got <"):
        cosched.simulate("i5-2500", "mcf", Duck())

    class Locky(cosched.Policy):
        name = "locky"

        def __init__(self) -> None:
            self.lock = threading.Lock()

    with pytest.raises(errors.PolicyError, match="copying it failed .*cannot pickle"):
        cosched.simulate("i5-2500", "mcf", Locky())

    class Escape(cosched.Policy):
        name = "a\x1b]0;pwned\x07"

    with pytest.raises(errors.PolicyError, match="printable"):
        cosched.simulate("i5-2500", "mcf", Escape())


@pytest.mark.parametrize(("raised", "caught"), [(KeyboardInterrupt, KeyboardInterrupt), (SystemExit, SystemExit)])
def test_keyboard_interrupt_and_system_exit_from_a_policy_come_out_as_themselves(raised, caught):
    class Raiser(cosched.Policy):
        name = "raiser"

        def on_event(self, event, view):
            raise raised()

    with pytest.raises(caught):
        cosched.simulate("i5-2500", "mcf", Raiser())

    # An ordinary exception is still the run's failure, with its traceback.
    class Plain(cosched.Policy):
        name = "plain"

        def on_event(self, event, view):
            raise ValueError("mine")

    with pytest.raises(errors.SimulationError, match="ValueError: mine"):
        cosched.simulate("i5-2500", "mcf", Plain())


# A run long enough to be interrupted on any host: g-rrs at a 50 µs quantum on
# 24 processes takes tens of seconds (its event count, not a guess of time,
# makes it long: about 10^6 quanta).
_LONG = {
    "simulate": lambda: cosched.simulate("xeon-e5645", "spec-mix24", "g-rrs", quantum_ms=0.05),
    "compare": lambda: cosched.compare(
        "xeon-e5645", "spec-mix24", policies=["g-rrs", "cfs"], quantum_ms=0.05, seeds=2, bound=False
    ),
    "sweep": lambda: cosched.sweep(
        {
            "machine": ["xeon-e5645"],
            "workload": ["spec-mix24"],
            "policy": ["g-rrs"],
            "seed": [1, 2],
            "quantum_ms": [0.05],
        },
        progress=False,
    ),
}


@pytest.mark.parametrize("what", sorted(_LONG))
def test_ctrl_c_stops_long_rust_work_within_half_a_second(what):
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    fired: list[float] = []

    def interrupt() -> None:
        time.sleep(0.5)
        fired.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    # A shell starts background jobs with SIGINT ignored, and Python keeps it so: give the test
    # Python's own handler whatever the runner inherited (the user's terminal has it).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    threading.Thread(target=interrupt, daemon=True).start()
    try:
        with pytest.raises(KeyboardInterrupt):
            _LONG[what]()
    finally:
        signal.signal(signal.SIGINT, previous)
    raised = time.monotonic()
    assert fired, "the work ended before the interrupt: make it longer"
    assert raised - fired[0] < 0.5, f"{what}: KeyboardInterrupt {raised - fired[0]:.3f} s after SIGINT"


def test_gym_refuses_bad_actions_without_ending_the_episode_and_takes_numpy_ints():
    with SchedEnv("i5-2500", "spec-mix8") as env:
        _, info = env.reset(seed=1)
        n = info["n_actions"]
        for bad, match in [(True, "whole number"), (1.0, "whole number"), (n, f"0 to {n - 1}"), (-1, "0 to")]:
            with pytest.raises(errors.OptionError, match=match):
                env.step(bad)
        _, _, done, _, info2 = env.step(np.int64(n - 1))
        assert not done and info2["n_actions"] >= 1
    assert env._thread is None


def test_a_dropped_environment_does_not_leak_its_thread():
    env = SchedEnv("i5-2500", "spec-mix8")
    env.reset(seed=1)
    thread = env._thread
    assert thread is not None and thread.is_alive()
    del env
    gc.collect()
    thread.join(timeout=60)  # a hang guard: the finaliser stops the run at its next decision
    assert not thread.is_alive()


def test_output_that_cannot_be_written_is_one_line_and_status_2():
    with open("/dev/full", "w") as full:
        p = subprocess.run(
            [os.path.join(os.path.dirname(sys.executable), "cosched"), "list", "policies"],
            check=False,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip().count("\n") == 0 and "cannot write the output" in p.stderr, p.stderr


def _fifo_read(path: str) -> tuple[threading.Thread, list[bytes]]:
    got: list[bytes] = []

    def read() -> None:
        with open(path, "rb") as f:
            got.append(f.read())

    t = threading.Thread(target=read, daemon=True)
    t.start()
    return t, got


def test_outputs_write_into_a_fifo_and_leave_it_a_fifo(tmp_path):
    """The package's outputs (a report page, a saved spec, a trace) go through the
    same function as the command line's: a FIFO is written into, never replaced."""
    import stat

    from cosched import report, specs

    cases = [
        ("report", lambda p: report.write(p, "<html>page</html>")),
        ("spec", lambda p: specs.Machine("i5-2500").save(p)),
        ("trace", lambda p: cosched.simulate("i5-2500", "mcf", "cfs").trace(p)),
    ]
    for name, write in cases:
        p = tmp_path / f"{name}.fifo"
        os.mkfifo(p)
        thread, got = _fifo_read(str(p))
        write(p)
        thread.join(timeout=60)
        assert got and got[0], name
        assert stat.S_ISFIFO(os.lstat(p).st_mode), f"{name}: the FIFO was replaced"
    with pytest.raises(errors.ConfigError, match="is a directory"):
        report.write(tmp_path, "<html/>")
    with pytest.raises(errors.ConfigError, match="does not exist"):
        report.check_writable(tmp_path / "no" / "page.html")
