//! Hardware-counter values as the papers read them (SLITS §3.2, EFS §3.2,
//! Perf&Fair §3): cumulative, like a `perf_event` read.

use serde::Serialize;

/// Cumulative event counts of one thread or one shared domain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Counters {
    /// Retired instructions.
    pub instructions: f64,
    /// Unhalted core cycles while running.
    pub cycles: f64,
    /// Last-level-cache accesses.
    pub llc_accesses: f64,
    /// Last-level-cache misses.
    pub llc_misses: f64,
    /// Main-memory reads (cache lines).
    pub mem_reads: f64,
    /// Main-memory writes (cache lines written back).
    pub mem_writes: f64,
    /// L1 data-cache accesses.
    pub l1_accesses: f64,
    /// L1 data-cache misses.
    pub l1_misses: f64,
}

impl Counters {
    /// Field-wise difference `self - earlier` (a delta over an interval).
    pub fn since(&self, earlier: &Counters) -> Counters {
        Counters {
            instructions: self.instructions - earlier.instructions,
            cycles: self.cycles - earlier.cycles,
            llc_accesses: self.llc_accesses - earlier.llc_accesses,
            llc_misses: self.llc_misses - earlier.llc_misses,
            mem_reads: self.mem_reads - earlier.mem_reads,
            mem_writes: self.mem_writes - earlier.mem_writes,
            l1_accesses: self.l1_accesses - earlier.l1_accesses,
            l1_misses: self.l1_misses - earlier.l1_misses,
        }
    }

    /// Field-wise sum.
    pub fn add(&mut self, o: &Counters) {
        self.instructions += o.instructions;
        self.cycles += o.cycles;
        self.llc_accesses += o.llc_accesses;
        self.llc_misses += o.llc_misses;
        self.mem_reads += o.mem_reads;
        self.mem_writes += o.mem_writes;
        self.l1_accesses += o.l1_accesses;
        self.l1_misses += o.l1_misses;
    }

    /// Field-wise scaling (used to advance a rate over a time interval).
    pub fn scaled(&self, k: f64) -> Counters {
        Counters {
            instructions: self.instructions * k,
            cycles: self.cycles * k,
            llc_accesses: self.llc_accesses * k,
            llc_misses: self.llc_misses * k,
            mem_reads: self.mem_reads * k,
            mem_writes: self.mem_writes * k,
            l1_accesses: self.l1_accesses * k,
            l1_misses: self.l1_misses * k,
        }
    }

    /// Instructions per cycle over these counts (0 when no cycles).
    pub fn ipc(&self) -> f64 {
        if self.cycles > 0.0 {
            self.instructions / self.cycles
        } else {
            0.0
        }
    }

    /// LLC misses per kilo-instruction (0 when no instructions).
    pub fn llc_mpki(&self) -> f64 {
        if self.instructions > 0.0 {
            self.llc_misses * 1000.0 / self.instructions
        } else {
            0.0
        }
    }
}
