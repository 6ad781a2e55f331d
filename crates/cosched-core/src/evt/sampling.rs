//! Random sampling of thread assignments (§6): the probability that a sample
//! of n random assignments contains one from the best p% is
//! `P(A) = 1 − (1 − p/100)^n`; the sample size for a target probability
//! follows by inverting it.

/// `P(A) = 1 − (1 − p/100)^n`.
pub fn prob_in_top(p_percent: f64, n: u64) -> f64 {
    1.0 - (1.0 - p_percent / 100.0).powf(n as f64)
}

/// The smallest n with `P(A) ≥ prob`.
pub fn sample_size(p_percent: f64, prob: f64) -> u64 {
    ((1.0 - prob).ln() / (1.0 - p_percent / 100.0).ln()).ceil() as u64
}

/// `n! / (n − k)!` as a decimal string (exact; thread placements onto contexts).
pub fn falling_factorial(n: u64, k: u64) -> String {
    let mut digits: Vec<u32> = vec![1]; // little-endian base 1e9
    for f in (n - k.min(n) + 1)..=n {
        let mut carry: u64 = 0;
        for d in digits.iter_mut() {
            let v = *d as u64 * f + carry;
            *d = (v % 1_000_000_000) as u32;
            carry = v / 1_000_000_000;
        }
        while carry > 0 {
            digits.push((carry % 1_000_000_000) as u32);
            carry /= 1_000_000_000;
        }
    }
    let mut s = digits.last().expect("nonempty").to_string();
    for d in digits.iter().rev().skip(1) {
        s += &format!("{d:09}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probabilities_and_sizes() {
        assert!((prob_in_top(1.0, 1000) - (1.0 - 0.99f64.powi(1000))).abs() < 1e-12);
        assert_eq!(sample_size(1.0, 0.99), 459);
        assert_eq!(falling_factorial(5, 2), "20");
        assert_eq!(falling_factorial(20, 20), "2432902008176640000");
    }

    /// Fig. 8's closed form against drawing samples: the share of 20,000
    /// samples of n uniform ranks holding one in the top p% matches P(A).
    #[test]
    fn prob_in_top_matches_simulated_draws() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
        for (p, n) in [(1.0, 50u64), (5.0, 20), (10.0, 5)] {
            let trials = 20_000;
            let hits = (0..trials).filter(|_| (0..n).any(|_| rng.gen::<f64>() < p / 100.0)).count();
            let share = hits as f64 / trials as f64;
            let want = prob_in_top(p, n);
            // 4 standard errors of a binomial share.
            assert!(
                (share - want).abs() < 4.0 * (want * (1.0 - want) / trials as f64).sqrt(),
                "{p}% n={n}: {share} vs {want}"
            );
        }
    }
}
