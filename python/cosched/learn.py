"""Matrix completion with the self-tuning factorization machine (SLITS Sec. 3.3),
the same implementation as ``cosched complete`` and SLITS's warm start."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from . import _cosched

__all__ = ["complete"]


def complete(
    frame: pd.DataFrame, seed: int = 1, *, row: str = "row", col: str = "col", value: str = "value"
) -> pd.DataFrame:
    """Complete a sparse matrix given as a long frame of (row, col, value):
    rows with a value are observed, rows with NaN are predicted. Ids may be
    any hashable values. Returns a copy with ``value`` filled in and a
    boolean ``predicted`` column; ``.attrs["model"]`` says which model the
    validation chose and its held-out RMSE beside the baselines'."""
    rows, row_ids = pd.factorize(frame[row])
    cols, col_ids = pd.factorize(frame[col])
    values = pd.to_numeric(frame[value]).to_numpy(dtype=float)
    known = ~np.isnan(values)
    observed = [(int(r), int(c), float(v)) for r, c, v in zip(rows[known], cols[known], values[known])]
    wanted = [(int(r), int(c)) for r, c in zip(rows[~known], cols[~known])]
    about, preds = _cosched.complete(observed, len(row_ids), len(col_ids), wanted, seed)
    out = frame.copy()
    filled = values.copy()
    filled[~known] = preds
    out[value] = filled
    out["predicted"] = ~known
    model: dict[str, Any] = json.loads(about)
    out.attrs["model"] = model
    return out
