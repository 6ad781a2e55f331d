//! Run-to-run variation of the ground truth: a real machine
//! never runs the same program twice at the same speed, so each simulated
//! run draws its own ground truth from the seed, and repeated runs give an
//! interval as repeated runs on hardware do.
//!
//! What varies, and by how much at `--noise 1` (lognormal factors of mean 1;
//! `--noise x` multiplies every σ by x, 0 gives the exact model):
//!
//! | what | per | σ | phenomenon |
//! |---|---|---|---|
//! | core-bound CPI | job instance | [`CORE_SIGMA`] 1% | code and stack layout, alignment (Mytkowicz et al., ASPLOS 2009; Curtsinger & Berger, STABILIZER, ASPLOS 2013) |
//! | LLC miss-rate curve | job instance | [`MISS_SIGMA`] 2% | physical page placement: LLC set conflicts and DRAM bank mapping change with the frames a process gets (Kessler & Hill, TOCS 1992; Oliveira et al., REPRODUCE 2014) |
//! | sustained bus bandwidth | run | [`BUS_SIGMA`] 1% | refresh collisions and controller scheduling |
//! | work of each thread | thread | [`OS_SIGMA`] 0.5% | OS noise: timer ticks, daemons, interrupts (Petrini et al., SC 2003; Ferreira et al., SC 2008) |
//!
//! The σ values are **[A]**: the studies above establish the phenomena and that
//! their typical (not worst-case) effect on SPEC-class programs is of order
//! 1%; none gives a per-component σ for our machines. `cosched validate`
//! reports what they make of the runs' spread.
//!
//! A job's solo reference is run on the same draws as the mix (like its load
//! imbalance), so a slowdown measures contention, not the luck of the draw.

use cosched_machine::MachineSpec;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// σ of the core-bound CPI factor at `--noise 1`.
pub const CORE_SIGMA: f64 = 0.01;
/// σ of the miss-rate factor at `--noise 1`.
pub const MISS_SIGMA: f64 = 0.02;
/// σ of the bus-bandwidth factor at `--noise 1`.
pub const BUS_SIGMA: f64 = 0.01;
/// σ of each thread's work factor at `--noise 1`.
pub const OS_SIGMA: f64 = 0.005;
/// Largest accepted `--noise` (20× the published magnitudes).
pub const MAX_NOISE: f64 = 20.0;

/// A run-to-run variation level outside 0 to [`MAX_NOISE`].
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error("must be from 0 to {MAX_NOISE}, got {}", cosched_core::num::shortest(*.0))]
pub struct NoiseError(pub f64);

/// `Ok` when `noise` is a level this module accepts (0 to [`MAX_NOISE`]).
pub fn check_noise(noise: f64) -> Result<(), NoiseError> {
    if noise.is_finite() && (0.0..=MAX_NOISE).contains(&noise) {
        Ok(())
    } else {
        Err(NoiseError(noise))
    }
}

/// The seed of one job instance's RNG, so solo runs draw what the mix drew.
pub(crate) fn instance_seed(seed: u64, job: usize, instance: u32) -> u64 {
    let mut z = seed ^ ((job as u64) << 32 | instance as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Keeps variation draws apart from the load-imbalance draws of the same seed.
const SALT: u64 = 0x005E_ED0F_7A71_A710;

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut ChaCha8Rng) -> f64 {
    let u1: f64 = rng.gen_range(f64::EPSILON..1.0);
    let u2: f64 = rng.gen();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// A lognormal factor of mean 1 and log-σ `sigma`.
fn factor(rng: &mut ChaCha8Rng, sigma: f64) -> f64 {
    (sigma * normal(rng) - 0.5 * sigma * sigma).exp()
}

/// One job instance's draw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Draw {
    /// Core-bound CPI factor.
    pub core: f64,
    /// Miss-rate factor.
    pub miss: f64,
}

impl Draw {
    /// The draw of instance `inst` of job `job` in the run seeded `seed`.
    pub fn instance(noise: f64, seed: u64, job: usize, inst: u32) -> Draw {
        let mut rng = ChaCha8Rng::seed_from_u64(instance_seed(seed ^ SALT, job, inst));
        Draw { core: factor(&mut rng, noise * CORE_SIGMA), miss: factor(&mut rng, noise * MISS_SIGMA) }
    }
}

/// Per-thread OS-noise factors of one job instance.
pub struct OsNoise {
    rng: ChaCha8Rng,
    sigma: f64,
}

impl OsNoise {
    /// The stream of instance `inst` of job `job`.
    pub fn new(noise: f64, seed: u64, job: usize, inst: u32) -> OsNoise {
        let s = instance_seed(seed ^ SALT.rotate_left(17), job, inst);
        OsNoise { rng: ChaCha8Rng::seed_from_u64(s), sigma: noise * OS_SIGMA }
    }

    /// The next thread's work factor.
    pub fn next_factor(&mut self) -> f64 {
        factor(&mut self.rng, self.sigma)
    }
}

/// The machine as the run seeded `seed` finds it: sustained bus bandwidth × a
/// lognormal factor (σ = `noise` × [`BUS_SIGMA`]).
pub fn machine(m: &MachineSpec, noise: f64, seed: u64) -> MachineSpec {
    let mut out = m.clone();
    if noise > 0.0 {
        let mut rng = ChaCha8Rng::seed_from_u64(instance_seed(seed ^ SALT.rotate_left(31), usize::MAX, u32::MAX));
        out.memory.bandwidth_gbs *= factor(&mut rng, noise * BUS_SIGMA);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factors_have_mean_one_and_the_stated_spread() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| factor(&mut rng, 0.02)).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
        assert!((mean - 1.0).abs() < 2e-4, "{mean}");
        assert!((sd - 0.02).abs() < 5e-4, "{sd}");
    }

    #[test]
    fn draws_are_seeded_and_zero_noise_is_exact() {
        assert_eq!(Draw::instance(1.0, 3, 0, 0), Draw::instance(1.0, 3, 0, 0));
        assert_ne!(Draw::instance(1.0, 3, 0, 0), Draw::instance(1.0, 4, 0, 0));
        assert_ne!(Draw::instance(1.0, 3, 0, 0), Draw::instance(1.0, 3, 0, 1));
        assert_eq!(Draw::instance(0.0, 3, 0, 0), Draw { core: 1.0, miss: 1.0 });
        let m = cosched_machine::presets::machine("i5-2500").unwrap();
        assert_eq!(machine(&m, 0.0, 9).memory.bandwidth_gbs, m.memory.bandwidth_gbs);
        assert_ne!(machine(&m, 1.0, 9).memory.bandwidth_gbs, m.memory.bandwidth_gbs);
    }
}
