"""Progress periods for Python programs run under `cosched run` (RDA Sec. 2.3).

    from cosched import pp

    with pp.period("llc", 16 << 20, "high"):
        ...  # the period's work; entering blocks until the scheduler admits it

Speaks the same line protocol as the C library (`include/cosched/pp.h`) over
the Unix socket named by ``COSCHED_PP_SOCKET``, one connection per thread.
Outside a `cosched run` (no such variable, or no server) every call returns
at once: fail-open, as RDA runs unannotated programs under the default
scheduler.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Iterator
from typing import BinaryIO

SOCKET_ENV = "COSCHED_PP_SOCKET"
RESOURCES = ("llc", "membw")
REUSE = ("low", "medium", "high")

_local = threading.local()


class PeriodRefused(RuntimeError):
    """The scheduler answered a request with an error."""


def _conn() -> tuple[socket.socket, BinaryIO] | None:
    if not hasattr(_local, "conn"):
        path = os.environ.get(SOCKET_ENV)
        _local.conn = None
        if path:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(path)
                _local.conn = (s, s.makefile("rb"))
            except OSError:
                _local.conn = None
    conn: tuple[socket.socket, BinaryIO] | None = _local.conn
    return conn


def _call(line: str) -> str | None:
    c = _conn()
    if c is None:
        return None
    s, r = c
    try:
        s.sendall(line.encode())
        reply = r.readline()
    except OSError:
        reply = b""
    if not reply.endswith(b"\n"):
        _local.conn = None  # the server went away: fail-open from now on
        return None
    text: str = reply.decode()
    return text.rstrip("\n")


def begin(resource: str, amount: int, reuse: str = "high") -> int:
    """Declare `amount` of `resource` (llc: bytes; membw: bytes/s) and block until admitted.

    Returns the period id (> 0), or 0 when no scheduler serves progress periods.
    """
    if resource not in RESOURCES:
        raise ValueError(f"resource must be one of {RESOURCES}, got {resource!r}")
    if reuse not in REUSE:
        raise ValueError(f"reuse must be one of {REUSE}, got {reuse!r}")
    if int(amount) <= 0:
        raise ValueError(f"amount must be positive, got {amount}")
    reply = _call(f"BEGIN {resource} {int(amount)} {reuse}\n")
    if reply is None:
        return 0
    if reply.startswith("OK "):
        return int(reply[3:])
    raise PeriodRefused(reply.removeprefix("ERR "))


def end(period_id: int) -> None:
    """End a period begun with `begin` (a no-op for id 0)."""
    if period_id == 0:
        return
    reply = _call(f"END {int(period_id)}\n")
    if reply is not None and reply != "OK":
        raise PeriodRefused(reply.removeprefix("ERR "))


@contextlib.contextmanager
def period(resource: str, amount: int, reuse: str = "high") -> Iterator[int]:
    """A progress period around a block: `begin` on entry, `end` on exit (also on exceptions)."""
    pid = begin(resource, amount, reuse)
    try:
        yield pid
    finally:
        end(pid)
