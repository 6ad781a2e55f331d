"""The Gymnasium-style environment: random actions with a
fixed seed give the same episode byte for byte, rewards add up to the run's
objective, and closing or a bad action ends the simulation cleanly."""

from __future__ import annotations

import json
import random

import pytest

import cosched
from cosched.errors import OptionError
from cosched.gym import SchedEnv


def _episode(env: SchedEnv, seed: int, steps: int) -> tuple[list[str], dict]:
    rng = random.Random(seed)
    obs, info = env.reset(seed=seed)
    trail = [json.dumps(obs)]
    total = info["reward_before_first_decision"]
    for _ in range(steps):
        obs, reward, done, truncated, info = env.step(rng.randrange(info["n_actions"]))
        total += reward
        trail.append(json.dumps([obs, reward, done, truncated]))
        if done or truncated:
            break
    info["total_reward"] = total
    return trail, info


def test_random_actions_with_a_fixed_seed_give_the_same_episode_byte_for_byte():
    env = SchedEnv("i5-2500", "spec-mix8", max_steps=150)
    a, _ = _episode(env, 3, 1000)
    b, _ = _episode(env, 3, 1000)
    assert a == b
    assert len(a) == 151 and json.loads(a[-1])[3] is True, "truncated at max_steps"
    c, _ = _episode(env, 4, 1000)
    assert c != a, "another seed, another episode"
    env.close()


def test_a_whole_episode_ends_with_the_report_and_rewards_add_up_to_the_instructions():
    env = SchedEnv("i5-2500", "spec-mix8")
    trail, info = _episode(env, 1, 10**6)
    last = json.loads(trail[-1])
    assert last[2] is True and last[3] is False
    report = info["report"]
    assert report["policy"] == "gym-agent" and report["metrics"]["makespan_s"] > 0
    assert info["total_reward"] == pytest.approx(report["metrics"]["instructions"] / 1e9, rel=1e-9)
    first = json.loads(trail[0])
    assert set(first) == {"now_ns", "running", "idle", "waiting", "waiting_counters"}
    machines = cosched.list_machines().set_index("name")
    assert len(first["running"]) == machines.loc["i5-2500", "contexts"]  # one entry per context of the preset


def test_close_stops_the_simulation_and_a_bad_action_is_refused_without_ending_the_episode():
    env = SchedEnv("i5-2500", "spec-mix8", objective="energy")
    _obs, info = env.reset(seed=2)
    assert info["n_actions"] >= 2
    thread = env._thread
    env.close()
    assert thread is not None and not thread.is_alive()
    _obs, info = env.reset(seed=2)
    with pytest.raises(OptionError, match="give an index into obs"):
        env.step(info["n_actions"])
    _obs, _reward, done, _truncated, _info = env.step(0)  # the episode went on
    assert not done
    env.close()
