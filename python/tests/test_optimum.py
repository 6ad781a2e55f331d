"""cosched.optimum: the CLI's result, and compare's gap column in the summary frame."""

from __future__ import annotations

import pytest

import cosched
from cosched.errors import OptionError


def test_optimum_equals_the_cli(cli):
    o = cosched.optimum("xeon-e5645", "spec-mix8")
    expected = cli("optimum", "-m", "xeon-e5645", "-w", "spec-mix8", "--format", "json")
    assert o.report == expected
    # 8 threads on 12 contexts: too many partitions to simulate whole, few enough static
    # co-schedules: the exact best co-schedule beside the estimate over partitions.
    assert o.bound.startswith("exact best static co-schedule, or the evt estimate")
    f = o.frame()
    assert list(f["kind"])[:2] == ["exact best co-schedule", "worst"]
    exact = f.loc[f["kind"] == "exact best co-schedule", "throughput_gips"].item()
    assert o.best >= exact and (f["throughput_gips"] <= o.best).all()
    assert o.ci is not None and o.ci[0] <= o.best <= o.ci[1]


def test_optimum_refuses_an_unknown_option():
    with pytest.raises(OptionError, match="budgte"):
        cosched.optimum(budgte=10)


def test_compare_summary_carries_the_gap_to_the_bound_and_the_bound_its_interval():
    df = cosched.compare("xeon-e5645", "spec-mix8", policies=["cfs", "g-rrs"], seeds=2, timing=False)
    s = df.attrs["summary"]
    assert "gap_to_bound_pct_mean" in s.columns
    assert s["gap_to_bound_pct_mean"].notna().all()
    b = df.attrs["bound"]
    assert "idle contexts allowed" in b["kind"]
    assert len(b["gips"]) == len(b["ci"]) == 2
    # The gap is each run's to its own seed's bound.
    cfs = df[df["policy"] == "cfs"].sort_values("seed")["throughput_gips"]
    want = sum((1 - x / g) * 100 for x, g in zip(cfs, b["gips"])) / 2
    assert s.set_index("policy").loc["cfs", "gap_to_bound_pct_mean"] == pytest.approx(want)
    for ci, g in zip(b["ci"], b["gips"]):
        assert ci is None or ci[0] <= g <= ci[1]
    # Two seeds are too few for any policy to beat it.
    assert not s["beats_bound"].any()


def test_optimum_groups_jobs_where_domains_hold_more_than_two_contexts():
    o = cosched.optimum("xeon-x5550-16c", "spec-mix8")
    g = o.report["grouping"]
    assert g["size"] > 2 and all(len(x) <= g["size"] for x in g["groups"])
    f = o.frame()
    row = f[f["kind"] == f"grouping by {g['size']}"]
    assert len(row) == 1 and row["throughput_gips"].item() <= o.best
    assert o.report["matching"] is None and o.report["no_matching"]
