//! The access patterns of the random family of host-check mixes
//! (`data/mixes/host-random/family.toml`) beside `pointer-chase`,
//! `stream` and `compute`: independent random loads (memory-level
//! parallelism), random read-modify-writes (every line written back), and a
//! program whose phases alternate streaming and computing.

use super::drive::{drive, Opts};
use std::hint::black_box;

/// The next of a xorshift64 sequence (never 0 from a non-zero state).
#[inline]
fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// Cache lines of `mb` MiB (at least 2), as 8-word rows.
fn lines_of(mb: f64) -> usize {
    ((mb * 1024.0 * 1024.0 / 64.0) as usize).max(2)
}

/// `random-access`: loads of one word from random lines of `--wss-mb` MiB,
/// the next address independent of the loaded value, so that loads overlap
/// (the core's memory-level parallelism).
pub fn random_access(o: &Opts) -> (u64, f64) {
    let n = lines_of(o.wss_mb);
    let a: Vec<u64> = (0..(n * 8) as u64).collect();
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    drive(o, 10_000, || {
        let mut s = 0u64;
        for _ in 0..10_000 {
            let i = (xorshift(&mut x) % n as u64) as usize * 8;
            s = s.wrapping_add(a[i]);
        }
        s
    })
}

/// `random-update`: a read-modify-write of one word in a random line of
/// `--wss-mb` MiB per operation (GUPS-like): every line it touches is written back.
pub fn random_update(o: &Opts) -> (u64, f64) {
    let n = lines_of(o.wss_mb);
    let mut a: Vec<u64> = vec![1; n * 8];
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let r = drive(o, 10_000, || {
        for _ in 0..10_000 {
            let v = xorshift(&mut x);
            let i = (v % n as u64) as usize * 8;
            a[i] = a[i].wrapping_add(v);
        }
        a[0]
    });
    black_box(&a);
    r
}

/// `phases`: `--phase-mops P` million lines of a stream over `--wss-mb` MiB,
/// then `--compute-mops C` million operations of `compute`, and again, until
/// `--mops` million operations of both kinds are done (or `--seconds`): a
/// program whose rate and memory traffic change over its run.
pub fn phases(o: &Opts) -> (u64, f64) {
    let n = lines_of(o.wss_mb) * 8;
    let a: Vec<u64> = (0..n as u64).collect();
    let (mem, cpu) = ((o.phase_mops * 1e6) as u64, (o.compute_mops * 1e6) as u64);
    let period = (mem + cpu).max(1);
    let (mut done, mut i, mut v) = (0u64, 0usize, 1u64);
    const BATCH: u64 = 4096;
    drive(o, BATCH, || {
        if done % period < mem {
            let mut s = 0u64;
            for k in (0..BATCH as usize * 8).step_by(8) {
                s = s.wrapping_add(a[(i + k) % n]);
            }
            i = (i + BATCH as usize * 8) % n;
            v ^= s;
        } else {
            for k in 0..BATCH {
                v = v.wrapping_mul(6364136223846793005).wrapping_add(k) ^ (v >> 29);
            }
        }
        done += BATCH;
        v
    })
}
