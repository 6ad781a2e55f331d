"""Policies written in Python run through the same contract
as the built-in ones, give the same reports, and fail with their traceback."""

from __future__ import annotations

import json

import pytest

import cosched
from cosched.errors import OptionError, PolicyError, SimulationError
from cosched.examples import GRrs as PyGRrs
from cosched.policy import COUNTERS, Policy, run


def _without_policy(run_: cosched.Run) -> str:
    r = dict(run_.report)
    r.pop("policy")
    return json.dumps(r, sort_keys=True)


@pytest.mark.parametrize(
    ("machine", "workload"), [("i5-2500", "spec-mix8"), ("xeon-e5645", "spec-mix24"), ("xeon-x5550-16c", "canneal")]
)
def test_a_python_policy_reproducing_g_rrs_gives_its_report_byte_for_byte(machine, workload):
    mine = cosched.simulate(machine, workload, PyGRrs(), seed=3, timing=False)
    theirs = cosched.simulate(machine, workload, "g-rrs", seed=3, timing=False)
    assert mine.policy == "py-g-rrs"
    assert mine.metrics["policy_events"] > 0
    assert _without_policy(mine) == _without_policy(theirs)


def test_compare_and_sweep_take_python_policies_beside_built_in_ones():
    df = cosched.compare("i5-2500", "spec-mix8", policies=["g-rrs", PyGRrs()], seeds=2, timing=False, bound=False)
    s = df.attrs["summary"].set_index("policy")
    assert list(s.index) == ["cfs", "g-rrs", "py-g-rrs"]
    assert s.loc["py-g-rrs", "makespan_s_mean"] == s.loc["g-rrs", "makespan_s_mean"]
    assert s.loc["py-g-rrs", "speedup_mean"] == s.loc["g-rrs", "speedup_mean"]
    grid = {"machine": "i5-2500", "workload": "spec-mix8", "seed": [1, 2], "policy": ["g-rrs", PyGRrs()]}
    sw = cosched.sweep(grid, progress=False)
    assert list(sw["policy"]) == ["g-rrs", "py-g-rrs"] * 2
    assert list(sw["makespan_s"][::2]) == list(sw["makespan_s"][1::2])
    # Traces too: the schedule of the Python policy is g-rrs's, slice for slice.
    mine = cosched.simulate("i5-2500", "spec-mix8", PyGRrs(), timing=False).trace()
    assert mine.equals(cosched.simulate("i5-2500", "spec-mix8", "g-rrs", timing=False).trace())
    with pytest.raises(OptionError, match="runs in this process"):
        cosched.sweep({"policy": [PyGRrs()]}, client=object(), progress=False)
    # Each run gets its own copy: the instance given is never run itself.
    p = PyGRrs()
    cosched.simulate("i5-2500", "spec-mix8", p, timing=False)
    assert not hasattr(p, "order") and not p.queue


class Raises(Policy):
    name = "raises"

    def on_event(self, ev, view):
        if ev.kind == "arrived":
            return [run(ev.thread, ev.thread % view.n_contexts())]
        return [run(0, 0), 1 / 0]


def test_an_exception_stops_the_run_with_its_traceback_and_the_simulated_time():
    with pytest.raises(SimulationError) as e:
        cosched.simulate("i5-2500", "spec-mix8", Raises(), timing=False)
    msg = str(e.value)
    assert "policy `raises` failed: on_event raised handling Event('exited'" in msg, msg
    assert "at simulated time " in msg and "Traceback (most recent call last)" in msg, msg
    assert "ZeroDivisionError: division by zero" in msg and "test_policy.py" in msg, msg


class Malformed(Policy):
    name = "malformed"

    def __init__(self, answer):
        self.answer = answer

    def on_event(self, ev, view):
        return self.answer


@pytest.mark.parametrize(
    ("answer", "needle"),
    [
        ([("run", 1)], "decision 0 ('run', 1): `run` takes 2 values"),
        ([["run", 0, 0]], "not a tuple"),
        ([("jump", 0)], "unknown decision `jump`"),
        ([("run", -1, 0)], "item 1 must be an integer"),
        ([("timer", 0, "soon")], "a time in ns"),
        (7, "'int' object is not iterable"),
        ([("run", 99, 0)], "named thread 99"),
    ],
)
def test_a_decision_that_is_not_one_is_refused_naming_it(answer, needle):
    with pytest.raises(SimulationError) as e:
        cosched.simulate("i5-2500", "spec-mix8", Malformed(answer), timing=False)
    assert needle in str(e.value), str(e.value)


def test_bad_declarations_are_refused_before_anything_runs():
    class Named(Policy):
        name = "cfs"

    with pytest.raises(PolicyError, match="is a built-in policy's"):
        cosched.simulate("i5-2500", "mcf", Named())
    with pytest.raises(PolicyError, match="not the class"):
        cosched.simulate("i5-2500", "mcf", PyGRrs)

    class Needy(Policy):
        name = "needy"
        needs = ("oracle",)

    with pytest.raises(PolicyError, match="`oracle` is not a need"):
        cosched.simulate("i5-2500", "mcf", Needy())
    with pytest.raises(OptionError, match="two different policies"):
        cosched.sweep({"policy": [PyGRrs(), PyGRrs()]}, progress=False)


class Reads(Policy):
    """Runs threads in arrival order and records what the view says."""

    name = "reads"
    needs = ("counters",)

    def init(self, view):
        self.kept = view
        self.seen: list = []

    def on_event(self, ev, view):
        if ev.kind == "exited" and len(self.seen) < 3:
            self.seen.append((view.thread_counters(ev.thread), view.job_of(ev.thread), view.energy()))
            self.picked = view.counters([ev.thread], ("llc_misses", "instructions"))
        free = [c for c in range(view.n_contexts()) if view.running_on(c) is None]
        return [run(ev.thread, free[0])] if ev.kind in ("arrived", "runnable") and free else []


def test_counters_by_name_equal_the_full_tuple_and_an_unknown_name_is_refused():
    class ByName(Policy):
        name = "by-name"
        needs = ("counters",)

        def init(self, view):
            self.pairs: list = []

        def on_event(self, ev, view):
            if ev.kind == "exited":
                full = view.counters([ev.thread])[0]
                picked = view.counters([ev.thread], ("llc_misses", "instructions"))[0]
                self.pairs.append((full, picked))
            free = [c for c in range(view.n_contexts()) if view.running_on(c) is None]
            return [run(ev.thread, free[0])] if ev.kind in ("arrived", "runnable") and free else []

    from cosched import _cosched

    made: list = []

    def factory():
        made.append(ByName())
        return made[-1]

    knobs = [("machine", "i5-2500"), ("workload", "mcf"), ("timing", False)]
    _cosched.simulate(knobs, None, None, "by-name", 1, custom=("by-name", factory, ["counters"]))
    assert made[-1].pairs
    for full, picked in made[-1].pairs:
        assert picked == (full[COUNTERS.index("llc_misses")], full[COUNTERS.index("instructions")])

    class Typo(ByName):
        def on_event(self, ev, view):
            if ev.kind == "exited":
                view.counters([ev.thread], ("instructions", "llc_miss"))
            return super().on_event(ev, view)

    with pytest.raises(SimulationError, match="`llc_miss` is not a counter"):
        cosched.simulate("i5-2500", "mcf", Typo(), timing=False)


def test_the_view_gives_plain_values_during_a_call_and_nothing_after_it():
    p = Reads()
    (name, make, needs) = cosched.policy.custom(p)
    inst = make()  # what a run gets: a copy
    out = cosched.simulate("i5-2500", "mcf", inst, timing=False)
    assert out.metrics["makespan_s"] > 0
    # A copy of the copy ran; run one directly through the binding to read its state afterwards.
    from cosched import _cosched

    holder: list = []

    def factory():
        holder.append(Reads())
        return holder[-1]

    _cosched.simulate(
        [("machine", "i5-2500"), ("workload", "mcf"), ("timing", False)],
        None,
        None,
        "reads",
        1,
        custom=("reads", factory, ["counters"]),
    )
    ran = holder[-1]
    counters, job, energy = ran.seen[0]
    assert len(counters) == len(COUNTERS) and counters[0] > 0  # instructions retired
    # The same thread's counters read by name, in the order asked (the last exit read).
    assert len(ran.picked) == 1 and len(ran.picked[0]) == 2 and ran.picked[0][1] > 0
    assert job == 0 and energy is not None and energy[0] > 0
    with pytest.raises(RuntimeError, match="valid only during"):
        ran.kept.now()
    assert (name, needs) == ("reads", ["counters"])
