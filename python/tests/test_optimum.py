"""cosched.optimum: the CLI's result, and compare's gap column in the summary frame."""

from __future__ import annotations

import pytest

import cosched
from cosched.errors import OptionError


def test_optimum_equals_the_cli(cli):
    o = cosched.optimum("xeon-e5645", "spec-mix8")
    expected = cli("optimum", "-m", "xeon-e5645", "-w", "spec-mix8", "--format", "json")
    assert o.report == expected
    assert o.bound == "exact"
    f = o.frame()
    assert list(f["kind"])[:2] == ["exact optimum", "worst"]
    best = f.loc[f["kind"] == "exact optimum", "throughput_gips"].item()
    assert best == o.best
    assert (f["throughput_gips"] <= best).all()


def test_optimum_refuses_an_unknown_option():
    with pytest.raises(OptionError, match="budgte"):
        cosched.optimum(budgte=10)


def test_compare_summary_carries_the_gap_to_the_best():
    df = cosched.compare("xeon-e5645", "spec-mix8", policies=["cfs", "g-rrs"], seeds=2, timing=False)
    s = df.attrs["summary"]
    assert "gap_to_best_pct_mean" in s.columns
    assert s["gap_to_best_pct_mean"].notna().all()


def test_optimum_groups_jobs_where_domains_hold_more_than_two_contexts():
    o = cosched.optimum("xeon-x5550-16c", "spec-mix8")
    g = o.report["grouping"]["Ok"]
    assert g["size"] > 2 and all(len(x) <= g["size"] for x in g["groups"])
    f = o.frame()
    row = f[f["kind"] == f"grouping by {g['size']}"]
    assert len(row) == 1 and row["throughput_gips"].item() <= o.best
    assert "Err" in o.report["matching"]
