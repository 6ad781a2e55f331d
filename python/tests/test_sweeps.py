"""cosched.sweep: grids run locally or on Dask give exactly the same frame."""

from __future__ import annotations

import pandas as pd
import pytest

import cosched
from cosched.sweeps import expand, partition

GRID = {
    "machine": "i5-2500",
    "workload": ["mcf", "lbm"],
    "quantum_ms": [2.0, 8.0],
    "seed": [1, 2],
    "policy": ["cfs", "g-rrs", "random"],
}


def test_expand_puts_policy_innermost_and_keeps_explicit_points():
    pts = expand(GRID)
    assert len(pts) == 2 * 2 * 2 * 3
    assert [p["policy"] for p in pts[:3]] == ["cfs", "g-rrs", "random"]
    assert pts[0] == {"machine": "i5-2500", "workload": "mcf", "quantum_ms": 2.0, "seed": 1, "policy": "cfs"}
    assert expand([{"policy": "cfs"}]) == [{"policy": "cfs"}]
    assert [len(r) for r in partition(10, 3)] == [4, 4, 2]


def test_local_sweep_equals_one_simulate_per_point():
    df = cosched.sweep(GRID, progress=False)
    assert len(df) == 24 and list(df.columns[:1]) == ["quantum_ms"]
    # A knob reaches the policies that read it (cfs does not read quantum_ms; simulate refuses it there).
    reads = {p["name"]: {k["name"] for k in p["knobs"]} for p in cosched.list_policies().to_dict("records")}
    for p, row in zip(expand(GRID), df.to_dict("records")):
        knobs = {k: v for k, v in p.items() if k in reads[p["policy"]]}
        run = cosched.simulate(p["machine"], p["workload"], p["policy"], p["seed"], timing=False, **knobs)
        assert row["makespan_s"] == run.metrics["makespan_s"]
        assert row["quantum_ms"] == p["quantum_ms"] and row["workload"] == p["workload"]


def test_sweep_matches_compare_runs():
    df = cosched.sweep(
        {"machine": "i5-2500", "workload": "mcf", "seed": [1, 2, 3], "policy": ["cfs", "wss"]}, progress=False
    )
    c = cosched.compare("i5-2500", "mcf", policies=["cfs", "wss"], seeds=3, timing=False)
    pd.testing.assert_series_equal(df["makespan_s"], c["makespan_s"])


def test_dask_sweep_equals_the_serial_sweep_row_for_row():
    distributed = pytest.importorskip("distributed")
    serial = cosched.sweep(GRID, progress=False)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with cluster, distributed.Client(cluster) as client:
        on_cluster = cosched.sweep(GRID, client=client, partitions=5, progress=False)
    pd.testing.assert_frame_equal(serial, on_cluster)


def test_machine_objects_in_a_grid():
    m = cosched.Machine("i5-2500")
    m["memory.bandwidth_gbs"] = 2.0
    df = cosched.sweep({"machine": [m, "i5-2500"], "workload": "mcf", "policy": "cfs"}, progress=False)
    assert df["makespan_s"][0] > df["makespan_s"][1]


def test_knobs_the_report_carries_keep_one_column():
    df = cosched.sweep(
        {"machine": "i5-2500", "workload": "canneal", "threads": [4, 8], "policy": "cfs"}, progress=False
    )
    assert list(df["threads"]) == [4, 8] and list(df.columns).count("threads") == 1


def test_progress_bar_counts_every_run(capsys):
    df = cosched.sweep({"machine": "i5-2500", "workload": "mcf", "seed": [1, 2], "policy": ["cfs", "wss"]})
    err = capsys.readouterr().err
    assert len(df) == 4 and "sweep" in err and "4/4" in err


def test_the_sweep_function_survives_importing_its_module():
    import cosched.sweeps

    assert callable(cosched.sweep) and cosched.sweep.__module__ == "cosched.sweeps"
