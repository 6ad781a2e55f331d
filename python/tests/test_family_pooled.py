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
