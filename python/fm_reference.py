"""An independent factorization machine in numpy (Rendle, ICDM 2010), the
oracle for cosched's: the prediction formula of Eq. 1 written literally
(pairwise sum over the input's non-zero features), and a plain SGD trainer
with fixed settings — what a user would write without any tuning — for
scripts/bench-fm."""

import numpy as np


def predict(w0, w, v, x):
    """Eq. 1 on a sparse input x = [(feature, value), ...], the double sum written out."""
    y = w0 + sum(w[i] * xi for i, xi in x)
    for a in range(len(x)):
        for b in range(a + 1, len(x)):
            (i, xi), (j, xj) = x[a], x[b]
            y += float(np.dot(v[i], v[j])) * xi * xj
    return y


def plain_sgd_fm(rows, cols, cells, k=8, lr=0.01, reg=0.01, epochs=100, seed=0):
    """Plain SGD on squared loss, one-hot (row, col) features; returns a predictor(r, c)."""
    rng = np.random.default_rng(seed)
    n = rows + cols
    w0 = 0.0
    w = np.zeros(n)
    v = rng.normal(0.0, 0.1, (n, k))
    r_idx = np.array([c[0] for c in cells])
    c_idx = np.array([c[1] for c in cells]) + rows
    y = np.array([c[2] for c in cells], dtype=float)
    for _ in range(epochs):
        for t in rng.permutation(len(y)):
            i, j = r_idx[t], c_idx[t]
            err = w0 + w[i] + w[j] + v[i] @ v[j] - y[t]
            w0 -= lr * err
            w[i] -= lr * (err + reg * w[i])
            w[j] -= lr * (err + reg * w[j])
            vi = v[i].copy()
            v[i] -= lr * (err * v[j] + reg * v[i])
            v[j] -= lr * (err * vi + reg * v[j])
    return lambda r, c: w0 + w[r] + w[rows + c] + v[r] @ v[rows + c]


def planted(n, rank, share, noise, seed):
    """A rank-`rank` n x n matrix plus row offsets; (observed cells with noise, hidden cells exact)."""
    rng = np.random.default_rng(seed)
    u = rng.uniform(-1, 1, (n, rank))
    vv = rng.uniform(-1, 1, (n, rank))
    truth = u @ vv.T + 0.3 * (np.arange(n)[:, None] % 4)
    mask = rng.random((n, n)) < share
    obs = [(int(i), int(j), float(truth[i, j] + noise * rng.uniform(-1, 1))) for i, j in zip(*np.nonzero(mask))]
    hid = [(int(i), int(j), float(truth[i, j])) for i, j in zip(*np.nonzero(~mask))]
    return obs, hid


def row_col_means(rows, cols, cells):
    """Global mean plus the mean row and column deviations; returns a predictor(r, c)."""
    y = np.array([c[2] for c in cells])
    mu = y.mean()
    rs, rc, cs, cc = np.zeros(rows), np.zeros(rows), np.zeros(cols), np.zeros(cols)
    for r, c, v in cells:
        rs[r] += v - mu
        rc[r] += 1
        cs[c] += v - mu
        cc[c] += 1
    br = np.divide(rs, rc, out=np.zeros(rows), where=rc > 0)
    bc = np.divide(cs, cc, out=np.zeros(cols), where=cc > 0)
    return lambda r, c: mu + br[r] + bc[c]
