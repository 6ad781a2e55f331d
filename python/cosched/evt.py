"""Peak-Over-Threshold analysis of plain i.i.d. samples with bounded tails
(statistical thread assignment, Secs. 4.1-4.4), in the spirit of
pyextremes' ``EVA`` but for samples without a time index and with the
negative-shape (bounded) tail first-class.

    >>> pot = POT(samples).fit(threshold="auto")      # doctest: +SKIP
    >>> pot.upper_bound(confidence=0.95)               # doctest: +SKIP
    (upb, lo, hi)
    >>> pot.plot_diagnostics()                         # doctest: +SKIP

The estimate, the threshold choice (Anderson-Darling tests with ForwardStop)
and the profile-likelihood interval are the Rust core's
(``cosched_core::evt``), the same as ``cosched evt``; this module only holds
the result and draws it. Plot helpers take and return a matplotlib ``ax``.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from . import _cosched
from .errors import BadSampleError, NotFittedError
from .figures import _ax

__all__ = ["POT", "gpd_cdf"]


def gpd_cdf(y: np.ndarray, xi: float, sigma: float) -> np.ndarray:
    """Generalized Pareto CDF of excesses ``y`` >= 0 (Eq. 4), bounded above at -sigma/xi when xi < 0."""
    y = np.asarray(y, dtype=float)
    if abs(xi) < 1e-12:
        return np.asarray(1.0 - np.exp(-y / sigma))
    z = np.clip(1.0 + xi * y / sigma, 0.0, None)
    return np.asarray(1.0 - z ** (-1.0 / xi))


class POT:
    """A Peak-Over-Threshold analysis of ``samples`` (larger is better).

    :meth:`fit` chooses the threshold and fits the GPD; then
    :meth:`summary`, :meth:`upper_bound`, :meth:`plot_diagnostics`.
    """

    def __init__(self, samples: Iterable[float]) -> None:
        try:
            arr = np.asarray(list(samples) if not isinstance(samples, np.ndarray) else samples, dtype=float)
        except (TypeError, ValueError) as e:
            raise BadSampleError(f"samples: give a 1-D sequence of numbers ({e})") from None
        if arr.ndim != 1:
            raise BadSampleError(f"samples: give a 1-D sequence of numbers, got an array of shape {arr.shape}")
        self.samples = arr
        self.analysis: dict[str, Any] | None = None
        self._threshold: str = "auto"

    def fit(self, threshold: str | float = "auto", confidence: float = 0.95) -> POT:
        """Choose the threshold (``"auto"``, a value, or ``"q0.9"`` for a
        quantile) and fit; raises a :class:`cosched.errors.EvtError` subclass
        when no bounded tail can be estimated."""
        self._threshold = str(threshold)
        analysis = _cosched.pot([float(x) for x in self.samples], self._threshold, float(confidence))
        self.analysis = analysis
        for w in self.analysis.get("warnings", []):
            # A sample that is not independent, a GPD rejected everywhere: the bound is not to be trusted.
            warnings.warn(w, UserWarning, stacklevel=2)
        return self

    def _fitted(self) -> dict[str, Any]:
        if self.analysis is None:
            raise NotFittedError(
                "POT: not fitted: call .fit() (or .fit(threshold, confidence)) before reading a result"
            )
        return self.analysis

    @property
    def result(self) -> dict[str, Any]:
        """The estimate: threshold, exceedances, fit (xi, sigma, loglik), upb, ci, best, gap."""
        return dict(self._fitted()["result"])

    def upper_bound(self, confidence: float | None = None) -> tuple[float, float, float]:
        """(UPB, interval low, interval high); refits when ``confidence`` differs from the fit's."""
        r = self.result
        if confidence is not None and abs(confidence - r["confidence"]) > 1e-12:
            r = POT(self.samples).fit(self._threshold, confidence).result
        return float(r["upb"]), float(r["ci"][0]), float(r["ci"][1])

    def summary(self) -> pd.Series:
        """One labelled value per quantity (as ``cosched evt``'s table)."""
        a = self._fitted()
        r, c = a["result"], a["checks"]
        return pd.Series(
            {
                "samples": a["n"],
                "threshold": r["threshold"],
                "exceedances": r["exceedances"],
                "xi": r["fit"]["xi"],
                "sigma": r["fit"]["sigma"],
                "upb": r["upb"],
                "ci_lo": r["ci"][0],
                "ci_hi": r["ci"][1],
                "confidence": r["confidence"],
                "best_observed": r["best"],
                "gap": r["gap"],
                "gpd_rejected_everywhere": r["gpd_rejected_everywhere"],
                "runs_test_p": c["runs_p"],
                "ljung_box_p": c["ljung_box_p"],
                "tie_share": c["tie_share"],
            },
            name="pot",
        )

    def stability(self) -> pd.DataFrame:
        """Candidate thresholds: quantile, threshold, exceedances, xi with its interval, sigma*, AD p-value, ForwardStop."""
        rows = []
        for s in self._fitted()["diagnostics"]["stability"]:
            c = s.get("candidate", s)
            rows.append(
                {
                    "quantile": c["quantile"],
                    "threshold": c["threshold"],
                    "exceedances": c["exceedances"],
                    "xi": c["fit"]["xi"] if c.get("fit") else np.nan,
                    "xi_lo": s["xi_lo"],
                    "xi_hi": s["xi_hi"],
                    "sigma_star": s["sigma_star"],
                    "p_value": c.get("p_value", np.nan),
                    "forward_stop": c.get("forward_stop", np.nan),
                }
            )
        return pd.DataFrame(rows)

    def mean_residual_life(self) -> pd.DataFrame:
        """Mean excess over each threshold with its interval (linear above a valid GPD threshold)."""
        return pd.DataFrame(self._fitted()["diagnostics"]["mean_residual_life"])

    # Plot helpers: each takes an optional ax and returns it.
    def plot_mean_residual_life(self, ax: Any = None) -> Any:
        """Mean residual life plot, the chosen threshold marked."""
        ax = _ax(ax)
        m = self.mean_residual_life()
        ax.plot(m["threshold"], m["mean_excess"], color="C0")
        ax.fill_between(m["threshold"], m["lo"], m["hi"], color="C0", alpha=0.25)
        ax.axvline(self.result["threshold"], color="C3", ls="--", lw=1, label="threshold")
        ax.set(xlabel="threshold u", ylabel="mean excess", title="Mean residual life")
        ax.legend(loc="best", fontsize="small")
        return ax

    def plot_parameter_stability(self, ax: Any = None) -> Any:
        """Shape xi with its interval at each candidate threshold."""
        ax = _ax(ax)
        s = self.stability()
        ax.errorbar(
            s["threshold"], s["xi"], yerr=[s["xi"] - s["xi_lo"], s["xi_hi"] - s["xi"]], fmt="o", ms=3, capsize=2
        )
        ax.axvline(self.result["threshold"], color="C3", ls="--", lw=1)
        ax.axhline(0.0, color="grey", lw=0.8)
        ax.set(xlabel="threshold u", ylabel="shape xi", title="Parameter stability")
        return ax

    def plot_qq(self, ax: Any = None) -> Any:
        """GPD quantile plot of the exceedances (points on the diagonal: a good fit)."""
        ax = _ax(ax)
        q = np.asarray(self._fitted()["quantile_plot"], dtype=float).reshape(-1, 2)
        ax.scatter(q[:, 0], q[:, 1], s=8)
        hi = float(np.max(q)) if q.size else 1.0
        ax.plot([0, hi], [0, hi], color="grey", lw=0.8)
        ax.set(xlabel="GPD quantile", ylabel="observed excess", title="Quantile plot")
        return ax

    def plot_tail(self, ax: Any = None) -> Any:
        """Fitted GPD tail over the empirical CDF of the exceedances, the UPB and its interval marked."""
        ax = _ax(ax)
        r = self.result
        u, xi, sigma = r["threshold"], r["fit"]["xi"], r["fit"]["sigma"]
        ex = np.sort(self.samples[self.samples > u])
        ax.step(ex, np.arange(1, len(ex) + 1) / len(ex), where="post", label="empirical")
        top = r["upb"] if np.isfinite(r["upb"]) else float(ex[-1])
        grid = np.linspace(u, top, 200)
        ax.plot(grid, gpd_cdf(grid - u, xi, sigma), color="C1", label=f"GPD xi={xi:.3f}")
        ax.axvline(r["upb"], color="C3", lw=1, label="UPB")
        lo, hi = r["ci"]
        ax.axvspan(lo, hi if np.isfinite(hi) else top, color="C3", alpha=0.12, label=f"{r['confidence']:.0%} interval")
        ax.set(xlabel="value", ylabel="P(X <= x | X > u)", title="Fitted tail")
        ax.legend(loc="lower right", fontsize="small")
        return ax

    def plot_diagnostics(self, ax: Any = None) -> Any:
        """The four diagnostics (mean residual life, parameter stability, QQ,
        fitted tail over the ECDF) on a 2x2 grid; ``ax`` is an array of four
        axes, or None for a new figure. Returns the axes array."""
        if ax is None:
            import matplotlib.pyplot as plt

            _, ax = plt.subplots(2, 2, figsize=(10, 7.5), layout="constrained")
        axes = np.asarray(ax).ravel()
        if axes.size != 4:
            raise ValueError(f"plot_diagnostics: ax must hold 4 axes, got {axes.size}")
        self.plot_mean_residual_life(axes[0])
        self.plot_parameter_stability(axes[1])
        self.plot_qq(axes[2])
        self.plot_tail(axes[3])
        return ax

    def __repr__(self) -> str:
        if self.analysis is None:
            return f"POT({len(self.samples)} samples, not fitted)"
        r = self.result
        return f"POT({len(self.samples)} samples: UPB {r['upb']:.6g} [{r['ci'][0]:.6g}, {r['ci'][1]:.6g}], xi {r['fit']['xi']:.4f})"
