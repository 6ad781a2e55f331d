"""The constants of the method a page may print without a result file: the one declared list.
Each entry names what the number is and the phrase it is printed in; a number
inside such a phrase is not a result and is not pinned. A number in no phrase here, not in
backticks or quotes, and not a figure, section or equation reference must read its result cell
(scripts/docs_numbers.py). Add an entry only for a setting of the method (a quantum, a window, a
run length, a size a preset declares), never for an outcome.

Kinds of text that are never results, whatever their phrase (`FORMS`, scripts/docs_numbers_forms.py): calendar dates (when a
measurement was taken), the numbers of a numbered list, a citation's year and DOI, equation
numbers, thresholds and targets (after ≥, ≤, <, >), copies of a program (`8×povray`). And three
kinds of block (scripts/docs_numbers_pages.py): a "paper | code" table maps the paper to the code
(its numbers state the method), a catalogue table (`CATALOGUE_TABLES`) lists the presets and
policies with what their files and knobs declare, and a "Tests" section describes the tests,
whose settings and tolerances live in the test code that CI runs.
"""

from __future__ import annotations

#: (name, the phrase with the number in its group, where the value is declared).
CONSTANTS: list[tuple[str, str, str]] = [
    (
        "the off-grid shares the tick study sweeps (docs/model.md, How much the share matters)",
        r"with (0\.25), (0\.0625) and (0\.015625) of slices off the grid",
        "scripts/sensitivity (the `scheduler_off_grid` values of tick-off-grid.txt's sections)",
    ),
    (
        "the per-domain solve's tolerances (docs/model.md, LLC domains apart)",
        (
            r"a grid of (0\.1)% steps|more\s+than (0\.5)% from the bus's|IPC is (1)/\(b \+ c·L\)"
            r"|more than (5)% off|at most six"
        ),
        "crates/cosched-sim/src/contention/domain.rs: LATENCY_GRID, DRIFT_TOL, OCCUPANCY_TOL; engine/solve.rs BUS_PASSES",
    ),
    (
        "the real-machine runtime's settings (docs/runtime.md)",
        (
            r"differs from sysfs's by more than (1)%|a context with no runnable task for (3) ticks \((60) ms\)"
            r"|left incomplete for (5) s|plus (20,000) seeded mutations|default (5) s; a second Ctrl-C"
            r"|the fail-safe tests (3) times|test file (10) times|\((60) s\), and the `--timeout-s`|HANG`,\s*$"
            r"|^(60) s\), and the|sets its timeout to (4) ×|\((1) MiB each|between (5)-ms slices for (1) ms"
            r"|for (16) ms with the CPU idle|(5)-ms slices for (2), (8) and (32) ms|about (95)% of the measured"
            r"|\((10,000) seeded resamples|`--drift-threshold` \((10)%\)|`--min-effect` \((1)%\)"
            r"|with (100) ms quanta|at (100) ms quanta|(100) ms by default|(500) µs steal timer|(2,000) wake-ups"
            r"|`--repeat (\d+)`?|--repeat (\d+) |(20) rounds|within (5) s\b|grid \((11) footprints|(12) access rates"
            r"|from (0\.1) to (500) per|co-runner\s+starts (0\.5) s|starts (0\.5) s ahead|more than (25)% is flagged"
            r"|≥ (90)% of its turnaround|\(k = (2),|beyond (30)%|(1) \(baseline\)|every ~(4) ms|the (1) s grace"
            r"|timed out after (2) s|SIGTERM \((2)\); (1) ignored|status (2)\b|the default tick is (20) ms"
            r"|\((2) MiB/1 LLC/2 CPUs, (8) MiB/4 CPUs, (32) MiB|\(default (2) ×\)|scheduler alone, (20)$"
            r"|With (24) managed processes \((24) ×|and (100) ms quanta|(69) µs per call, is the simulator's default"
            r"|× \((1) ± t₉₅\(R−(1)\)·√(2)·σ/√R\)"
            r"|with (1)\.\.N pinned|over ¼, ½, (1) and (2) ×|at IPC (1)\b|\(MLP (1):|from ⅛ to (4) ×|^(30)%: chase4"
            r"|the (10)% threshold|kernel's (4)-ms slices|EEVDF's (1\.5)-ms request|in (4) rounds interleaved"
            r"|(12) M loads/s × an assumed (4) instructions|(900) M operations/s × (4) instructions|Perf&Fair's (200) ms"
            r"|the (100) ms round-robin|a (100) ms\s*$|\(median of (3), alone"
            r"|beyond its own\s+(95)% half-width|at least (10)% apart"
        ),
        (
            "crates/cosched-linux (runtime tick, blocking after 3 ticks, the pp server's 5-s line timeout, --grace-s),"
            " crates/cosched-cli (rounds: 10,000 resamples, --drift-threshold, --min-effect), characterise.rs (the"
            " pirate grid, the 0.5-s lead, the 25% flag), probing.rs (90% cover, k = 2), scripts/load, the tests'"
            " HANG; SLITS §5.2 (WSS's 500 µs); host-check's targets (median ≤ 15%, no cell beyond 30%)"
        ),
    ),
    (
        "the held-out families' definitions (docs/runtime.md, development mixes and families)",
        (
            r"draws (2)-(6) (?:synthetic )?jobs|to last (0\.6)-(2) s alone|seeded\s+with seed × (1,000,003)"
            r"|percent of its mean \(default (5)\)|rounds \(default (12)\)|rounds\s+\(default (600);"
            r"|within ±t₉₅ of the rounds, (2\.8) at five|more\s+than (10)% across the rounds|slowdown below (0\.95)\)"
        ),
        (
            "data/mixes/host-random/family.toml, data/mixes/host-real/family.toml (jobs, alone_s, seed);"
            " cosched_lab::family::draw; calibrate --check's --within, --max-rounds, --budget-s defaults"
            " (crates/cosched-cli/src/calibrate.rs) and cosched_host::check::MOVED"
        ),
    ),
    (
        "the characterisation's fit (docs/runtime.md, 'Characterising a program')",
        (
            r"Little's law, at most (64)|^patterns \((13) footprints from (1/16) to (4) ×"
            r"|(12) access rates from (0\.1) to (500) per|two rounds of (9) × (9) log-spaced|steps of about (1\.1)%"
            r"|fit's (95)% confidence region|constants to \*n\* co-runs: error ≤ S · \((1) \+ (2)/\(n−(2)\) · F\((2), n−(2); (0\.95)\)\)"
            r"|MLP (1), since wall|at (0\.6) × the LLC|within (10)% with the truth|a (48) MB sweep drawing"
            r"|spread (0\.5)%; at (2)% a random|pattern over (4) × the LLC|a (2) MB chase|mixes (1)-(6)\b|mixes (7)-(12)\b"
            r"|mixes (13)-(18)\b|mixes (25)-(27)\b|[Mm]ixes (28)-(30)\b|[Mm]ixes (31)-(33)\b|[Mm]ixes (34)-(36)\b|mixes (31)-(36)\b|[Mm]ixes (13)-(15)\b|[Mm]ixes (16)-(18)\b|[Mm]ixes (19)-(21)\b|[Mm]ixes (22)-(24)\b|[Mm]ixes (19)-(24)\b|mixes (25)-(30)\b|\((1/16) × the LLC\)|at (64) in flight|its random fit had MLP (1)\)"
            r"|^`--repeat` rounds \((3)\)|percent at (95)% \((5);|^added; (0): exactly|`--max-rounds` rounds \((9)\)"
            r"|job's rounds \((120)\)|stops at (6) rounds or (60) s a job|solo runs spread more than (25)% as largest|d₂ = (1\.693)$|the range (three) runs"
        ),
        (
            "crates/cosched-lab/src/characterise/{model,search}.rs (MAX_MLP, FOOTPRINTS, APKI, REFINE, ROUNDS,"
            " region: Beale 1960); the synthetic truths of characterise/truth.rs; the families' mix numbers"
        ),
    ),
    (
        "the characterisation's phases (docs/runtime.md, 'Phases')",
        r"average at least ln (1\.1) \(twice the ±(5)% each|Student's quantile at (5)% over the number",
        "crates/cosched-lab/src/characterise/phases.rs (MIN_STEP, ALPHA, MIN_WINDOWS, MIN_RUNS)",
    ),
    (
        "Perf&Fair's estimate validity",
        (
            r"has run (8) s|after (8) s|(8) s of its run time|(40) quanta of (200) ms|a whole (200)-ms quantum"
            r"|its (200)-ms|renewed every (8) s|\((10)-ms quanta, as many"
        ),
        "Perf&Fair §5.1; crates/cosched-policies (perf-fair's VALID_QUANTA × its 200 ms quantum)",
    ),
    (
        "quintet's IPC-alone half-life",
        r"half-life of (1) s",
        "crates/cosched-policies quintet: the running estimate's half-life",
    ),
    (
        "Perf&Fair's quanta and its selection rule",
        r"in (200) ms quanta|within (1) of MaxP|estimation quanta \((100) ms\)|at (200) ms\b",
        "Perf&Fair §5 and §7: 200 ms quanta, 100 ms estimation quanta, Progress + 1 < MaxP",
    ),
    (
        "the model's counter noise",
        r"(1)% counter noise",
        "crates/cosched-sim/src/variation.rs: 1% relative noise on counter readings [A]",
    ),
    (
        "Perf&Fair Fig. 3's milestones",
        r"first to (12) done|has (12) done|(12)th",
        "Perf&Fair Fig. 3: the first, the 12th and the last process done",
    ),
    (
        "Perf&Fair's bandwidth regimes",
        r"below (80)\b|\b(80) to (120)\b|above (120)\b|\b(80)-(120)\b|\b(40)-(142)/µs|end at (142)/µs",
        "Perf&Fair §7: mixes below 80, 80 to 120 and above 120 trans/µs; its mixes span 40-142",
    ),
    (
        "the bus settings of the bandwidth sensitivity study",
        r"\b(10|14|20) GB/s\b|\b(32) GB/s peak|~(65)% of peak|choosing (10) because|instead of its \[A\] (20)",
        "scripts/sensitivity; data/machines/xeon-e5645.toml (three channels, 32 GB/s peak; ~65% sustained [A])",
    ),
    (
        "the E5645 bus against Perf&Fair's heaviest mix",
        r"(140) transactions/µs is (45)% of the E5645 preset's (312)/µs|reaches (140)/µs|about (100)/µs each",
        "Perf&Fair §7 (mixes to 140 trans/µs); data/machines/xeon-e5645.toml (312/µs sustained)",
    ),
    (
        "the decision costs the EFS ablation charges",
        (
            r"CFS (0\.07) µs, EFS (1\.06)-(1\.07) µs|at (4) ms CFS slices, costing (1)% of a core's time"
            r"|about (40) µs per switch, ~(37)× the (1\.07) µs"
        ),
        "crates/cosched-lab: efs_ablation::MEASURED_DECISION_US (measured, then fixed so reruns stay byte-identical)",
    ),
    (
        "the oracle-solo arm's clamp",
        r"taken as (0\.999) by the oracle-solo arm",
        "crates/cosched-policies efs oracle-solo admission: a demand at or above the bus rate is taken as 0.999",
    ),
    (
        "EFS Figs. 4, 6 and 7's settings: solo utilisations, the interferer's axis",
        (
            r"interferer of (0\.\d+)(?:-(0\.\d+))?|solo utilisation (0\.\d+)(?: or (0\.\d+))?|% at (0\.\d+)\b"
            r"|from (0\.7) on|a (0\.57) thread|utilisation (0\.\d+)\b|at (0\.95)\)|^\s*utilisation (0\.\d+) or (0\.\d+)"
        ),
        "EFS §5.2 Figs. 4, 6 and 7; crates/cosched-lab/src/paper/efs_figs.rs (the probe's settings)",
    ),
    (
        "the tolerance of the DRAM check's test over seeds",
        r"cell within (0\.02) over seeds",
        "crates/cosched-lab/src/dram_check.rs: the_checks_one_seed_stands_for_the_others (spread < 0.02)",
    ),
    (
        "the i5-2500's DRAM organisation and the streams of the Table 1 check",
        r"(2) ranks|× (8) banks|row locality \((0\.9)\)|(4) streams|(1) ms windows",
        "data/machines/i5-2500.toml [memory.dram]; crates/cosched-sim/src/dram (the table's streams)",
    ),
    (
        "cosched optimum's defaults and limits, and the bound's seeds",
        (
            r"default (20,000), at most (1,000,000) simulations|\((20,000) for `compare`|default (1,000), at most"
            r"|^\s*(100,000)\) give|at most (16) jobs|at least (10) seeds|its (30)\b|`paper quintet` runs (5)"
            r"|\((504) for (8) jobs in fours\)"
        ),
        (
            "crates/cosched-lab: best_static (budget, samples and their caps), grouping::MAX_JOBS,"
            " compare::BEAT_SEEDS, GAP_PARTITION_SAMPLES"
        ),
    ),
    (
        "the static policy's quantum and the machines' sizes",
        r"`static`, (4) ms|over all (12)\b|Bell\((4)\) = (15)|has (15) members|\((2) vCPUs",
        "crates/cosched-policies static (4 ms round-robin); data/machines (xeon-e5-2420: 12 contexts)",
    ),
    (
        "the co-run search's study mixes and the test of its premise",
        (
            r"\((8) SPEC CPU2006 jobs: (3)|^\s*memory-bound, (3) cache-sensitive, (2) compute-bound\) and spec-mix12 \((4) of each"
            r"|(100) random placements|integer-blossom` \((1\.2)"
        ),
        "data/workloads/spec-mix8.toml, spec-mix12.toml; crates/cosched-lab/tests (placements)",
    ),
    (
        "the PARSEC/SPLASH-2 presets' resident sets",
        r"RSS is (23) MiB to (3\.2) GiB",
        "data/workloads (each preset's working set, from its published characterisation)",
    ),
    (
        "RDA's machine and Table 2's declarations",
        (
            r"(\d+(?:\.\d+)?) MB on a (15) MB cache|(15) MB cache|(20) MB of a (15) MB cache|the whole (15) MiB LLC"
            r"|water-sp (14) MiB|an \[A\] (24) GB/s|plus (0\.1) MB private"
        ),
        "data/machines/xeon-e5-2420.toml (15 MB LLC; 24 GB/s sustained [A]); RDA Table 2 via scripts/gen-rda-presets.py",
    ),
    (
        "RDA's fitted cliff and the profiler's settings",
        (
            r"\((0\.5) MPKI once|(30) = every LLC access|(30) misses per KI|curve had (15)\)"
            r"|within (20)% of the run's average|(100,000) accesses, and (1,000,000)|within (0\.03) of the"
        ),
        "scripts/gen-rda-presets.py (the fitted curve [C]); crates/cosched-policies rda/profile.rs defaults and its test",
    ),
    (
        "sizes of a run described in prose",
        r"(24) light processes|(20) MB per process|with (69) µs per call",
        (
            "crates/cosched-lab paper perf-fair's compose (24 processes); RDA Table 2 (5.1 MB × 4 threads);"
            " cosched_core::pp_wire::MEASURED_PP_CALL_US"
        ),
    ),
    (
        "a test's tolerance",
        r"time within (1)%",
        "crates/cosched-sim/tests/perf_fair_policy.rs: progress within 1% of the ground truth",
    ),
    (
        "Perf&Fair's job length in its regime",
        r"on (100)-s jobs|each job (100) s alone|in (100) s alone|(100) s alone|(500) of its (200)-ms quanta|(100)-s regime",
        "Perf&Fair §6: every job runs 100 s alone",
    ),
    (
        "the runs' seed counts",
        r"(?<!of )(?<![\d,./])\b(\d+) seeds\b|\b(\d+)-seed\b|\b(10) for the bound",
        (
            "each run's --seeds: the paper reruns' default (crates/cosched-lab/src/paper/mod.rs, Seeds: 5),"
            " compare's (3), the bound's (compare::BEAT_SEEDS, 10)"
        ),
    ),
    (
        "Perf&Fair's study: its mixes, processes and contexts",
        r"(?<!of )\b(13) mixes|\b(24) (?:SPEC CPU2006 )?(?:processes|presets)\b|\bon (12) contexts",
        "Perf&Fair §6: thirteen mixes of twenty-four SPEC CPU2006 benchmarks (paper::perf_fair::PAPER_MIXES) on the E5645's 12",
    ),
    (
        "the machines' clocks",
        r"\b(\d+(?:\.\d+)?) GHz\b",
        "data/machines/*.toml (`freq_ghz`, each from its datasheet) and the clocks a paper names",
    ),
    (
        "the new-policy template's quantum and registry rank",
        r"(4) ms on the simulator and (100) ms on the real runtime|rank (1000)\b",
        "crates/cosched-cli/src/templates/policy.rs.txt (MyPairingKnobs default; REGISTERED rank)",
    ),
    (
        "the grouping's domain sizes and the tests of the exact searches",
        (
            r"domains of (3) to (8) contexts|group of (2) to g|on (300) seeded instances"
            r"|on (400) seeded random instances of (2)-(12) vertices"
        ),
        "crates/cosched-lab/src/optimum/grouping.rs (domains of 3-8 contexts) and its tests; matching.rs's tests",
    ),
    (
        "the machines' cache sizes",
        r"\b(\d+(?:\.\d+)?) (?:MiB|MB) (?:L2|L3|LLCs?)\b",
        "data/machines/*.toml (`[cache]`, each from its datasheet or the paper's table)",
    ),
    (
        "the Python sweep's partitioning, signal checks and cancel flag",
        (
            r"default: (4) per worker thread, at most (2,000) points each"
            r"|^(100,000)-run grid on (8) workers × (4) threads becomes max\((4)·(32), ⌈(100,000) / (2,000)⌉\) = (128)"
            r"|^(782) runs; each task|every (50) ms|every (4,096) events"
        ),
        "python/cosched/sweeps.py (partitions per worker thread, points per partition); crates/cosched-py (signal checks, cancel flag)",
    ),
    (
        "how the benchmark scripts repeat",
        r"best of (3) \((5) for the overhead\)",
        "scripts/bench_python.py (best_of)",
    ),
    (
        "the POT interval's likelihood-ratio table",
        (
            r"cut covers ~(85)%|by ξ from (−1) to (−0\.1)|count from (30) to (500), with (10,000) replicates per cell"
            r"|the 95% cut is (4\.6)-(5\.4) at ξ = (−1)|^\s*(5\.5) at ξ = (−0\.3) and (30) exceedances, (3\.9) at (500)"
            r" exceedances \(χ²₁: (3\.84)\)"
        ),
        "crates/cosched-core/src/evt/lr_table.rs (LR_XI, LR_SIZES, LR_QUANTILES; examples/gen_lr_table.rs); χ²₁'s 95% point",
    ),
    (
        "the POT thresholds: the earlier stability rule and ForwardStop's settings",
        (
            r"lowest of (8) candidates, (70)th-(96)th|stayed within (0\.1) of\)|at the \*\*(90)th percentile\*\*"
            r"|from the (70)th, ForwardStop|α = (0\.10), measured|against (0\.05), (0\.25) and (0\.5) \("
            r"|table's floor \((0\.001)\)|\((13) candidate fits|with the old (8) candidates from the (70)th"
        ),
        "crates/cosched-core/src/evt (threshold.rs: candidates, ForwardStop's alpha, the guard; ad_table.rs's p-value floor)",
    ),
    (
        "the statistical study's runs: its predictor's training, the 5%-in-total arm, the bound's samples",
        (
            r"fitted on (250) measured|its (250) training assignments|trained on (125), then the predicted best (126)"
            r"|^\s*(4,875): (251) measured|measured over all (50,000)|(30) exceedances; the automatic one estimates"
            r" from (300) samples|candidates are (50), (40) and (32) exceedances"
        ),
        (
            "crates/cosched-lab/src/paper/evt.rs (PlacementPredictor's training set, the half-trains arm, 10 seeds ×"
            " 5,000); crates/cosched-core/src/evt (MIN_EXCEEDANCES 30, the candidates' percentiles)"
        ),
    ),
    (
        "the dependence tests' false-alarm rate and the seeds a difference needs",
        (
            r"^\s*~(0\.2)%; none of the values|gives p ≈ (0)\.|about (10) × \(|against (20,000) simulated samples"
            r"|brute-force profile over (400) endpoints"
        ),
        "crates/cosched-core/src/evt/checks.rs (DEPENDENCE_P = 0.001, two tests); cosched_core::stats::seeds_to_resolve",
    ),
    (
        "the T2 presets' assumed issue demand",
        r"four strands on\s*$|^a pipe ask for (2\.2)-(2\.8) instructions per cycle|solo IPCs \((0\.55)-(0\.7)\) are assumptions",
        "data/workloads (the network applications' solo IPCs 0.55-0.7 [A]) × 4 strands per pipe",
    ),
    (
        "the statistical study's sample sizes and pruning levels",
        (
            r"\bat ((?:\d{1,2}),000)\b|[(;] ?(\d,000): |best of (1,000|100|10)\b|(5,000)-sample|(\d,000) has \""
            r"|of the (5,000)\b|(\d[\d,]*) random$|size from (1,000)\b|(\d+)% pruning|at (\d+)%\s*$|predicted-best (5)%"
            r"|the kept (5)%|paper's (5)% \*\*in total|the top (5)%|predicted top (5)%|at the (5)% level|of the (5,000) measured|at (5)% in total"
        ),
        "crates/cosched-lab/src/paper/evt.rs (5,000 assignments per seed, Fig. 5's sizes, SP-POT's pruning levels)",
    ),
    (
        "SLITS's online FM: its benchmark's setup and the scheduler's replay",
        (
            r"k = 8, (3) active features|\((19) KiB\)|\((400) entries for (400) features\)|at (5)% the FM"
            r"|at (10)% it recovers|plus (4) replayed|a (512)-entry ring"
        ),
        "crates/cosched-core/benches/fm.rs (k = 8, three features per update, 200x200 rank-3 matrices); crates/cosched-policies slits (REPLAY, RING)",
    ),
    (
        "the completions' settings (self-tuning SGD grid, the plain FM reference, the planted matrices)",
        (
            r"k ∈ \{(1), (2), (4), (8)\}|regularisation ∈ \{(0\.003), (0\.03), (0\.3)\}|cells \((20)%, or (5)-fold"
            r"|below (500) cells\)|\(lr (0\.2), patience (20), ≤ (1,000) epochs\)|noise ±(0\.05) on observed"
            r"|\(k (8), lr (0\.02), reg (0\.01), (60)\s*$|^\s*epochs\)|rank (8)\s*$|^\s*and (400) iterations"
            r"|one noisy (20)% hold-out"
        ),
        "crates/cosched-core/src/learn/complete.rs (the grid); python/fm_reference.py and python/bench_fm.py (the reference and the planted matrices)",
    ),
    (
        "SLITS's study: its defaults, Fig. 1's sampling and count, the per-core choice",
        (
            r"default (40); the headline tables keep `--seeds`, default (5)\)|sampling\s*$|^\s*every (100) ns"
            r"|(2\.10)% of C\((32), (16)\) would be (12\.6) million|among (1)-(7) of its own threads"
            r"|rank (8), (400) Gibbs iterations"
        ),
        "crates/cosched-lab/src/paper/slits.rs (seeds 5, ablation seeds 40); SLITS §2.2 (sampling every 100 ns; C(n, 16))",
    ),
    (
        "the SLITS study's settings: WSS's steal interval, the periodic arm, the quantum, FM coverage levels",
        (
            r"every (500) µs|periodic (4) ms|(4) ms preemptions|with (4) replays|\b(0|25|50|75|100)% (?=[+−])"
            r"|from (25)% to (100)%|(25)%'s and (100)%'s|(0)% beats (25)%|periodic (0\.5)/1/1\.5 ms"
        ),
        "crates/cosched-policies (wss steal_interval 500 µs; the 4 ms quantum); crates/cosched-lab/src/paper/slits.rs (coverage levels, the periodic arm)",
    ),
    (
        "the planted matrices' sizes and shares observed",
        r"(\d+)% observed|\bAt (1)% \(|at (\d+)% it|within (10)% of",
        "python/bench_fm.py and crates/cosched-core/benches/fm.rs (2%, 10%, 30% observed; 1%, 5%, 10%)",
    ),
    (
        "the bound's sample sizes, the machines' contexts, the real rounds' claim floor",
        r"E5645's (12)\b|(1,000) where the threads fit|the (1)% `--min-effect`",
        "crates/cosched-lab compare (GAP_SAMPLES 1,000); data/machines/xeon-e5645.toml (12 contexts); cosched run --min-effect (default 1%)",
    ),
    (
        "the SPEC presets' phases, CPI split and MLP classes",
        (
            r"mcf (0\.45), soplex (1\.33), gcc (1\.43)|mcf's phases run at IPC (0\.36), (0\.45) and (0\.75)"
            r"|the (90)% cap|at most (90)% of the solo CPI|weights (0\.4)/(0\.35)/(0\.25), factors (1)\+a, (1), (1)−(1\.6)a"
            r" with a = (0\.1)-(0\.3)|repeats (1)-(3) times in the preset's (5) s|last (0\.3)-(2\.6) s alone|for its (100) s runs"
            r"|Xeon Gold (5120)|, (90) ns, |xalancbmk\) (2), default (4)|streaming codes (8), the EFS synthetic benchmark (10)"
            r"|has (10) line-fill|equal to (1)\b|every (40) quanta"
        ),
        "scripts/gen-spec-presets.py (shapes, weights, factors [A]; the measurement machine [C]); data/workloads (published IPCs [P]); crates/cosched-sim model/phase.rs (the 90% cap, MLP classes [A])",
    ),
    (
        "SMT, L1 ports, exchange volumes and the presets that exchange",
        (
            r"\((0\.5) on the Intel presets|about (20)–(30)% throughput|(0) on the UltraSPARC|→ (0\.5)/(2)/(5) accesses"
            r"|\((?:stencil|all-to-all), (\d+)\)|pipeline, (\d+)\)|\((\d)-stage|a (\d)-stage|^only, (8)\)|summing to (1)\b"
        ),
        "data/machines (core.smt_penalty [A]); crates/cosched-sim contention (κ); scripts/gen-parsec-presets.py (Bienia et al.'s exchange classes [A])",
    ),
    (
        "the memory bus: the MLC curve's shape, the EFS queueing model, the DDR3 device",
        (
            r"^~(10)% of idle|~(1\.3)× at (85)%, (2\.2)× at the maximum|`L\(ρ\) = (62) \+|MLP (10)\b|DDR3-1333H (9)-(9)-(9)"
            r"|tCK (1\.5) ns, CL = tRCD = tRP = (13\.5) ns, tRAS (36) ns, tRC (49\.5) ns, tRRD (6) ns, tFAW (30) ns"
            r"|tRTP (7\.5) ns, tRFC (260) ns for (4) Gb devices, tREFI (7\.8) µs|bursts of (4) cycles|bus's (166\.7) M lines/s"
            r"|hit less than (5)%|\((266\.7) M activates/s; one rank: (133\.3) M\)|allow (266\.7) M activates/s, above the bus's (150) M"
            r"|tRP \+ tRCD \((27) ns\)|within\s*$|^\s*(10)% and hits its open row more than (90)%"
            r"|inside the (15)% tolerance|with (5) exchange accesses|\((5) accesses per kilo-instruction\)|% with (50) \("
        ),
        "workload-sources.md §4 (the E5-2680v3 MLC curve [C]); EFS Eqs. 6-8 (62 ns, MLP 10, μ 150 M/s); Micron MT41J512M8 -15E and JEDEC JESD79-3F (data/machines/i5-2500.toml [memory.dram])",
    ),
    (
        "the solver's cache, the switch costs, the refill clamp, the scheduler's tick and balancing",
        (
            r"up to (65,536) per run and at most (4\.2) M runners|\((3) µs on the Xeons,|^(2) µs on the i5"
            r"|bounded to \[(0\.05), (0\.99)\]|share of (1/16) of the slices|`busy_factor`, (16)|every (64) ms on two contexts"
            r"|within (10)% of an even share|sampled every (100) ns|Σ (1)/slowdown"
        ),
        "crates/cosched-sim (solver cache limits; refill share bounds [A]); data/machines costs (context_switch_us [A], scheduler_off_grid); kernel/sched/topology.c (busy_factor)",
    ),
    (
        "the host's tenants probe and run-to-run variation's sizes",
        (
            r"in (5)-ms slices, stopped between them for (2), (8)|^\s*or (32) ms while|between (2)% and (98)%"
            r"|in a (2)-ms pause and nearly half in (8) and (32) ms|λ at (0)\b|factor of mean (1)\b|σ (\d+(?:\.\d+)?)%"
            r"|^\s*mean (1)\. The σ|\(≈(1)% on|default to (1)\)"
        ),
        "crates/cosched-linux absence probe (slices and pauses); crates/cosched-sim/src/variation.rs (the σ [A])",
    ),
    (
        "the check points' rules and the row localities of the DRAM model",
        (
            r"tolerance (15)%, chosen after seeing them: at (10)% its|\((25)% of the published effect|periodic (0\.5) and (1) ms arms"
            r"|\(default\s*$|^\s*(0\.5); the EFS synthetic benchmark (0\.9)|argument for (0\.9)|reach (90)% of the bus"
            r"|every value is (0)|`max\((0), parallel / serial −|^\s*(1)\)`|between (0\.1) and (2)\)|min\((1), L2 / footprint\)"
            r"|kernel (6\.18), `CONFIG_HZ=(250)`|The tick \((4) ms, `HZ_(250)`|solo utilisation\s*$|^\s*from (0\.1) to (0\.95)"
        ),
        "data/machines/*.toml [[check]] tolerances; scripts/gen-rda-presets.py and data/workloads (row_locality [A]); crates/cosched-sim (the secant clamp)",
    ),
    (
        "the inputs' limits: adversarial values tried, time knobs, the event budget, progress lines, messages",
        (
            r"1e-300, (0), (−1), NaN|\b(1) µs–(1) h|\b(5)·10⁴|every (3) s of a longer run|after (64) × \(threads \+ contexts\) \+ (10,000)"
            r"|stops at line (1)\)|cut to (80) characters|below (10) observed cells"
        ),
        "crates/cosched-lab/src/limits.rs and crates/cosched-sim engine (budgets, the same-instant guard); cosched-cli progress (3 s); learn/complete.rs (10 cells)",
    ),
    (
        "the command line's exit status for bad input",
        r"exit status (2)|^\s*and status (2)\.",
        "crates/cosched-cli/src/lib.rs (main_with): a refused input exits 2 (docs/formats.md)",
    ),
    (
        "RDA Table 2's declaration per water-nsquared thread",
        r"declares (3\.6) MB",
        "RDA Table 2; data/workloads/rda-water-nsq.toml",
    ),
    (
        "the exit statuses every command uses (docs/formats.md, Exit status)",
        r"^\| (0|1|2|124|130|143) \||`timeout\((1)\)`|\((\d+) for Ctrl-C",
        "crates/cosched-cli/src/lib.rs (Failure); crates/cosched-linux/src/runtime/stop.rs (StopRecord::exit_status)",
    ),
    (
        "the progress heartbeat and the compare table's width (docs/formats.md, README)",
        (
            r"at least every\s+(8) s, piped|^(8) s, piped or not|`COSCHED_HEARTBEAT_S` \((0\.5) to (8)\)"
            r"|still running \((12\.0) s\)|in (160) columns"
        ),
        "crates/cosched-cli/src/progress.rs: HEARTBEAT, HEARTBEAT_VAR; crates/cosched-cli/src/compare.rs: WIDTH",
    ),
]
