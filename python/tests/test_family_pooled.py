"""scripts/family_pooled.py: its exact binomial interval (stdlib, since scripts/check-results runs
before the project's .venv exists) against scipy's, and its verdicts follow from the intervals."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from scipy.stats import binomtest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # family_pooled imports host_check_summary beside it
_spec = importlib.util.spec_from_file_location("family_pooled", ROOT / "scripts" / "family_pooled.py")
assert _spec and _spec.loader
fp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fp)


@pytest.mark.parametrize("k,n", [(35, 36), (11, 12), (5, 6), (0, 4), (4, 4), (20, 36), (1, 1)])
def test_clopper_pearson_matches_scipy(k: int, n: int) -> None:
    ci = binomtest(k, n).proportion_ci(0.95, "exact")
    lo, hi = fp.clopper_pearson(k, n)
    assert lo == pytest.approx(ci.low, abs=1e-9)
    assert hi == pytest.approx(ci.high, abs=1e-9)


def test_a_target_is_shown_met_only_when_the_whole_interval_meets_it() -> None:
    assert fp.verdict(0.05, (0.03, 0.08), 0.10).startswith("met, and")
    assert fp.verdict(0.05, (0.03, 0.12), 0.10).startswith("met by the point")
    assert fp.verdict(0.11, (0.03, 0.12), 0.10) == "missed"


def test_a_pick_is_a_predicted_tie_when_its_margin_is_below_the_makespan_error() -> None:
    top = [
        fp.Top(margin=0.005, makespan_error=0.05, exact=False, chance=None),
        fp.Top(margin=0.08, makespan_error=0.02, exact=True, chance=0.5),
        fp.Top(margin=0.01, makespan_error=0.03, exact=True, chance=1.0),
    ]
    lines = fp.top_lines(top, [False, True, True])
    assert "exactly in 2 of 3 mixes" in lines[0]
    assert "in 2 of 3 mixes, predicted ties, whose pick was within the measured interval in 1 of 2" in lines[0]
    assert lines[0].endswith("the others in 1 of 1.")
    assert "probability 75.0%: the mean share" in lines[1] and "over the 2 mixes" in lines[1]
    assert len(fp.top_lines(top[:1], [False])) == 1  # no recorded ties: no chance line
