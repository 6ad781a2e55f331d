//! What concurrent streams cost each other at the DRAM, measured on the cycle-level controller:
//! the parallel-over-serial time of `n` streams (EFS Table 1's ratio, at the DRAM alone) and the
//! row-conflict table the memory-bus model reads (`[memory.dram] stretch`).

use super::controller::{simulate, Organisation, Stream};
use cosched_machine::dram::Device;

/// Lines each stream reads in a table run.
pub const LINES: u64 = 20_000;
/// Requests a stream keeps outstanding in a table run: the EFS synthetic benchmark's MLP.
pub const MLP: u32 = 10;
/// Decimals the table keeps (a preset's TOML holds it at this precision).
pub const DECIMALS: i32 = 4;

/// Time of `n` streams of `locality` reading `lines` each together, over the sum of their times
/// each alone (1: they cost each other nothing at the DRAM).
pub fn parallel_over_serial(d: &Device, org: &Organisation, n: u32, locality: f64, lines: u64, seed: u64) -> f64 {
    let s = Stream { locality, lines, mlp: MLP };
    let together = simulate(d, org, &vec![s; n as usize], seed).cycles as f64;
    // Stream i alone draws what it draws together: the same seed, one stream at index 0 would
    // draw stream 0's lines, so each is run as the i-th of a set where only it reads.
    let alone: f64 = (0..n as usize)
        .map(|i| {
            let mut set = vec![Stream { lines: 0, ..s }; n as usize];
            set[i].lines = lines;
            simulate(d, org, &set, seed).cycles as f64
        })
        .sum();
    together / alone
}

/// The memory-bus model's row-conflict table: for each row locality (rows) and number of
/// concurrent streams (columns), the extra bus time per line that the streams cost each other,
/// `max(0, parallel/serial − 1)`, rounded to [`DECIMALS`]. Streams that cannot fill the bus alone
/// (random lines, few outstanding) run faster together: that gain is the bus model's queueing,
/// not a conflict, so it is 0 here.
pub fn stretch_table(d: &Device, org: &Organisation, streams: &[u32], localities: &[f64], seed: u64) -> Vec<Vec<f64>> {
    let scale = 10f64.powi(DECIMALS);
    localities
        .iter()
        .map(|&h| {
            streams
                .iter()
                .map(|&n| {
                    let extra = if n <= 1 { 0.0 } else { parallel_over_serial(d, org, n, h, LINES, seed) - 1.0 };
                    (extra.max(0.0) * scale).round() / scale
                })
                .collect()
        })
        .collect()
}

/// Bilinear reading of a stretch table at `n` effective streams and row locality `h` (both
/// clamped to the table's range).
pub fn read(streams: &[f64], localities: &[f64], stretch: &[Vec<f64>], n: f64, h: f64) -> f64 {
    let at = |axis: &[f64], x: f64| -> (usize, usize, f64) {
        let last = axis.len() - 1;
        if x <= axis[0] {
            return (0, 0, 0.0);
        }
        if x >= axis[last] {
            return (last, last, 0.0);
        }
        let j = axis.iter().position(|&a| a > x).unwrap_or(last);
        let (lo, hi) = (axis[j - 1], axis[j]);
        (j - 1, j, (x - lo) / (hi - lo))
    };
    let (r0, r1, fr) = at(localities, h);
    let (c0, c1, fc) = at(streams, n);
    let row = |r: usize| stretch[r][c0] + fc * (stretch[r][c1] - stretch[r][c0]);
    row(r0) + fr * (row(r1) - row(r0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosched_machine::dram::DDR3_1333H;

    #[test]
    fn reading_the_table_interpolates_and_clamps() {
        let (n, h) = ([1.0, 2.0, 4.0], [0.0, 1.0]);
        let t = vec![vec![0.0, 0.0, 0.0], vec![0.0, 0.02, 0.06]];
        assert_eq!(read(&n, &h, &t, 1.0, 1.0), 0.0);
        assert!((read(&n, &h, &t, 3.0, 1.0) - 0.04).abs() < 1e-12);
        assert!((read(&n, &h, &t, 3.0, 0.5) - 0.02).abs() < 1e-12);
        assert!((read(&n, &h, &t, 9.0, 2.0) - 0.06).abs() < 1e-12);
        assert_eq!(read(&n, &h, &t, 0.5, -1.0), 0.0);
    }

    #[test]
    fn one_stream_costs_itself_nothing() {
        let org = Organisation { ranks: 2, banks: 8, row_lines: 128 };
        let r = parallel_over_serial(&DDR3_1333H, &org, 1, 0.9, 2_000, 1);
        assert!((r - 1.0).abs() < 1e-12, "{r}");
    }
}
