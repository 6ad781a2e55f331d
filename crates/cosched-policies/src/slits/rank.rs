//! Ranking waiting threads with the factorization machine (SLITS §4.3).
//!
//! Features of one TIM entry (§4.2): one-hot running thread `r`, one-hot
//! waiting thread `n + w`, and the auxiliary feature of the core the waiting
//! thread would run on, `2n + c`. Averaging the FM's estimate over the
//! running threads R (§4.3.1 step 2) is O(k) per candidate after an O(k·|R|)
//! pass, because with one-hot features
//! `mean_r ŷ(r, w, c) = w0 + mean_r w_r + w_w + w_c + ⟨mean_r v_r, v_w + v_c⟩ + ⟨v_w, v_c⟩`.

use crate::learn::Fm;

/// The sparse input of entry (running `r`, waiting `w`, core `c`) for `n` threads.
pub fn features(n: usize, r: usize, w: usize, c: usize) -> [(usize, f64); 3] {
    [(r, 1.0), (n + w, 1.0), (2 * n + c, 1.0)]
}

/// For each candidate `w`, the FM estimate averaged over `running` (context `c`, `n` threads).
pub fn mean_over_running(fm: &Fm, n: usize, running: &[usize], candidates: &[usize], c: usize, out: &mut Vec<f64>) {
    let k = fm.params.k;
    out.clear();
    let cf = 2 * n + c;
    let mut vbar = vec![0.0; k];
    let mut wbar = 0.0;
    for &r in running {
        wbar += fm.w[r];
        for (f, x) in fm.factors(r).iter().enumerate() {
            vbar[f] += x;
        }
    }
    let m = running.len().max(1) as f64;
    wbar /= m;
    vbar.iter_mut().for_each(|x| *x /= m);
    let vc = fm.factors(cf);
    for &w in candidates {
        let vw = fm.factors(n + w);
        let mut y = fm.w0 + wbar + fm.w[n + w] + fm.w[cf];
        for f in 0..k {
            y += vbar[f] * (vw[f] + vc[f]) + vw[f] * vc[f];
        }
        out.push(y);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::FmParams;

    #[test]
    fn averaged_estimate_equals_the_mean_of_predictions() {
        let n = 10;
        let mut fm = Fm::new(2 * n + 4, FmParams { k: 4, ..Default::default() }, 3);
        for (i, w) in fm.w.iter_mut().enumerate() {
            *w = (i as f64 * 0.37).sin();
        }
        fm.w0 = 0.2;
        let running = [1, 4, 7];
        let cands = [0, 2, 9];
        let mut out = vec![];
        mean_over_running(&fm, n, &running, &cands, 3, &mut out);
        for (i, &w) in cands.iter().enumerate() {
            let direct: f64 = running.iter().map(|&r| fm.predict(&features(n, r, w, 3))).sum::<f64>() / 3.0;
            assert!((out[i] - direct).abs() < 1e-12);
        }
    }
}
