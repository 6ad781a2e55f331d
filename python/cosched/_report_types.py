"""Typed shapes of the reports cosched returns to Python, generated from
the Rust report structs by ``python -m cosched._report_gen``: do not edit by
hand. ``Report`` is :attr:`cosched.Run.report` (``cosched simulate --format
json``)."""

from __future__ import annotations

from typing import TypedDict


class Metrics(TypedDict):
    makespan_s: float
    throughput_gips: float
    stp: float | None
    antt: float | None
    unfairness: float | None
    energy_j: float
    energy_cpu_j: float
    energy_dram_j: float
    edp_js: float
    instructions_per_joule: float
    instructions: float
    llc_misses: float
    l1_hits: float
    ctx_switches: int
    migrations: int
    explored_pct: float
    policy_events: int
    decide_p50_us: float | None
    decide_p99_us: float | None


class JobReport(TypedDict):
    name: str
    threads: int
    turnaround_s: float
    solo_s: float | None
    slowdown: float | None


class Report(TypedDict):
    policy: str
    oracle: bool
    machine: str
    workload: str
    threads: int | None
    seed: int
    noise: float
    metrics: Metrics
    jobs: list[JobReport]
