//! A cycle-level model of one DRAM channel under read streams: open-page banks, an FR-FCFS
//! controller (row hits first, then the oldest request), activate limits (tRRD, tFAW, tRC),
//! precharge limits (tRAS, tRTP), one command per cycle, the data bus's bursts with a rank
//! switch gap, and per-rank refresh. Its only use is to measure what concurrent streams cost each
//! other at the DRAM (the memory-bus model's row-conflict table and the EFS Table 1 check); it is
//! not part of the event engine.

use cosched_machine::dram::Device;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// How the lines behind the channel are organised.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Organisation {
    /// Ranks on the channel.
    pub ranks: u32,
    /// Banks per rank.
    pub banks: u32,
    /// Lines (64 B) in one row of a rank (8 KB rows: 128).
    pub row_lines: u32,
}

/// One read stream: how many lines it reads, how many it keeps outstanding, and the share of its
/// accesses that continue sequentially from the last one (1: a sequential stream; 0: uniformly
/// random lines of its gigabyte).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stream {
    /// Share of accesses to the next line, 0-1.
    pub locality: f64,
    /// Lines the stream reads.
    pub lines: u64,
    /// Requests it keeps outstanding (its memory-level parallelism).
    pub mlp: u32,
}

/// What a run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// Cycles until the last stream's last line arrived.
    pub cycles: u64,
    /// Lines read.
    pub lines: u64,
    /// Reads that found their row open.
    pub hits: u64,
    /// Reads whose bank had no row open (an activate).
    pub misses: u64,
    /// Reads whose bank had another row open (a precharge and an activate).
    pub conflicts: u64,
    /// Cycle at which each stream's last line arrived.
    pub finish: Vec<u64>,
}

impl Outcome {
    /// Share of reads that found their row open.
    pub fn row_hit_rate(&self) -> f64 {
        self.hits as f64 / self.lines.max(1) as f64
    }

    /// Lines per second delivered.
    pub fn lines_per_s(&self, d: &Device) -> f64 {
        self.lines as f64 / (self.cycles as f64 * d.tck_ns * 1e-9)
    }
}

/// A queued read.
struct Request {
    stream: usize,
    rank: usize,
    bank: usize,
    row: u64,
    /// 0: hit so far; 1: needed an activate; 2: needed a precharge first.
    class: u8,
}

#[derive(Clone, Copy)]
struct Bank {
    open: Option<u64>,
    act_at: i64,
    ready_at: i64,
    last_rd: i64,
}

struct Rank {
    acts: [i64; 4],
    last_act: i64,
    refresh_due: i64,
    refreshing_until: i64,
    draining: bool,
}

struct Source {
    rng: ChaCha8Rng,
    next: u64,
    base: u64,
    left: u64,
    outstanding: u32,
    done: u64,
}

/// Lines in each stream's own region (1 GiB), so streams never share a row.
const REGION_LINES: u64 = 1 << 24;
const NEVER: i64 = -1_000_000;

/// Run `streams` together on one channel of `org` under the timings of `d`; `seed` draws the
/// streams' start lines and their random accesses.
pub fn simulate(d: &Device, org: &Organisation, streams: &[Stream], seed: u64) -> Outcome {
    let (nr, nb) = (org.ranks.max(1) as usize, org.banks.max(1) as usize);
    let row_lines = org.row_lines.max(1) as u64;
    let mut banks = vec![Bank { open: None, act_at: NEVER, ready_at: 0, last_rd: NEVER }; nr * nb];
    let mut ranks: Vec<Rank> = (0..nr)
        .map(|r| Rank {
            acts: [NEVER; 4],
            last_act: NEVER,
            refresh_due: (d.trefi as i64 * (r as i64 + 1)) / nr as i64,
            refreshing_until: 0,
            draining: false,
        })
        .collect();
    let mut sources: Vec<Source> = streams
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(i as u64));
            let base = i as u64 * REGION_LINES;
            let start = rng.gen_range(0..REGION_LINES / row_lines) * row_lines;
            Source { rng, next: start, base, left: s.lines, outstanding: 0, done: 0 }
        })
        .collect();
    let mut queue: Vec<Request> = Vec::new();
    let mut inflight: Vec<(i64, usize)> = Vec::new();
    let mut out = Outcome { cycles: 0, lines: 0, hits: 0, misses: 0, conflicts: 0, finish: vec![0; streams.len()] };
    let (mut bus_free, mut bus_rank) = (0i64, usize::MAX);
    let total: u64 = streams.iter().map(|s| s.lines).sum();
    let locate = |line: u64| {
        let row_index = line / row_lines;
        let bank = (row_index % nb as u64) as usize;
        let rank = ((row_index / nb as u64) % nr as u64) as usize;
        (rank, rank * nb + bank, row_index / (nb * nr) as u64)
    };
    let issue = |src: &mut Source, i: usize, queue: &mut Vec<Request>| {
        while src.left > 0 && src.outstanding < streams[i].mlp.max(1) {
            let offset = src.next;
            src.next = if src.rng.gen::<f64>() < streams[i].locality {
                (offset + 1) % REGION_LINES
            } else {
                src.rng.gen_range(0..REGION_LINES)
            };
            let (rank, bank, row) = locate(src.base + offset);
            queue.push(Request { stream: i, rank, bank, row, class: 0 });
            src.left -= 1;
            src.outstanding += 1;
        }
    };
    for (i, src) in sources.iter_mut().enumerate() {
        issue(src, i, &mut queue);
    }
    let mut t: i64 = 0;
    while out.lines < total {
        // Lines that arrived.
        let mut k = 0;
        while k < inflight.len() {
            if inflight[k].0 <= t {
                let (_, s) = inflight.swap_remove(k);
                let src = &mut sources[s];
                src.outstanding -= 1;
                src.done += 1;
                out.lines += 1;
                if src.done == streams[s].lines {
                    out.finish[s] = t as u64;
                }
                issue(src, s, &mut queue);
            } else {
                k += 1;
            }
        }
        // Refresh: a due rank stops taking activates, closes its banks, then refreshes.
        for (r, rank) in ranks.iter_mut().enumerate() {
            if !rank.draining && t >= rank.refresh_due {
                rank.draining = true;
            }
            if rank.draining {
                let bs = &banks[r * nb..(r + 1) * nb];
                if bs.iter().all(|b| b.open.is_none() && t >= b.ready_at) {
                    rank.draining = false;
                    rank.refreshing_until = t + d.trfc as i64;
                    rank.refresh_due += d.trefi as i64;
                }
            }
        }
        let busy = |rank: &Rank| rank.draining || t < rank.refreshing_until;
        let can_pre = |b: &Bank| b.open.is_some() && t >= b.act_at + d.tras as i64 && t >= b.last_rd + d.trtp as i64;
        let mut issued = false;
        // A draining rank's open banks are closed first.
        for (r, rank) in ranks.iter().enumerate() {
            if issued || !rank.draining {
                continue;
            }
            if let Some(b) = banks[r * nb..(r + 1) * nb].iter_mut().find(|b| can_pre(b)) {
                b.open = None;
                b.ready_at = t + d.trp as i64;
                issued = true;
            }
        }
        // Row hits first, oldest first.
        if !issued {
            if let Some(q) = queue.iter().position(|q| {
                let b = &banks[q.bank];
                let gap = if bus_rank != q.rank && bus_rank != usize::MAX { d.trtrs as i64 } else { 0 };
                b.open == Some(q.row)
                    && !busy(&ranks[q.rank])
                    && t >= b.act_at + d.trcd as i64
                    && t + d.cl as i64 >= bus_free + gap
            }) {
                let q = queue.remove(q);
                let start = t + d.cl as i64;
                bus_free = start + d.burst as i64;
                bus_rank = q.rank;
                banks[q.bank].last_rd = t;
                inflight.push((bus_free, q.stream));
                match q.class {
                    0 => out.hits += 1,
                    1 => out.misses += 1,
                    _ => out.conflicts += 1,
                }
                issued = true;
            }
        }
        // Then the oldest request whose bank can take its next command.
        if !issued {
            for i in 0..queue.len() {
                let (bank, rank, row) = (queue[i].bank, queue[i].rank, queue[i].row);
                if busy(&ranks[rank]) {
                    continue;
                }
                let b = banks[bank];
                let rk = &ranks[rank];
                let faw_ok = rk.acts.iter().filter(|&&a| t < a + d.tfaw as i64).count() < 4;
                let act_ok =
                    t >= b.ready_at && t >= b.act_at + d.trc as i64 && t >= rk.last_act + d.trrd as i64 && faw_ok;
                match b.open {
                    // FR-FCFS: no precharge while a queued read still hits the open row.
                    Some(open)
                        if open != row && can_pre(&b) && !queue.iter().any(|o| o.bank == bank && o.row == open) =>
                    {
                        banks[bank].open = None;
                        banks[bank].ready_at = t + d.trp as i64;
                        queue[i].class = 2;
                        issued = true;
                    }
                    None if act_ok => {
                        banks[bank].open = Some(row);
                        banks[bank].act_at = t;
                        let rk = &mut ranks[rank];
                        rk.last_act = t;
                        let oldest = (0..4).min_by_key(|&j| rk.acts[j]).unwrap_or(0);
                        rk.acts[oldest] = t;
                        queue[i].class = queue[i].class.max(1);
                        issued = true;
                    }
                    _ => {}
                }
                if issued {
                    break;
                }
            }
        }
        t += 1;
    }
    out.cycles = out.finish.iter().copied().max().unwrap_or(0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosched_machine::dram::DDR3_1333H;

    const ORG: Organisation = Organisation { ranks: 2, banks: 8, row_lines: 128 };

    fn one(locality: f64, lines: u64) -> Outcome {
        simulate(&DDR3_1333H, &ORG, &[Stream { locality, lines, mlp: 10 }], 1)
    }

    #[test]
    fn one_sequential_stream_reaches_the_timing_limit_and_hits_its_rows() {
        let o = one(1.0, 20_000);
        let limit = DDR3_1333H.timing_limit_lines_per_s();
        let got = o.lines_per_s(&DDR3_1333H);
        assert!(got <= DDR3_1333H.peak_lines_per_s() * 1.0001, "{got} above the data bus's peak");
        assert!((got / limit - 1.0).abs() < 0.10, "{got} lines/s vs timing limit {limit}");
        assert!(o.row_hit_rate() > 0.90, "row-hit rate {}", o.row_hit_rate());
        assert_eq!(o.hits + o.misses + o.conflicts, o.lines);
    }

    #[test]
    fn random_lines_miss_their_rows_and_obey_tfaw() {
        let o = one(0.0, 5_000);
        assert!(o.row_hit_rate() < 0.05, "row-hit rate {}", o.row_hit_rate());
        // Every read needs an activate: no more reads than tFAW lets two ranks activate.
        assert!(o.lines_per_s(&DDR3_1333H) <= DDR3_1333H.activates_per_s(2) * 1.0001);
    }

    #[test]
    fn same_seed_same_outcome() {
        let s = [Stream { locality: 0.9, lines: 2_000, mlp: 10 }; 3];
        assert_eq!(simulate(&DDR3_1333H, &ORG, &s, 7), simulate(&DDR3_1333H, &ORG, &s, 7));
    }

    #[test]
    fn a_row_switch_costs_its_precharge_and_activate_when_nothing_hides_it() {
        // One bank, one outstanding read, alternating rows: each read pays tRP + tRCD + CL +
        // burst (or tRC, whichever is longer, between activates).
        let org = Organisation { ranks: 1, banks: 1, row_lines: 128 };
        let o = simulate(&DDR3_1333H, &org, &[Stream { locality: 0.0, lines: 200, mlp: 1 }], 3);
        let d = DDR3_1333H;
        let per_read = (d.trp + d.trcd + d.cl + d.burst).max(d.trc) as f64;
        let got = o.cycles as f64 / o.lines as f64;
        assert!(got >= per_read * 0.95 && got <= per_read * 1.6, "{got} cycles per read vs {per_read}");
    }
}
