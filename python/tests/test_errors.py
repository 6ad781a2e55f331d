"""cosched.errors: every class is raised, with the CLI's one-line message."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cosched
from cosched import errors
from cosched.evt import POT


def test_every_exception_class_is_exercised_here():
    tested = {
        "ConfigError",
        "OptionError",
        "PolicyError",
        "SimulationError",
        "StudyError",
        "TooFewExceedancesError",
        "UnboundedTailError",
        "NoConvergenceError",
        "NoThresholdError",
        "BadSampleError",
        "CompletionError",
        "NotFittedError",
        "HostError",
    }
    leaves = {n for n in errors.__all__ if n not in ("CoschedError", "EvtError")}
    assert leaves == tested
    for n in errors.__all__:
        assert issubclass(getattr(errors, n), errors.CoschedError)


def test_every_library_error_variant_has_a_class_of_its_own():
    from cosched import _cosched

    seen = {name: type(exc) for name, exc in _cosched._variant_errors()}
    assert set(seen) == {"Config", "Option", "Policy", "Simulation", "Study", "Evt"}
    assert len(set(seen.values())) == len(seen), seen
    assert seen["Study"] is errors.StudyError and issubclass(errors.StudyError, RuntimeError)
    assert seen["Evt"] is errors.BadSampleError


def test_every_class_the_bindings_raise_is_a_class_of_the_errors_module():
    """The bindings name each class they raise once (`ErrorClass` in crates/cosched-py/src/errors.rs);
    every one of them exists here, a CoschedError, and every leaf class but the Python-side
    NotFittedError is one the bindings can raise."""
    from cosched import _cosched

    raised = _cosched._error_classes()
    assert len(raised) == len(set(raised))
    for n in raised:
        assert issubclass(getattr(errors, n), errors.CoschedError), n
    leaves = {n for n in errors.__all__ if n not in ("CoschedError", "EvtError", "NotFittedError")}
    assert leaves == set(raised)


def _cli_error(cli, *args: str) -> str:
    p = cli(*args, check=False)
    assert p.returncode == 2, p.stderr
    return p.stderr.strip().removeprefix("error: ")


def test_config_error_names_file_field_problem(cli):
    with pytest.raises(errors.ConfigError) as e:
        cosched.simulate("nope", "mcf")
    assert str(e.value) == _cli_error(cli, "simulate", "-m", "nope", "-w", "mcf")
    assert e.value.file == "machine `nope`" and "no such preset" in e.value.problem
    m = cosched.Machine("i5-2500")
    with pytest.raises(errors.ConfigError) as e:
        m["memory.bandwidth_gbs"] = -1.0  # checked at assignment
    assert e.value.field == "memory.bandwidth_gbs" and "must be in" in e.value.problem
    assert isinstance(e.value, ValueError)
    # A field the CLI names by its flag is named by the Python keyword here.
    with pytest.raises(errors.ConfigError) as e:
        cosched.simulate("i5-2500", "mcf", threads=0)
    assert e.value.field == "threads" and str(e.value).startswith("mcf: threads: must be from 1")


def test_option_error_for_unknown_and_out_of_range_knobs(cli):
    with pytest.raises(errors.OptionError, match="did you mean `quantum_ms`"):
        cosched.simulate("i5-2500", "mcf", quantm_ms=4)
    with pytest.raises(errors.OptionError) as e:
        cosched.simulate("i5-2500", "mcf", quantum_ms=-1)
    # The CLI's message, in Python's words (the keyword for the flag); the CLI refuses the
    # value while it reads the command line, so its line ends with the pointer to the help.
    cli_text = _cli_error(cli, "simulate", "-m", "i5-2500", "-w", "mcf", "--quantum-ms", "-1")
    pointer = " (see `cosched simulate --help`)"
    assert cli_text.endswith(pointer), cli_text
    assert str(e.value) == cli_text.removesuffix(pointer).replace("--quantum-ms", "quantum_ms")
    with pytest.raises(errors.OptionError):
        cosched.simulate("i5-2500", "mcf", efs_objective="speed")
    # A knob the policy does not read is refused, naming the policies that read it.
    with pytest.raises(errors.OptionError) as e:
        cosched.simulate("i5-2500", "mcf", "cfs", quantum_ms=7)
    assert str(e.value).startswith("quantum_ms: policy `cfs` does not read it; it is read by g-rrs"), str(e.value)
    with pytest.raises(errors.OptionError):
        cosched.assign(samples=0)


def test_policy_error(cli):
    with pytest.raises(errors.PolicyError) as e:
        cosched.simulate("i5-2500", "mcf", "cfss")
    assert str(e.value) == _cli_error(cli, "simulate", "-m", "i5-2500", "-w", "mcf", "-p", "cfss")
    assert (e.value.kind, e.value.workload) == ("unknown", None)
    with pytest.raises(errors.PolicyError, match="assignment"):
        cosched.simulate("i5-2500", "mcf", "static")
    # A policy refusing the machine at init (here: an assignment naming a
    # context the machine lacks) is a PolicyError, not a simulation failure.
    with pytest.raises(errors.PolicyError, match="context 99"):
        cosched.simulate("i5-2500", "mcf", "static", assignment="99")


def test_simulation_error_on_the_time_limit(cli):
    with pytest.raises(errors.SimulationError) as e:
        cosched.simulate("i5-2500", "mcf", max_sim_time_s=0.01)
    assert str(e.value) == _cli_error(cli, "simulate", "-m", "i5-2500", "-w", "mcf", "--max-sim-time-s", "0.01")
    assert isinstance(e.value, RuntimeError)
    # Typed in Rust, so the exception carries what failed as attributes, not only in its line.
    assert (e.value.kind, e.value.workload) == ("time_limit", "mcf")


def test_evt_errors_one_class_per_variant():
    rng = np.random.default_rng(1)
    with pytest.raises(errors.TooFewExceedancesError):
        POT(rng.uniform(size=50)).fit("q0.99")
    with pytest.raises(errors.UnboundedTailError, match="unbounded"):
        POT(rng.pareto(2.0, size=2000)).fit("q0.9")
    with pytest.raises(errors.NoConvergenceError):
        # Excesses overflow to infinity: the fit cannot start.
        POT(np.r_[np.linspace(1.0e308, 1.7e308, 40), -1.7e308]).fit(-1.6e308)
    with pytest.raises(errors.NoThresholdError):
        POT(rng.uniform(size=12)).fit("auto")
    with pytest.raises(errors.BadSampleError):
        POT([1.0, float("nan")]).fit()
    # A result is never read from an estimator that was not fitted.
    with pytest.raises(errors.NotFittedError, match="call .fit()"):
        _ = POT(rng.uniform(size=500)).result
    with pytest.raises(errors.BadSampleError):
        POT(rng.uniform(size=500)).fit(confidence=1.5)
    assert issubclass(errors.UnboundedTailError, errors.EvtError)


def test_completion_error():
    with pytest.raises(errors.CompletionError, match="no observed cells"):
        cosched.complete(pd.DataFrame({"row": ["a"], "col": ["b"], "value": [np.nan]}))


def test_a_real_run_cut_short_raises_host_error_and_leaves_nothing_stopped(tmp_path):
    from cosched import host

    mix = tmp_path / "long.toml"
    mix.write_text('name = "long"\n[[job]]\nname = "nap"\ncmd = ["sleep", "30"]\n')
    with pytest.raises(errors.HostError) as e:
        host.interleaved(mix, ["linux"], repeat=1, timeout_s=0.3, grace_s=0.5)
    assert e.value.kind == "stopped" and isinstance(e.value, RuntimeError)
    assert e.value.reason == "timed out after 0.3 s" and e.value.terminated == "nap", vars(e.value)
    assert str(e.value).startswith("the run timed out after 0.3 s: every managed process was released"), str(e.value)
    # The nap was released and terminated: no `sleep 30` is left, stopped or not.
    left = []
    for d in Path("/proc").iterdir():
        try:
            if d.name.isdigit() and (d / "cmdline").read_bytes() == b"sleep\x0030\x00":
                left.append(d.name)
        except OSError:
            pass
    assert not left, left
