"""Typed shapes of the reports cosched returns to Python, generated from
the Rust report structs by ``python -m cosched._report_gen``: do not edit by
hand. ``Report`` is :attr:`cosched.Run.report` (``cosched simulate --format
json``), ``Comparison`` ``cosched compare --format json``, ``OptimumReport``
:attr:`cosched.Optimum.report`, ``AssignmentReport``
:attr:`cosched.Assignment.report`, ``Interleaved``, ``CheckReport`` and
``Replay`` the ``.data`` of :mod:`cosched.host`'s results. A Rust tuple is a
JSON array: a list here. A number that is not finite is ``None`` in JSON."""

from __future__ import annotations

from typing import TypedDict


class Aggregate(TypedDict):
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


class Metrics(Aggregate):
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
    found: str | None


class MeanCi(TypedDict):
    mean: float
    lo: float
    hi: float
    n: int


class PolicySummary(TypedDict):
    policy: str
    oracle: bool
    beats_bound: bool | None
    speedup: MeanCi
    makespan_s: MeanCi
    antt: MeanCi | None
    unfairness: MeanCi | None
    stp: MeanCi | None
    energy_j: MeanCi
    edp_js: MeanCi
    llc_misses: MeanCi
    l1_hits: MeanCi
    ctx_switches: MeanCi
    migrations: MeanCi
    explored_pct: MeanCi
    gap_to_bound_pct: MeanCi | None
    decide_p50_us: MeanCi | None
    decide_p99_us: MeanCi | None


class GpdFit(TypedDict):
    xi: float
    sigma: float
    loglik: float
    n: int


class PotResult(TypedDict):
    threshold: float
    exceedances: int
    fit: GpdFit
    upb: float
    ci: list[float]
    confidence: float
    best: float
    gap: float
    guard_threshold: float | None
    gpd_rejected_everywhere: bool


class PotOrWhy(TypedDict):
    estimate: PotResult | None
    no_estimate: str | None


class BestStatic(TypedDict):
    bound: str
    coschedules: str
    best_gips: list[float]
    best_ci: list[list[float] | None]
    samples: int


class PairedUnfairness(TypedDict):
    policy: str
    here: MeanCi
    in_regime: MeanCi


class RegimeRun(TypedDict):
    solo_s: float
    policies: list[PolicySummary]
    paired: list[PairedUnfairness]


class RegimeNote(TypedDict):
    policies: list[str]
    paper: str
    regime: str
    here: str
    in_regime: RegimeRun | None
    paper_figures: str


class Finding(TypedDict):
    policy: str
    found: str


class IdenticalRows(TypedDict):
    policies: list[str]
    found: list[Finding]


class Comparison(TypedDict):
    machine: str
    workload: str
    threads: int | None
    baseline: str
    seeds: list[int]
    policies: list[PolicySummary]
    best_static: BestStatic | None
    no_best_static: str | None
    runs: list[Report]
    identical: list[IdenticalRows]
    speedups: list[float]
    regimes: list[RegimeNote]


class Outcome(TypedDict):
    throughput_gips: float
    makespan_s: float
    antt: float
    energy_j: float


class Found(TypedDict):
    assignment: list[int]
    outcome: Outcome


class Exhaustive(TypedDict):
    best: Found
    worst: Found
    evaluated: int
    idle: bool


class Matched(TypedDict):
    found: Found
    pairs: list[list[int | None]]
    pair_cost: float
    corun_runs: int


class Grouped(TypedDict):
    found: Found
    size: int
    groups: list[list[int]]
    group_cost: float
    corun_runs: int


class Sampled(PotOrWhy):
    best: Found
    samples: int
    partitioned: bool
    idle: bool
    idle_draws: int


class OptimumReport(TypedDict):
    machine: str
    workload: str
    objective: str
    threads: int
    contexts: int
    coschedules: str
    static_coschedules: str
    bound: str
    best: float
    best_ci: list[float] | None
    exhaustive: Exhaustive | None
    matching: Matched | None
    no_matching: str | None
    grouping: Grouped | None
    no_grouping: str | None
    sampled: Sampled | None
    thread_jobs: list[str]


class AssignmentReport(TypedDict):
    machine: str
    workload: str
    threads: int
    population: str
    samples: int
    measured: int
    prune: float
    best: float
    best_assignment: list[int]
    pot: PotResult
    plain_pot: PotResult | None
    prob_sample_has_top_1pct: float


class PairedRatio(TypedDict):
    ratio: float
    lo: float
    hi: float
    bootstrap: list[float]
    t: list[float]
    confidence: float
    rounds: int
    verdict: str
    rounds_needed: int | None


class StopRecord(TypedDict):
    reason: str
    grace_s: float
    terminated: list[str]
    killed: list[str]


class RealJob(TypedDict):
    name: str
    turnaround_s: float | None
    solo_s: float | None
    slowdown: float | None
    cpu_s: float
    voluntary_switches: int | None
    involuntary_switches: int | None
    migrations: int | None
    exit_code: int | None
    error: str | None


class RealReport(TypedDict):
    policy: str
    mix: str
    freezer: str
    jobs: list[RealJob]
    metrics: Aggregate
    provenance: dict[str, str]
    scheduler_cpu_pct: float
    policy_events: int
    interrupted: bool
    stop: StopRecord | None


class StaticPartition(TypedDict):
    level: str
    assignment: list[int]
    contexts: list[list[str]]
    predicted_makespan_s: float
    candidates: int
    pairing_makespan_s: float | None
    measured_cells: int
    predicted_cells: int


class Round(TypedDict):
    round: int
    order: list[str]
    policy_seed: int
    solo_s: list[float]
    solo_cpu_s: list[float]
    drift: float
    drifted: bool
    makespan_s: list[float]


class Stopped(TypedDict):
    reason: str
    rounds: int


class EntrySummary(TypedDict):
    policy: str
    makespan_s: MeanCi
    antt: MeanCi | None
    unfairness: MeanCi | None
    energy_j: MeanCi
    scheduler_cpu_pct: MeanCi
    vs_baseline: PairedRatio | None
    gap_to_bound_pct: MeanCi | None
    verdict: str


class Interleaved(TypedDict):
    mix: str
    baseline: str
    rounds: int
    seed: int
    drift_threshold: float
    min_effect: float
    drifted_rounds: list[int]
    best_static: StaticPartition | None
    no_best_static: str | None
    policies: list[EntrySummary]
    round: list[Round]
    runs: list[list[RealReport]]
    stopped: Stopped | None


class JobSched(TypedDict):
    cpu_ratio: float
    switches: float
    migrations: float


class TimeSharing(TypedDict):
    cpu_ratio: MeanCi
    switches: MeanCi
    involuntary: MeanCi
    migrations: MeanCi | None
    predicted: JobSched


class JobCheck(TypedDict):
    policy: str
    job: str
    measured: MeanCi
    predicted: float
    error: float
    rounds: list[float]
    resolution: float
    inside: bool
    error_se: float | None
    band: list[float] | None
    in_band: bool
    pooled: float | None
    predicted_without_tenants: float | None
    time_sharing: TimeSharing | None


class PolicyCheck(TypedDict):
    policy: str
    measured_makespan_s: MeanCi
    predicted_makespan_s: float


class MovedJob(TypedDict):
    job: str
    solo_spread: float
    cells: list[str]


class Ties(TypedDict):
    measured: list[str]
    predicted_margin: float
    makespan_error: float
    predicted_tie: bool


class Check(TypedDict):
    jobs: list[JobCheck]
    policies: list[PolicyCheck]
    median_abs_error: float
    worst_abs_error: float
    median_abs_error_without_tenants: float | None
    worst_abs_error_without_tenants: float | None
    median_abs_error_pooled: float | None
    worst_abs_error_pooled: float | None
    beyond_worst: int
    beyond_inside: int
    in_band: int
    banded: int
    solo_s: list[list[float]]
    measured_best: str
    predicted_best: str
    best_within_interval: bool
    best_words: str
    ties: Ties
    stopped: Stopped | None
    within_pct: float | None
    moved: list[MovedJob]


class CheckReport(TypedDict):
    mix_jobs: list[str]
    model: str
    result: Check
    skipped: list[str]
    source: list[list[str]]
    untrusted: list[str]


class Cell(TypedDict):
    policy: str
    job: str
    measured: float
    recorded: float
    replayed: float
    measured_cpu: MeanCi | None
    replayed_cpu: float | None


class Replay(TypedDict):
    file: str
    model: str
    rounds: int
    cells: list[Cell]
    median_abs_error: list[float]
    worst_abs_error: list[float]
    beyond_worst: list[int]
    cpu_median_abs_error: float | None
    cpu_inside: list[int]
