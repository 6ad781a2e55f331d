"""A Gymnasium-style environment over the simulator: one
step is one scheduling decision, made by you instead of a policy.

The environment is a :class:`cosched.Policy` (round-robin with a quantum,
the skeleton of G-RRS, SLITS §5.2) whose only choice, which waiting thread an
idle context runs next, is handed to the caller. Whenever a context is idle
and threads wait (at arrival, when a thread blocks or exits, when a quantum
ends and others wait), :meth:`SchedEnv.step` returns an observation and waits
for the action: the index of a thread in ``obs["waiting"]``.

The API follows Gymnasium's (``reset(seed=...) -> (obs, info)``,
``step(action) -> (obs, reward, terminated, truncated, info)``, ``close()``)
without depending on it; the number of actions changes at every step
(``info["n_actions"]``). Rewards are the objective's progress since the last
step: ``throughput``, instructions retired (billions); ``energy``, minus the
joules spent. The last step's reward covers the run's end, and ``reset``'s
``info["reward_before_first_decision"]`` what came before the first choice,
so together they add up to the run's whole instructions (or minus its energy). The same seed and actions give the same observations, rewards
and final report, byte for byte (the simulation runs in a thread of its own;
the two meet only at decision points).

    env = SchedEnv("i5-2500", "spec-mix8")
    obs, info = env.reset(seed=1)
    rng = random.Random(0)
    while True:
        obs, reward, done, truncated, info = env.step(rng.randrange(info["n_actions"]))
        if done or truncated:
            break
    report = info.get("report")  # the run's report when it finished
"""

from __future__ import annotations

import queue
import threading
import weakref
from collections import deque
from typing import Any, Self

import numpy as np

from ._knobs import _is_number, check_seed, to_values
from .errors import OptionError
from .policy import Decision, Event, Policy, View, cancel, preempt, run, timer

__all__ = ["SchedEnv"]

OBJECTIVES = ("throughput", "energy")
#: What :meth:`SchedEnv.close` sends the simulation to stop it.
_STOP = object()


class _Stopped(Exception):
    """Raised inside the simulation to end a run the caller closed."""


class _Channel:
    """What an episode's simulation shares with the caller: the two queues and
    the settings. The simulation holds this, not the :class:`SchedEnv`, so a
    dropped environment is collected and its finaliser stops the episode."""

    def __init__(self, objective: str, quantum_ns: int) -> None:
        self.objective, self.quantum_ns = objective, quantum_ns
        self.to_caller: queue.Queue[tuple[str, Any, Any]] = queue.Queue()
        self.to_sim: queue.Queue[Any] = queue.Queue()

    def stop(self, thread: threading.Thread | None) -> None:
        """End the episode: the waiting simulation gets :data:`_STOP` until its thread is gone."""
        self.to_sim.put(_STOP)
        while thread is not None and thread.is_alive():
            try:
                self.to_caller.get(timeout=0.05)
            except queue.Empty:
                pass
            self.to_sim.put(_STOP)


class _Agent(Policy):
    """The environment's side inside the simulation (one instance per episode)."""

    name = "gym-agent"
    needs = ("counters",)

    def __init__(self, env: _Channel) -> None:
        self.env = env
        self.queue: deque[int] = deque()
        self.last_progress = 0.0

    def __deepcopy__(self, memo: dict[int, Any]) -> _Agent:
        return self  # the run must talk to this episode's queues, not to a copy

    def init(self, view: View) -> None:
        self.running: list[int | None] = [None] * view.n_contexts()
        self.last_progress = self._progress(view)

    def _progress(self, view: View) -> float:
        if self.env.objective == "energy":
            e = view.energy()
            return -(e[0] if e else 0.0)
        counters = view.counters(list(range(view.n_threads())))
        return sum(c[0] for c in counters if c is not None) / 1e9

    def _observe(self, view: View) -> dict[str, Any]:
        waiting = list(self.queue)
        counters = view.counters(waiting)
        return {
            "now_ns": view.now(),
            "running": [-1 if t is None else t for t in self.running],
            "idle": [c for c, t in enumerate(self.running) if t is None],
            "waiting": waiting,
            "waiting_counters": [list(c) if c is not None else None for c in counters],
        }

    def _ask(self, view: View) -> int:
        """Hand the decision to the caller; its action is an index into the waiting threads."""
        progress = self._progress(view)
        reward, self.last_progress = progress - self.last_progress, progress
        self.env.to_caller.put(("obs", self._observe(view), reward))
        action = self.env.to_sim.get()
        if action is _STOP:
            raise _Stopped("the environment was closed")
        return int(action)  # checked by SchedEnv.step before it was sent

    def on_event(self, ev: Event, view: View) -> list[Decision]:
        out: list[Decision] = []
        now, q = view.now(), self.env.quantum_ns
        if ev.thread is not None and ev.kind in ("arrived", "runnable"):
            self.queue.append(ev.thread)
        elif ev.ctx is not None and ev.kind in ("blocked", "exited"):
            self.running[ev.ctx] = None
            out.append(cancel(ev.ctx))
        elif ev.kind == "timer" and ev.key is not None:
            c, cur = ev.key, self.running[ev.key]
            if cur is not None and self.queue:
                self.queue.append(cur)
                self.running[c] = None
                out.append(preempt(c))
            elif cur is not None:
                out.append(timer(c, now + q))
        for c in range(len(self.running)):
            if self.running[c] is None and self.queue:
                k = self._ask(view) if len(self.queue) > 1 else 0
                t = self.queue[k]
                del self.queue[k]
                self.running[c] = t
                out += [run(t, c), timer(c, now + q)]
        return out


class SchedEnv:
    """The simulator as an environment: ``machine`` and ``workload`` as
    :func:`cosched.simulate` takes them, ``objective`` ``throughput`` or
    ``energy``, ``quantum_ms`` the round-robin quantum, ``max_steps`` a bound
    on decisions per episode (``truncated`` when reached), ``knobs`` the
    engine's (``noise=0``, ...)."""

    def __init__(
        self,
        machine: Any = "i5-2500",
        workload: Any = "spec-mix8",
        *,
        objective: str = "throughput",
        quantum_ms: float = 4.0,
        max_steps: int = 100_000,
        **knobs: Any,
    ) -> None:
        if not isinstance(objective, str) or objective not in OBJECTIVES:
            raise OptionError(f"objective: give one of {', '.join(OBJECTIVES)}, got {objective!r}")
        if not _is_number(quantum_ms) or not 0.01 <= quantum_ms <= 10_000:
            raise OptionError(f"quantum_ms: a number from 0.01 to 10000, got {quantum_ms!r}")
        if isinstance(max_steps, (bool, np.bool_)) or not isinstance(max_steps, (int, np.integer)):
            raise OptionError(f"max_steps: a whole number from 1 to 100,000,000, got {max_steps!r}")
        if not 1 <= max_steps <= 100_000_000:
            raise OptionError(f"max_steps: from 1 to 100,000,000, got {max_steps}")
        to_values(knobs, reserved=("machine", "workload", "policy", "seed", "timing"))
        self.machine, self.workload, self.objective = machine, workload, objective
        self.quantum_ns = round(float(quantum_ms) * 1e6)
        self.max_steps, self.knobs = int(max_steps), knobs
        self._thread: threading.Thread | None = None
        self._channel: _Channel | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._steps = 0
        self._n_actions = 0

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def reset(self, *, seed: int = 1) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """Start an episode (closing any running one): the first observation and ``info``."""
        from .sim import simulate

        self.close()
        seed = check_seed("seed", seed)
        channel = _Channel(self.objective, self.quantum_ns)
        self._steps = 0
        agent = _Agent(channel)
        machine, workload, knobs = self.machine, self.workload, self.knobs

        def episode() -> None:
            try:
                r = simulate(machine, workload, agent, seed=seed, timing=False, **knobs)
                m = r.report["metrics"]
                end = m["instructions"] / 1e9 if channel.objective == "throughput" else -m["energy_j"]
                channel.to_caller.put(("done", r.report, end - agent.last_progress))
            except BaseException as e:  # noqa: BLE001 - handed to the caller's thread
                channel.to_caller.put(("error", e, 0.0))

        thread = threading.Thread(target=episode, name="cosched-gym", daemon=True)
        self._channel, self._thread = channel, thread
        # A dropped environment stops its episode: the thread holds only the channel.
        self._finalizer = weakref.finalize(self, channel.stop, thread)
        thread.start()
        obs, before, _done, info = self._next()
        info["reward_before_first_decision"] = before
        return obs, info

    def _next(self) -> tuple[dict[str, Any] | None, float, bool, dict[str, Any]]:
        assert self._channel is not None
        kind, payload, reward = self._channel.to_caller.get()
        self._n_actions = len(payload["waiting"]) if kind == "obs" else 0
        if kind == "error":
            self._thread = None
            if isinstance(payload, Exception) and "the environment was closed" in str(payload):
                return None, 0.0, True, {"n_actions": 0}
            raise payload
        if kind == "done":
            self._thread = None
            return None, float(reward), True, {"n_actions": 0, "report": payload}
        return payload, float(reward), False, {"n_actions": len(payload["waiting"])}

    def step(self, action: int) -> tuple[dict[str, Any] | None, float, bool, bool, dict[str, Any]]:
        """Run waiting thread ``obs["waiting"][action]`` on the first idle context; the next
        decision point's observation, the reward since the last one, whether the run ended,
        whether ``max_steps`` cut it, and ``info`` (``n_actions``; ``report`` at the end)."""
        if self._thread is None or self._channel is None:
            raise OptionError("step: no episode is running (call reset first)")
        # Checked here, so a bad action is refused and the episode goes on.
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise OptionError(f"action: give an index into obs['waiting'] (a whole number), got {action!r}")
        if not 0 <= int(action) < self._n_actions:
            raise OptionError(f"action {int(action)}: give an index into obs['waiting'] (0 to {self._n_actions - 1})")
        self._steps += 1
        self._channel.to_sim.put(int(action))
        obs, reward, done, info = self._next()
        truncated = not done and self._steps >= self.max_steps
        if truncated:
            self.close()
        return obs, reward, done, truncated, info

    def close(self) -> None:
        """Stop a running episode (its simulation ends at once) and wait for its thread."""
        if self._finalizer is not None:
            self._finalizer()  # channel.stop(thread), once
        self._thread = None
