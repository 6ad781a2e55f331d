"""Progress bars of the runs a long call makes (tqdm), shared by ``compare`` and ``sweep``."""

from __future__ import annotations

from typing import Any


def runs_bar(desc: str) -> Any:
    """A callback driving a tqdm bar of runs: ``n > 0`` more runs to come, ``0`` one done. The bar
    appears only once the call has run 2 s (a quick one shows nothing) and redraws at most once a
    second (a piped log stays short)."""
    from tqdm.auto import tqdm

    bar = tqdm(total=0, unit="run", desc=desc, delay=2.0, mininterval=1.0)

    def step(n: int) -> None:
        if n > 0:
            bar.total = (bar.total or 0) + n
            bar.refresh()
        elif n == 0:
            bar.update(1)
            if bar.total and bar.n >= bar.total:
                bar.close()

    return step
