//! Student's t distribution for any level (the tables of `stats::t95` hold
//! 95% only): the two-sided tail through the regularized incomplete beta
//! function, P(|T| > x) = I_{ν/(ν+x²)}(ν/2, ½) (Abramowitz & Stegun 26.7.1),
//! evaluated by its continued fraction (Lentz's method, as in Press et al.,
//! *Numerical Recipes*, §6.4), and its quantile by bisection. Used where a
//! test is run at a corrected level (the phases of a characterised program).

use crate::evt::checks::ln_gamma;

/// The continued fraction of the incomplete beta function (modified Lentz).
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    d = if d.abs() < TINY { TINY } else { d };
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=300 {
        let m = m as f64;
        let m2 = 2.0 * m;
        for aa in [m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))] {
            d = 1.0 + aa * d;
            d = if d.abs() < TINY { TINY } else { d };
            c = 1.0 + aa / c;
            c = if c.abs() < TINY { TINY } else { c };
            d = 1.0 / d;
            h *= d * c;
        }
        if (d * c - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// The regularized incomplete beta function I_x(a, b), 0 ≤ x ≤ 1.
pub fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front = (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

/// P(|T| > x) for Student's t with `df` degrees of freedom.
pub fn two_sided_tail(x: f64, df: f64) -> f64 {
    incomplete_beta(df / 2.0, 0.5, df / (df + x * x))
}

/// The x with P(|T| > x) = `alpha` for `df` degrees of freedom (NaN unless 0 < alpha < 1 and
/// df > 0): 95% two-sided is `t_quantile(0.05, df)`.
pub fn t_quantile(alpha: f64, df: f64) -> f64 {
    if !(alpha > 0.0 && alpha < 1.0 && df > 0.0) {
        return f64::NAN;
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while two_sided_tail(hi, df) > alpha && hi < 1e12 {
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if two_sided_tail(mid, df) > alpha {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_match_the_published_tables() {
        // 95%: the table of `stats::t95` (itself the published one) for every df it holds.
        for df in 1..=30 {
            let q = t_quantile(0.05, df as f64);
            assert!((q - crate::stats::t95(df)).abs() < 1.5e-3, "df {df}: {q}");
        }
        // 99% and 99.9% (Fisher & Yates's tables): df 1, 6, 10, 30.
        for (alpha, df, want) in [
            (0.01, 1.0, 63.657),
            (0.01, 6.0, 3.707),
            (0.01, 10.0, 3.169),
            (0.01, 30.0, 2.750),
            (0.001, 6.0, 5.959),
            (0.001, 30.0, 3.646),
        ] {
            let q = t_quantile(alpha, df);
            assert!((q / want - 1.0).abs() < 5e-4, "{alpha} {df}: {q} vs {want}");
        }
        // Closed forms: df 1 is Cauchy, P(|T| > x) = 1 − 2·atan(x)/π; df 2: 1 − x/√(2 + x²).
        for x in [0.1, 1.0, 3.0, 50.0] {
            let cauchy = 1.0 - 2.0 * f64::atan(x) / std::f64::consts::PI;
            assert!((two_sided_tail(x, 1.0) / cauchy - 1.0).abs() < 1e-9, "{x}");
            let two = 1.0 - x / (2.0 + x * x).sqrt();
            assert!((two_sided_tail(x, 2.0) / two - 1.0).abs() < 1e-9, "{x}");
        }
        assert!(t_quantile(0.0, 3.0).is_nan() && t_quantile(0.05, 0.0).is_nan());
    }
}
