"""Any input from Python: arguments are checked at the call
and at assignment, and refused with the documented class, named in Python's words."""

from __future__ import annotations

import math

import pytest

import cosched
from cosched import errors


def test_seeds_and_counts_are_checked_at_the_call():
    with pytest.raises(errors.OptionError, match=r"seed: must be a whole number from 0 to 2\*\*64 - 1, got -1"):
        cosched.simulate("i5-2500", "mcf", "cfs", seed=-1)
    with pytest.raises(errors.OptionError, match="seed"):
        cosched.simulate("i5-2500", "mcf", "cfs", seed=2**64)
    with pytest.raises(errors.OptionError, match="seeds: must be a whole number of at least 1"):
        cosched.compare("i5-2500", "mcf", policies=["cfs"], seeds=0)
    with pytest.raises(errors.OptionError, match="seeds: must be from 1 to 10000"):
        cosched.compare("i5-2500", "mcf", policies=["cfs"], seeds=10**9)


def test_policies_must_be_a_nonempty_list_of_distinct_names():
    with pytest.raises(errors.OptionError, match="`cfs` is listed twice"):
        cosched.compare("i5-2500", "mcf", policies=["cfs", "cfs"], seeds=1)
    with pytest.raises(errors.OptionError, match=r"not the string 'cfs,efs'"):
        cosched.compare("i5-2500", "mcf", policies="cfs,efs", seeds=1)
    with pytest.raises(errors.OptionError, match="the list is empty"):
        cosched.compare("i5-2500", "mcf", policies=[], seeds=1)
    with pytest.raises(errors.OptionError, match="policy name"):
        cosched.compare("i5-2500", "mcf", policies=["cfs", 3], seeds=1)


def test_knob_errors_name_the_keyword_not_the_flag():
    with pytest.raises(errors.OptionError) as e:
        cosched.simulate("i5-2500", "mcf", "g-rrs", quantum_ms=1e-9)
    assert str(e.value).startswith("quantum_ms: must be from 0.001 ms"), str(e.value)
    assert "--" not in str(e.value)
    with pytest.raises(errors.OptionError, match=r"^noise: must be from 0"):
        cosched.simulate("i5-2500", "mcf", "cfs", noise=-1)


def test_sweep_grids_are_checked_before_running():
    with pytest.raises(errors.OptionError, match="grid: give a mapping"):
        cosched.sweep("abc")
    with pytest.raises(errors.OptionError, match="point 0 must be a mapping"):
        cosched.sweep([1, 2])
    with pytest.raises(errors.OptionError, match="grid: no axis"):  # it ran one default point
        cosched.sweep({})
    with pytest.raises(errors.OptionError, match="at most 1,000,000"):
        cosched.sweep({"seed": range(1, 2001), "quantum_ms": list(range(1, 1001))}, progress=False)
    with pytest.raises(errors.OptionError, match="seed"):
        cosched.sweep({"seed": [-1], "policy": ["cfs"], "workload": ["mcf"]}, progress=False)


def test_spec_paths_and_values_are_checked_at_assignment():
    w = cosched.Workload("lbm")
    with pytest.raises(errors.ConfigError) as e:
        w["job.5.instances"] = 4
    assert e.value.field == "job.5.instances" and "no entry `5`" in e.value.problem
    m = cosched.Machine("i5-2500")
    before = m.to_toml()
    with pytest.raises(errors.ConfigError) as e:
        m["memory.bandwidth_gbz"] = 10.0
    assert e.value.field == "memory.bandwidth_gbz" and "unknown field" in e.value.problem, e.value
    assert e.value.file == "i5-2500" and e.value.line is None
    with pytest.raises(errors.ConfigError) as e:
        m["memory.bandwidth_gbs"] = math.nan
    assert "finite" in str(e.value) and "line 1 column" not in str(e.value)
    with pytest.raises(errors.ConfigError) as e:
        m["freq_ghz"] = 1e300
    assert e.value.field == "freq_ghz" and "1e300" in e.value.problem
    assert m.to_toml() == before, "a refused assignment changes nothing"
    ll = m["memory.loaded_latency"]  # a copy: editing it changes nothing until set back
    ll[1] = [0.5, math.nan]
    assert m.to_toml() == before
    with pytest.raises(errors.ConfigError, match="finite"):
        m["memory.loaded_latency"] = ll
    assert m.to_toml() == before
    m["memory.bandwidth_gbs"] = 5.0
    assert m["memory.bandwidth_gbs"] == 5.0


def test_config_error_file_has_no_line_suffix_and_field_none_when_absent(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\nfreq_ghz = = 2\n')
    with pytest.raises(errors.ConfigError) as e:
        cosched.Machine(str(bad))
    assert e.value.file == str(bad) and e.value.line == 2 and e.value.field == "freq_ghz"
    with pytest.raises(errors.ConfigError) as e:
        cosched.simulate("no-such-machine", "mcf")
    assert e.value.field is None and e.value.line is None


def test_report_checks_its_output_path_before_running(tmp_path):
    """Item 7: `cosched report … -o /nonexistent/dir/x.html` fails at once, before the comparison."""
    import subprocess
    import sys
    import time

    t = time.monotonic()
    r = subprocess.run(
        [sys.executable, "-m", "cosched.cli", "report", "compare", "--seeds", "5", "-o", "/nonexistent/dir/x.html"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and r.stderr.startswith(
        "error: --out /nonexistent/dir/x.html: the folder /nonexistent/dir does not exist"
    ), r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert time.monotonic() - t < 20
