"""Typed keywords of the simulating functions, generated from the Rust
declarations of every knob (``cosched list knobs``) by ``python -m
cosched._knob_gen``: do not edit by hand. The values are checked again at
run time (:mod:`cosched._knobs`), where the ranges are."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Literal, TypeAlias, TypedDict

#: A text option: a string, a path, a number or a list of them (``assignment=[0, 1]``).
Text: TypeAlias = str | os.PathLike[str] | int | float | Sequence[int | str]


class Knobs(TypedDict, total=False):
    """The keywords of simulate, compare, sweep points and SchedEnv."""

    #: Thread count of the workload's multi-threaded jobs (refused when it has none: see --copies).
    threads: int | None
    #: Run N copies of every job of the workload (multiprogrammed copies, e.g. EFS's 4× one benchmark).
    copies: int | None
    #: Time quantum of the round-robin policies, ms (SLITS §5.2 (G-RRS, P-RRS, WSS); read by g-rrs, p-rrs,
    #: wss, mpki-pairs, random, static)
    quantum_ms: float | None
    #: Interval between work-stealing attempts, µs (SLITS §5.2 (WSS); read by wss)
    steal_interval_us: float | None
    #: EFS: predictor window t0, ms (EFS Eq. 20; read by efs)
    efs_window_ms: float | None
    #: EFS: local starvation constant c_l (EFS Eq. 22; read by efs)
    efs_c_local: float | None
    #: EFS: global starvation constant c_g (EFS Eq. 23; read by efs)
    efs_c_global: float | None
    #: EFS: Newton iterations for Eq. 10 (the paper: 4; 0 = iterate to convergence, under 50) (EFS §3.1;
    #: read by efs)
    efs_newton_iters: int | None
    #: EFS: objective of Eq. 15 (energy per work, or energy-delay per work) (EFS Eqs. 14-15; read by efs)
    efs_objective: Literal["energy", "energy-delay"] | None
    #: EFS: memory-bus rate mu (default: the machine's sustained maximum), M accesses/s (EFS §3.1; read by
    #: efs)
    efs_mu_m: float | None
    #: EFS: what admission reads; `capacity` admits by 1 - sum of running solo utilisations (no collision
    #: model); `oracle-solo` and `oracle` read the simulator's ground truth (ablations) (EFS §4; ablations
    #: of `paper efs`; read by efs)
    efs_admission: Literal["model", "capacity", "oracle-solo", "oracle"] | None
    #: EFS: turn off starvation freedom (no thread is forced in; ablation) (EFS §4.3; ablation of `paper
    #: efs`; read by efs)
    efs_no_starvation: bool
    #: Perf&Fair family: performance-and-fairness quantum, ms (Perf&Fair §5; read by perf-fair, perf, fair,
    #: perf-fair-oracle)
    pf_quantum_ms: float | None
    #: Perf&Fair family: IPC-estimation quantum, ms (Perf&Fair §4; read by perf-fair, perf, fair, perf-
    #: fair-oracle)
    pf_estimation_quantum_ms: float | None
    #: Perf&Fair family: quanta an IPC-alone estimate stays valid, quanta (Perf&Fair §4; read by perf-fair,
    #: perf, fair, perf-fair-oracle)
    pf_validity: int | None
    #: Perf&Fair family: LLC transactions/µs above which a process is heavy-sharing, trans/µs (Perf&Fair
    #: §5.2; read by perf-fair, perf, fair, perf-fair-oracle)
    pf_llc_threshold: float | None
    #: Perf&Fair family: memory transactions/µs above which a process is heavy-sharing, trans/µs (Perf&Fair
    #: §5.2; read by perf-fair, perf, fair, perf-fair-oracle)
    pf_mm_threshold: float | None
    #: SLITS: share of picks made with the factorization machine (the rest round-robin), % (SLITS §6.4;
    #: read by slits-contention, slits-fairness)
    slits_coverage: float | None
    #: SLITS: how a waiting thread is chosen: fm (the paper), round-robin (the paper's "without FM"),
    #: random, or oracle (ground-truth co-run contention; simulator only) (SLITS §4.3, §6.3; read by slits-
    #: contention, slits-fairness)
    slits_pairing: Literal["fm", "round-robin", "random", "oracle"] | None
    #: SLITS: rank every waiting thread (one global queue) instead of the threads assigned to the idle core
    #: (SLITS §4.3.1 step 1; read by slits-contention, slits-fairness)
    slits_global_queue: bool
    #: SLITS: periodic rescheduling every this many ms instead of Lazy Reschedule (0 = lazy), ms (SLITS
    #: §3.4, §6.3; read by slits-contention, slits-fairness)
    slits_period_ms: float | None
    #: SLITS: FM latent dimension k (the paper's is 8; each thread keeps k factors per event) (SLITS §3.3;
    #: read by slits-contention, slits-fairness)
    slits_k: int | None
    #: SLITS: FM learning rate (SLITS §3.3; read by slits-contention, slits-fairness)
    slits_learning_rate: float | None
    #: SLITS: FM L2 regularisation of the factors (SLITS §3.3; read by slits-contention, slits-fairness)
    slits_reg: float | None
    #: RDA: multiply every declared demand by this (sensitivity to wrong declarations; 1 = as declared)
    #: (RDA §3.2 (declarations); ablation of `paper rda`; read by rda-strict, rda-compromise)
    rda_declare_scale: float | None
    #: RDA Compromise: oversubscription factor x (capacity may be exceeded up to x times) (RDA §3.3; read
    #: by rda-compromise)
    rda_factor: float | None
    #: Quintet: what to optimise: throughput (pairing), fairness (progress accounting), energy or edp (EFS
    #: admission may idle contexts) (quintet (SLITS §4.3, Perf&Fair §3, EFS Eq. 14); read by quintet)
    quintet_objective: Literal["throughput", "fairness", "energy", "edp"] | None
    #: Quintet: mechanisms switched off, comma-separated: pairing, progress, admission, periods, pipes (an
    #: ablation; none = all on) (quintet (ablations of `paper quintet`); read by quintet)
    quintet_without: str | Sequence[Literal["pairing", "progress", "admission", "periods", "pipes"]] | None
    #: Thread -> context assignment for `static`: comma-separated context ids (thread 0 first) or a file
    #: holding them (statistical study §3; read by static)
    assignment: Text | None
    #: Cost of each pp_begin / pp_end call charged to the calling thread, µs (default: measured on
    #: cosched's real runtime by scripts/bench-pp, `cosched_core::pp_wire::MEASURED_PP_CALL_US`).
    pp_cost_us: float | None
    #: Scheduler overhead charged at every thread start, µs: the context stalls this long (active, drawing
    #: power) before the thread runs (default 0: decisions are free; `cosched paper efs` measures each
    #: policy's mean decision time and charges it in its overhead ablation).
    decision_cost_us: float | None
    #: Relative noise on the counters policies read (0 = exact).
    counter_noise: float | None
    #: Run-to-run variation of the ground truth, in units of the published magnitudes (1: each seed draws
    #: its own machine and program speeds, as repeated real runs differ; 0: the exact model). See
    #: docs/model.md, "Run-to-run variation".
    noise: float | None
    #: Do not measure the policies' decision time (wall clock); outputs are then byte-identical for
    #: identical inputs and seeds.
    timing: bool
    #: Abort a run whose simulated time passes this many seconds.
    max_sim_time_s: float | None
    #: Abort a run after this many engine events (stops a runaway input: a vanishing quantum, billions of
    #: iterations); the default, 10⁸, is over 1,000× what the presets' runs take.
    max_events: int | None


class AssignOptions(TypedDict, total=False):
    """The keywords of cosched.assign."""

    #: Random assignments to draw.
    samples: int | None
    #: SP-POT: share of the predicted-worst assignments not measured (0, 0.5, 0.75, 0.9).
    prune: float | None
    #: Predictor for pruning.
    predictor: Text | None
    #: Threshold: `auto`, a value or `qQUANTILE`.
    threshold: Text | None
    #: Confidence level of the interval.
    confidence: float | None
    #: Run-to-run variation of each measurement, in units of the published magnitudes (each assignment is
    #: measured in a run of its own, as on the real machine; 0 = exact model).
    noise: float | None
    #: With --prune, also measure every assignment and report plain POT beside SP-POT.
    compare_plain: bool


class OptimumOptions(TypedDict, total=False):
    """The keywords of cosched.optimum."""

    #: Thread count of the workload's multi-threaded jobs.
    threads: int | None
    #: Run N copies of every job.
    copies: int | None
    #: What "best" means: throughput (GIPS, larger is better) or antt (mean turnaround over solo, smaller
    #: is better).
    objective: Text | None
    #: Simulate every distinct static co-schedule when there are at most this many (the exact optimum).
    budget: int | None
    #: Random assignments for the EVT estimate when the co-schedules exceed --budget (0 with an exhaustive
    #: search: none).
    samples: int | None
    #: Seed of the random assignments.
    seed: int | None
    #: Confidence level of the EVT interval.
    confidence: float | None
    #: Skip Jiang et al.'s pairwise matching (it runs jobs × (jobs − 1) pairwise co-runs) and its grouping
    #: on larger sharing domains (every member of every group that fits a domain: at most --budget co-
    #: runs).
    matching: bool
