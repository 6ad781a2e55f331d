"""scripts/small_stats.py (the result scripts' Student t, mean interval and 90th percentile, in the
standard library) against scipy and numpy."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("small_stats", ROOT / "scripts" / "small_stats.py")
assert _spec and _spec.loader
ss = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ss)


@pytest.mark.parametrize("df", range(1, 31))
def test_t95_is_students_quantile_to_three_decimals(df: int) -> None:
    assert ss.t95(df) == pytest.approx(float(stats.t.ppf(0.975, df)), abs=5e-4)


@pytest.mark.parametrize("df", [31, 40, 60, 120, 1000])
def test_beyond_thirty_degrees_the_expansion_is_within_a_thousandth(df: int) -> None:
    assert ss.t95(df) == pytest.approx(float(stats.t.ppf(0.975, df)), abs=1e-3)


def test_half_width_is_scipys_t_interval() -> None:
    xs = [1.02, 1.10, 0.97, 1.05, 1.21, 1.08]
    lo, hi = stats.t.interval(0.95, len(xs) - 1, loc=np.mean(xs), scale=stats.sem(xs))
    assert ss.half_width(xs) == pytest.approx((hi - lo) / 2, rel=1e-3)
    assert ss.half_width([1.0]) == 0.0


def test_p90_is_numpys_linear_percentile() -> None:
    rng = np.random.default_rng(7)
    for n in (2, 5, 48, 88):
        xs = list(rng.lognormal(size=n))
        assert ss.p90(xs) == pytest.approx(float(np.percentile(xs, 90)), rel=1e-12)
    assert ss.p90([3.0]) == 3.0
