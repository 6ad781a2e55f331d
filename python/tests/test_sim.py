"""cosched.sim: the Python results are the CLI's JSON for the same inputs."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import cosched
from cosched import errors
from cosched.report import compare_html


def test_version_and_lists_match_the_cli(cli):
    assert cosched.__version__ == cli("--version", parse=False).split()[-1]
    for what, frame in [
        ("policies", cosched.list_policies()),
        ("machines", cosched.list_machines()),
        ("workloads", cosched.list_workloads()),
        ("metrics", cosched.list_metrics()),
    ]:
        expected = cli("list", what, "--format", "json")
        assert list(frame["name"]) == [e["name"] for e in expected]
        assert list(frame["description"]) == [e["description"] for e in expected]
    assert cosched.list_policies()["oracle"].dtype == bool
    assert (cosched.list_machines()["contexts"] > 0).all()


def test_simulate_equals_the_cli_json(cli):
    for machine, workload, policy, knobs, flags in [
        ("i5-2500", "mcf", "cfs", {}, []),
        ("xeon-e5645", "spec-mix24", "efs", {"efs_window_ms": 2.0}, ["--efs-window-ms", "2.0"]),
        (
            "i5-2500",
            "spec-mix24",
            "slits-contention",
            {"slits_k": 4, "noise": 0.5},
            ["--slits-k", "4", "--noise", "0.5"],
        ),
        # Typed values cross as themselves: a float of many digits, a list of words.
        ("i5-2500", "mcf", "g-rrs", {"quantum_ms": 0.1 + 0.2}, ["--quantum-ms", repr(0.1 + 0.2)]),
        (
            "i5-2500",
            "mcf",
            "quintet",
            {"quintet_without": ["admission", "pairing"]},
            ["--quintet-without", "pairing,admission"],
        ),
    ]:
        run = cosched.simulate(machine, workload, policy, seed=3, timing=False, **knobs)
        expected = cli(
            "simulate",
            "-m",
            machine,
            "-w",
            workload,
            "-p",
            policy,
            "--seed",
            "3",
            "--no-timing",
            "--format",
            "json",
            *flags,
        )
        assert run.report == expected
        assert run.metrics == expected["metrics"]
        assert list(run.jobs["turnaround_s"]) == [j["turnaround_s"] for j in expected["jobs"]]


def test_compare_equals_the_cli_json_with_numeric_columns(cli):
    df = cosched.compare("i5-2500", "mcf", policies=["cfs", "g-rrs", "random"], seeds=3, timing=False)
    expected = cli(
        "compare",
        "-m",
        "i5-2500",
        "-w",
        "mcf",
        "--policies",
        "cfs,g-rrs,random",
        "--seeds",
        "3",
        "--no-timing",
        "--format",
        "json",
    )
    assert len(df) == 9 and list(df["policy"][:3]) == ["cfs", "g-rrs", "random"]
    assert list(df["makespan_s"]) == [r["metrics"]["makespan_s"] for r in expected["runs"]]
    for c in df.columns:
        if c not in ("policy", "machine", "workload", "oracle"):
            assert pd.api.types.is_numeric_dtype(df[c]), c
    s = df.attrs["summary"]
    for row, exp in zip(s.to_dict("records"), expected["policies"]):
        assert row["speedup_mean"] == exp["speedup"]["mean"]
        assert row["makespan_s_lo"] == exp["makespan_s"]["lo"]
        assert row["seeds"] == 3
    # One name per metric: every column of both frames is a registry metric
    # (or a summary column of one, or a label naming the row).
    metrics = set(cosched.list_metrics()["name"])
    labels = {"policy", "oracle", "beats_bound", "machine", "workload", "seed", "seeds", "threads", "noise"}
    for c in list(df.columns) + list(s.columns):
        base = c.rsplit("_", 1)[0] if c.endswith(("_mean", "_lo", "_hi")) else c
        assert c in labels or base in metrics, f"column {c} is not in cosched.list_metrics()"
    # Per-seed speedups average to the summary's.
    by = df.groupby("policy", sort=False)["speedup"].mean()
    assert by.to_dict() == pytest.approx(dict(zip(s["policy"], s["speedup_mean"])))


def test_compare_names_the_policies_outside_their_papers_regime_as_the_cli_does(cli):
    def run(regimes: object = True) -> pd.DataFrame:
        return cosched.compare(
            "xeon-e5645", "spec-mix8", ["cfs", "perf-fair"], seeds=2, bound=False, regimes=regimes, timing=False
        )  # type: ignore[arg-type]

    expected = cli(
        "compare", "-w", "spec-mix8", "--policies", "cfs,perf-fair", "--seeds", "2", "--no-bound", "--no-timing",
        "--format", "json",
    )  # fmt: skip
    df = run()
    regimes = df.attrs["regimes"]
    assert regimes == expected["regimes"]
    # The HTML report (`cosched report compare`) shows them in a section of their own.
    assert "Outside their paper&#x27;s regime" in compare_html(df)
    (note,) = regimes
    assert note["policies"] == ["perf-fair"] and note["in_regime"]["solo_s"] == 100.0
    (paired,) = note["in_regime"]["paired"]
    assert paired["policy"] == "perf-fair" and paired["in_regime"]["n"] == 2
    assert run(False).attrs["regimes"] == []
    with pytest.raises(errors.OptionError, match="regimes"):
        run("yes")


def test_machine_and_workload_edit_save_and_reload(tmp_path, cli):
    m = cosched.Machine("i5-2500")
    same = cosched.simulate(m, "mcf", timing=False)
    assert same.metrics == cosched.simulate("i5-2500", "mcf", timing=False).metrics  # TOML round trip is lossless
    m["memory.bandwidth_gbs"] = m["memory.bandwidth_gbs"] / 2
    path = m.save(tmp_path / "half.toml")
    slower = cosched.simulate(m, "mcf", timing=False)
    assert slower.metrics["makespan_s"] > same.metrics["makespan_s"]
    # The written file is what the CLI loads.
    expected = cli("simulate", "-m", str(path), "-w", "mcf", "--no-timing", "--format", "json")
    assert expected["metrics"] == slower.metrics
    assert cosched.Machine(str(path))["memory.bandwidth_gbs"] == m["memory.bandwidth_gbs"]

    w = cosched.Workload("mcf")
    w["job.0.instances"] = 2
    two = cosched.simulate("i5-2500", w, timing=False)
    assert len(two.jobs) == 2
    wpath = w.save(tmp_path / "two.toml")
    assert (
        cli("simulate", "-m", "i5-2500", "-w", str(wpath), "--no-timing", "--format", "json")["metrics"] == two.metrics
    )
    assert cosched.Workload.from_toml(w.to_toml(), "again").spec == w.spec


def test_trace_frame_and_perfetto_file(tmp_path):
    run = cosched.simulate("i5-2500", "spec-mix24", "g-rrs", timing=False)
    tr = run.trace(tmp_path / "t.json")
    assert list(tr.columns) == ["context", "thread", "job", "job_name", "start_s", "end_s"]
    assert (tr["end_s"] > tr["start_s"]).all()
    assert tr["end_s"].max() == pytest.approx(run.metrics["makespan_s"])
    assert set(tr["job_name"]) == set(run.jobs["name"])
    events = json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    assert sum(e["ph"] == "X" for e in events) == len(tr)


def test_knobs_list_every_flag_with_defaults():
    k = cosched.knobs().set_index("name")
    assert k.loc["quantum_ms", "flag"] == "--quantum-ms" and k.loc["quantum_ms", "default"] == "4"
    assert bool(k.loc["timing", "switch"]) and not bool(k.loc["noise", "switch"])


def test_every_result_object_has_to_pandas():
    run = cosched.simulate("i5-2500", "mcf", "cfs", seed=1, timing=False)
    df = run.to_pandas()
    assert len(df) == 1 and df.loc[0, "makespan_s"] == run.metrics["makespan_s"]
    o = cosched.optimum(workload="spec-mix8", machine="i5-2500", budget=10, samples=5, matching=False)
    assert o.to_pandas().equals(o.frame())


def test_compare_names_identical_rows_and_its_bound_switch_is_named_as_the_cli_names_it(cli):
    # `bound=False` is `--no-bound`; the old `gap=` still works, with a warning.
    df = cosched.compare("i5-2500", "spec-mix8", ["cfs", "rda-strict"], seeds=2, bound=False, timing=False)
    assert df.attrs["bound"] is None
    expected = cli(
        "compare", "-m", "i5-2500", "-w", "spec-mix8", "--policies", "cfs,rda-strict", "--seeds", "2", "--no-bound",
        "--no-timing", "--format", "json",
    )  # fmt: skip
    # RDA finds no progress period in these SPEC processes: its rows are CFS's, and it says why.
    assert df.attrs["identical"] == expected["identical"]
    (group,) = df.attrs["identical"]
    assert group["policies"] == ["cfs", "rda-strict"]
    assert group["found"][0]["policy"] == "rda-strict"
    assert "no job declared a progress period" in group["found"][0]["found"]
    with pytest.warns(DeprecationWarning, match="bound="):
        old = cosched.compare("i5-2500", "spec-mix8", ["cfs"], seeds=2, gap=False, timing=False)
    assert old.attrs["bound"] is None


def test_compare_reports_its_runs_as_they_finish(monkeypatch):
    # The bar's callback hears the number of runs once, then one call per finished run.
    calls: list[int] = []
    monkeypatch.setattr(cosched.sim, "runs_bar", lambda desc: calls.append)
    cosched.compare("i5-2500", "spec-mix8", ["cfs", "efs"], seeds=2, bound=False, timing=False)
    assert calls[0] > 0 and calls.count(0) == sum(n for n in calls if n > 0) >= 4, calls
    calls.clear()
    cosched.compare("i5-2500", "spec-mix8", ["cfs"], seeds=2, bound=False, timing=False, progress=False)
    assert calls == []


def test_compare_warns_when_the_default_cache_folder_cannot_keep_the_bound(monkeypatch, tmp_path):
    # No COSCHED_CACHE_DIR and a home where nothing can be made: the bound is computed and not
    # kept, said as the command line's note says it (a RuntimeWarning), and the table is the same.
    monkeypatch.delenv("COSCHED_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    home = tmp_path / "home"
    home.write_text("a file, so no folder can be made under it\n")
    monkeypatch.setenv("HOME", str(home))
    with pytest.warns(RuntimeWarning, match="the bound is computed and not kept"):
        unkept = cosched.compare("i5-2500", "mcf", policies=["cfs"], seeds=1, timing=False)
    monkeypatch.setenv("COSCHED_CACHE_DIR", str(tmp_path / "cache"))
    kept = cosched.compare("i5-2500", "mcf", policies=["cfs"], seeds=1, timing=False)
    pd.testing.assert_frame_equal(unkept, kept)
    # A folder named that cannot keep it is refused, naming it, before any run.
    monkeypatch.setenv("COSCHED_CACHE_DIR", str(home))
    with pytest.raises(errors.OptionError, match="home"):
        cosched.compare("i5-2500", "mcf", policies=["cfs"], seeds=1, timing=False)


def test_compare_defaults_are_the_declared_ones_in_every_face(cli):
    # Declared once in the lab (`cosched_lab::compare::DEFAULT_*`): Python's signature and the
    # command line's `--help` both read them (so does `python -m cosched.report compare`).
    import inspect
    import re

    from cosched import _cosched

    declared = {
        "baseline": _cosched.COMPARE_BASELINE,
        "seeds": _cosched.COMPARE_SEEDS,
        "seed": _cosched.COMPARE_FIRST_SEED,
    }
    sig = inspect.signature(cosched.compare)
    assert {k: sig.parameters[k].default for k in declared} == declared
    text = cli("compare", "--help", parse=False)
    for flag, value in declared.items():
        block = re.search(rf"^\s+--{flag} <[A-Z_]+>\n(.*?)(?=^\s+-)", text, re.DOTALL | re.MULTILINE)
        assert block is not None, flag
        assert f"[default: {value}]" in block.group(1), (flag, block.group(1))
