//! Working-set growth prediction (RDA §4.4, Fig. 12): a logarithmic
//! regression `WSS = a + b·ln(input size)` fitted by least squares to
//! profiled runs, used to predict the working set of a larger input.

/// A fitted logarithmic model.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct LogFit {
    /// Intercept a.
    pub a: f64,
    /// Slope b.
    pub b: f64,
    /// Coefficient of determination R² on the fitted points.
    pub r2: f64,
}

impl LogFit {
    /// Least-squares fit to `(input size, wss)` points (sizes > 0, at least two distinct).
    pub fn fit(points: &[(f64, f64)]) -> Option<LogFit> {
        let n = points.len() as f64;
        if points.len() < 2 || points.iter().any(|p| p.0 <= 0.0 || !p.1.is_finite()) {
            return None;
        }
        let xs: Vec<f64> = points.iter().map(|p| p.0.ln()).collect();
        let mx = xs.iter().sum::<f64>() / n;
        let my = points.iter().map(|p| p.1).sum::<f64>() / n;
        let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
        if sxx == 0.0 {
            return None;
        }
        let sxy: f64 = xs.iter().zip(points).map(|(x, p)| (x - mx) * (p.1 - my)).sum();
        let b = sxy / sxx;
        let a = my - b * mx;
        let ss_tot: f64 = points.iter().map(|p| (p.1 - my).powi(2)).sum();
        let ss_res: f64 = xs.iter().zip(points).map(|(x, p)| (p.1 - a - b * x).powi(2)).sum();
        Some(LogFit { a, b, r2: if ss_tot > 0.0 { 1.0 - ss_res / ss_tot } else { 1.0 } })
    }

    /// Predicted working set for an input of `size`.
    pub fn predict(&self, size: f64) -> f64 {
        self.a + self.b * size.ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_a_logarithmic_law_and_extrapolates() {
        let pts: Vec<(f64, f64)> =
            [100.0, 200.0, 400.0, 800.0].iter().map(|&s: &f64| (s, 1.5 + 0.75 * s.ln())).collect();
        let f = LogFit::fit(&pts).unwrap();
        assert!((f.a - 1.5).abs() < 1e-9 && (f.b - 0.75).abs() < 1e-9 && (f.r2 - 1.0).abs() < 1e-12);
        assert!((f.predict(3200.0) - (1.5 + 0.75 * 3200f64.ln())).abs() < 1e-9);
        assert!(LogFit::fit(&[(1.0, 1.0)]).is_none());
    }
}
