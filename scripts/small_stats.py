"""Small-sample statistics the result scripts share, in the standard library only (they run before
the project's .venv exists: scripts/check-results): Student's t at 97.5%, a mean's 95% interval, and
the 90th percentile the docs quote (python/tests/test_small_stats.py holds them to scipy)."""

from __future__ import annotations

import math
import statistics

# Student's t at 97.5% by degrees of freedom 1-30 (three decimals); beyond 30, its expansion in 1/df.
T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t95(df: int) -> float:
    """Student's t quantile at 97.5% for `df` >= 1 degrees of freedom: the table to 30, then the
    Cornish-Fisher expansion around the normal's quantile (within 10⁻³ of it beyond 30)."""
    if df <= len(T95):
        return T95[df - 1]
    z = 1.959964
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def half_width(xs: list[float]) -> float:
    """Half the 95% t-interval of the mean of `xs` (0 for fewer than two)."""
    if len(xs) < 2:
        return 0.0
    return t95(len(xs) - 1) * statistics.stdev(xs) / math.sqrt(len(xs))


def p90(xs: list[float]) -> float:
    """The 90th percentile, linear between order statistics (statistics' inclusive method)."""
    return statistics.quantiles(xs, n=10, method="inclusive")[8] if len(xs) > 1 else xs[0]
