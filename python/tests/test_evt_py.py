"""cosched.evt.POT: the CLI's estimate, checked against SciPy, with plots."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from cosched.evt import POT, gpd_cdf


@pytest.fixture(scope="module")
def sample() -> np.ndarray:
    return np.random.default_rng(7).beta(2.0, 5.0, size=1500)


def test_pot_equals_the_cli(sample, cli, tmp_path):
    np.savetxt(tmp_path / "s.csv", sample)
    expected = cli("evt", str(tmp_path / "s.csv"), "--format", "json")
    pot = POT(sample).fit("auto")
    assert pot.analysis is not None
    for k in ("n", "result", "checks", "diagnostics", "quantile_plot"):
        assert pot.analysis[k] == expected[k], k


def test_fit_agrees_with_scipy_at_a_fixed_threshold(sample):
    pot = POT(sample).fit("q0.9")
    r = pot.result
    y = sample[sample > r["threshold"]] - r["threshold"]
    c, _, scale = stats.genpareto.fit(y, floc=0.0)
    assert r["fit"]["xi"] == pytest.approx(c, abs=0.02)
    assert r["fit"]["sigma"] == pytest.approx(scale, rel=0.02)
    upb, lo, hi = pot.upper_bound()
    assert lo <= upb <= hi and upb >= sample.max()
    # The beta(2, 5) population ends at 1.
    assert lo < 1.0 + 0.05
    x = np.linspace(0, 0.05, 5)
    assert np.allclose(gpd_cdf(x, c, scale), stats.genpareto.cdf(x, c, loc=0, scale=scale))


def test_summary_stability_and_refit_at_another_confidence(sample):
    pot = POT(sample).fit()
    s = pot.summary()
    assert s["samples"] == len(sample) and s["ci_lo"] <= s["upb"] <= s["ci_hi"]
    assert len(pot.stability()) > 3 and {"xi_lo", "xi_hi"} <= set(pot.stability().columns)
    _, lo90, hi90 = pot.upper_bound(confidence=0.90)
    _, lo95, hi95 = pot.upper_bound()
    assert lo95 <= lo90 and hi90 <= hi95


def test_diagnostic_plots_render_to_png(sample, tmp_path):
    import matplotlib.pyplot as plt

    pot = POT(sample).fit()
    axes = pot.plot_diagnostics()
    fig = axes.ravel()[0].figure
    fig.savefig(tmp_path / "d.png")
    assert (tmp_path / "d.png").stat().st_size > 10_000
    _, ax = plt.subplots()
    assert pot.plot_tail(ax) is ax
    plt.close("all")
