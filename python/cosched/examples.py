"""Policies written in Python that ship with cosched: each the
twin of a Rust policy of the registry, decision for decision, so that
``cosched.simulate(policy=GRrs())`` gives ``g-rrs``'s report and
``MpkiPairs()`` gives ``mpki-pairs``'s byte for byte
(python/tests/test_policy.py, test_policies_doc.py). ``MpkiPairs`` is the
worked example of docs/policies.md, which quotes its source.
"""

from __future__ import annotations

from collections import deque

from .policy import Decision, Event, Policy, View, cancel, preempt, run, timer

__all__ = ["GRrs", "MpkiPairs"]


class GRrs(Policy):
    """G-RRS (SLITS §5.2) decision for decision as
    crates/cosched-policies/src/families/g_rrs.rs (with slots.rs's spread order)."""

    name = "py-g-rrs"

    def __init__(self, quantum_ns: int = 4_000_000) -> None:
        self.quantum = quantum_ns
        self.queue: deque[int] = deque()

    def init(self, view: View) -> None:
        seen: dict[int, int] = {}
        keyed = []
        for c, (_, core, _, _) in enumerate(view.topology()):
            keyed.append((seen.get(core, 0), core, c))
            seen[core] = seen.get(core, 0) + 1
        self.order = [c for _, _, c in sorted(keyed)]
        self.running: list[int | None] = [None] * view.n_contexts()
        self.idle = view.n_contexts()  # contexts with no thread (the fill below skips its scan at 0)

    def _dispatch(self, t: int, c: int, now: int, out: list[Decision]) -> None:
        if self.running[c] is None:
            self.idle -= 1
        self.running[c] = t
        out += [run(t, c), timer(c, now + self.quantum)]

    def on_event(self, ev: Event, view: View) -> list[Decision]:
        now, out = view.now(), []
        if ev.kind in ("arrived", "runnable") and ev.thread is not None:
            self.queue.append(ev.thread)
        elif ev.kind in ("blocked", "exited") and ev.ctx is not None:
            out.append(cancel(ev.ctx))
            if self.running[ev.ctx] is not None:
                self.idle += 1
            self.running[ev.ctx] = None
        elif ev.kind == "timer" and ev.key is not None:
            c, cur = ev.key, self.running[ev.key]
            if self.queue:
                if cur is not None:
                    self.queue.append(cur)
                self._dispatch(self.queue.popleft(), c, now, out)
            elif cur is not None:
                out.append(timer(c, now + self.quantum))
        if self.idle:
            for c in self.order:
                if not self.queue:
                    break
                if self.running[c] is None:
                    self._dispatch(self.queue.popleft(), c, now, out)
        return out


class MpkiPairs(Policy):
    """Round-robin quanta; on each SMT core the highest-MPKI thread beside the lowest."""

    name = "mpki-pairs-py"
    needs = ("counters", "smt")

    def __init__(self, quantum_ms: float = 4.0) -> None:
        self.quantum = round(quantum_ms * 1e6)  # ns
        self.queue: list[int] = []  # runnable threads, round-robin order
        self.last: dict[int, tuple[float, ...]] = {}  # thread -> (instructions, LLC misses)
        self.mpki: dict[int, float] = {}  # thread -> LLC misses per kilo-instruction, last quantum
        self.armed = False

    def init(self, view: View) -> None:
        cores: dict[int, list[int]] = {}
        for ctx, (_pipe, core, _llc, _socket) in enumerate(view.topology()):
            cores.setdefault(core, []).append(ctx)
        self.cores = [cores[k] for k in sorted(cores)]
        self.n_contexts = sum(map(len, self.cores))

    def on_event(self, ev: Event, view: View) -> list[Decision]:
        if ev.thread is not None and ev.kind in ("arrived", "runnable"):
            self.queue.append(ev.thread)
        elif ev.thread is not None and ev.kind in ("blocked", "exited"):
            self.queue.remove(ev.thread)
        elif ev.kind == "timer":  # a quantum ended: measure, then let the next threads run
            # Cumulative; one call for every thread, reading only the two counters used.
            last, mpki = self.last, self.mpki
            for t, c in zip(self.queue, view.counters(self.queue, ("instructions", "llc_misses"))):
                assert c is not None, "needs counters"
                i, m = last.get(t, (0.0, 0.0))
                if c[0] > i:
                    mpki[t] = 1000.0 * (c[1] - m) / (c[0] - i)
                last[t] = c
            n = min(self.n_contexts, len(self.queue))
            self.queue = self.queue[n:] + self.queue[:n]
            self.armed = False
        else:
            return []
        out: list[Decision] = []
        if not self.armed and self.queue:
            out.append(timer(0, view.now() + self.quantum))
            self.armed = True
        mpki_of = self.mpki.get
        chosen = [t for _, t in sorted([(mpki_of(t, 0.0), t) for t in self.queue[: self.n_contexts]])]
        pairs = max(0, len(chosen) - len(self.cores))
        groups = [[chosen.pop(0), chosen.pop()] for _ in range(pairs)] + [[t] for t in chosen]
        busy: set[int] = set()
        for group, core in zip(groups, self.cores):
            for t, ctx in zip(group, core):
                out.append(run(t, ctx))
                busy.add(ctx)
        out += [preempt(c) for core in self.cores for c in core if c not in busy and view.running_on(c) is not None]
        return out
