"""Matrix completion: the Bayesian factorization machine by Gibbs sampling
(``cosched complete``'s default, with a posterior standard
deviation per prediction) or the self-tuning SGD FM (SLITS Sec. 3.3, SLITS's
warm start); the same implementations as ``cosched complete``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from . import _cosched
from ._knobs import check_seed
from .errors import CompletionError, OptionError

__all__ = ["complete"]


def complete(
    frame: pd.DataFrame,
    seed: int = 1,
    *,
    model: str = "bayes",
    rank: int = 8,
    iterations: int = 400,
    row: str = "row",
    col: str = "col",
    value: str = "value",
) -> pd.DataFrame:
    """Complete a sparse matrix given as a long frame of (row, col, value):
    rows with a value are observed, rows with NaN are predicted. Ids may be
    any hashable values. Returns a copy with ``value`` filled in, a boolean
    ``predicted`` column and ``std`` (the Bayesian FM's posterior standard
    deviation of each prediction; NaN for observed cells and for the SGD FM).
    ``model="bayes"`` (default, ``rank``, ``iterations``; a quarter burn-in)
    or ``"sgd"`` (the self-tuning FM). ``.attrs["model"]`` says which model
    was used (and, for ``sgd``, its held-out RMSE beside the baselines')."""
    if model not in ("bayes", "sgd"):
        raise OptionError(f"model: expected 'bayes' or 'sgd', got {model!r}")
    if not isinstance(frame, pd.DataFrame):
        raise CompletionError(f"frame: give a pandas DataFrame of ({row}, {col}, {value}), got {type(frame).__name__}")
    missing = [c for c in (row, col, value) if c not in frame.columns]
    if missing:
        raise CompletionError(
            f"frame: no column {', '.join(map(repr, missing))} (it has {', '.join(map(repr, frame.columns))}); "
            "name the columns with row=, col=, value="
        )
    for name, v in (("rank", rank), ("iterations", iterations)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise OptionError(f"{name}: must be a whole number, got {v!r}")
    seed = check_seed("seed", seed)
    try:
        numeric = pd.to_numeric(frame[value])
    except (TypeError, ValueError) as e:
        raise CompletionError(f"{value}: every value must be a number or NaN ({e})") from None
    rows, row_ids = pd.factorize(frame[row])
    cols, col_ids = pd.factorize(frame[col])
    values = numeric.to_numpy(dtype=float)
    known = ~np.isnan(values)
    observed = [(int(r), int(c), float(v)) for r, c, v in zip(rows[known], cols[known], values[known])]
    wanted = [(int(r), int(c)) for r, c in zip(rows[~known], cols[~known])]
    std = np.full(len(values), np.nan)
    if model == "bayes":
        about, pairs = _cosched.complete_bayes(
            observed, len(row_ids), len(col_ids), wanted, int(rank), int(iterations), seed
        )
        preds = [p[0] for p in pairs]
        std[~known] = [p[1] for p in pairs]
    else:
        about, preds = _cosched.complete(observed, len(row_ids), len(col_ids), wanted, seed)
    out = frame.copy()
    filled = values.copy()
    filled[~known] = preds
    out[value] = filled
    out["predicted"] = ~known
    out["std"] = std
    info: dict[str, Any] = dict(about)
    out.attrs["model"] = info
    return out
