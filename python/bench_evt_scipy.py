"""The same POT pipeline with SciPy, for scripts/bench-evt: fits at the
automatic rule's candidate thresholds (genpareto.fit, location 0), then the
profile-likelihood interval of the endpoint by brute force over a grid."""

import time

import numpy as np
from scipy import stats
from scipy.optimize import minimize_scalar


def pipeline(xs):
    xs = np.sort(xs)
    cands = [0.70, 0.74, 0.78, 0.82, 0.86, 0.90, 0.94, 0.96]
    fits = []
    for q in cands:
        u = np.quantile(xs, q)
        y = xs[xs > u] - u
        if len(y) < 30:
            continue
        c, _, s = stats.genpareto.fit(y, floc=0)
        fits.append((u, c, s, y))
    chosen = fits[-1]
    for i, f in enumerate(fits):
        if all(abs(g[1] - f[1]) <= 0.1 for g in fits[i + 1 :]):
            chosen = f
            break
    u, c, s, y = chosen
    e_hat = -s / c
    lmax = stats.genpareto.logpdf(y, c, 0, s).sum()
    cut = lmax - stats.chi2.ppf(0.95, 1) / 2
    inside = []
    for e in np.linspace(y.max() * 1.0001, e_hat * 3, 400):

        def negl(cc, e=e):
            return -stats.genpareto.logpdf(y, cc, 0, -cc * e).sum()

        r = minimize_scalar(negl, bounds=(-1.0, -1e-6), method="bounded")
        if -r.fun >= cut:
            inside.append(e)
    return u + e_hat, (u + min(inside), u + max(inside))


def main():
    rng = np.random.default_rng(5)
    xs = 10.0 - (-np.log(rng.uniform(1e-12, 1.0, 5000))) ** (1 / 2.5)
    t0 = time.perf_counter()
    upb, ci = pipeline(xs)
    dt = (time.perf_counter() - t0) * 1e3
    print(
        f"scipy POT (same pipeline, brute-force profile), 5,000 samples: {dt:.1f} ms  (UPB {upb:.4f}, interval [{ci[0]:.4f}, {ci[1]:.4f}])"
    )


if __name__ == "__main__":
    main()
