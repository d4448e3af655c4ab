"""Plain NumPy/Python references for the precision@k kernels (tests only).

* ``brute_force_surrogate``: the definitions of docs/theory/precision_at_k.md as maxima over every
  labelling ŷ with |ŷ| = k (exponential; small n only).
* ``reference_surrogate``: the Δ-decomposition with a tie-averaged subgradient,
  written independently of the Cython kernel.
* ``reference_perceptron`` / ``reference_epoch``: the learners' updates.
* ``prec_at_k``: prec@k with fractional credit at ties (expected value over
  every order of the tied scores).
"""

from __future__ import annotations

import itertools
import math

import numpy as np


def prec_at_k_loss_counts(y, s, k):
    """Expected number of negatives among the k top scores, ties in random order."""
    y = np.asarray(y)
    s = np.asarray(s, dtype=float)
    fp = 0.0
    above = 0
    for value in sorted(set(s.tolist()), reverse=True):
        group = s == value
        size = int(group.sum())
        slots = min(max(k - above, 0), size)
        fp += slots * np.count_nonzero(y[group] == 0) / size
        above += size
    return fp


def prec_at_k(y, s, k):
    return 1.0 - prec_at_k_loss_counts(y, s, k) / k


def brute_force_surrogate(y, s, k, kind):
    """Surrogate in count units by enumerating every ŷ with |ŷ| = k (docs/theory/precision_at_k.md#the-surrogates)."""
    y = np.asarray(y, dtype=int)
    s = np.asarray(s, dtype=float)
    n = len(y)
    n_pos = int(y.sum())
    pos_sorted = np.sort(s[y == 1])[::-1]
    best = -math.inf
    for chosen in itertools.combinations(range(n), k):
        yhat = np.zeros(n, dtype=int)
        yhat[list(chosen)] = 1
        delta = int(np.sum((1 - y) * yhat))
        tp = int(np.sum(y * yhat))
        neg_part = float(np.sum((1 - y) * yhat * s))
        if kind == "struct":
            value = delta + float(np.sum((yhat - y) * s))
        elif kind == "ramp":
            value = delta + float(np.sum(yhat * s)) - float(pos_sorted[:k].sum())
        elif kind == "max":
            lowest = float(pos_sorted[n_pos - delta:].sum()) if delta > 0 else 0.0
            value = delta + neg_part - lowest
        elif kind == "avg":
            missed = n_pos - tp
            penalty = delta / missed * float(np.sum(y * (1 - yhat) * s)) if missed > 0 else 0.0
            value = delta + neg_part - penalty
        else:
            raise ValueError(kind)
        best = max(best, value)
    return best


def _tie_average(values, coef):
    """Average ``coef`` over runs of equal ``values`` (values sorted)."""
    out = np.array(coef, dtype=float)
    start = 0
    while start < len(values):
        end = start
        while end < len(values) and values[end] == values[start]:
            end += 1
        out[start:end] = out[start:end].mean()
        start = end
    return out


def reference_terms(y, s, k, kind):
    """The Δ-decomposition's terms (one per Δ = 0..min(k, n_neg)) in count units, k capped at n_pos.

    The surrogate is their maximum (docs/theory/precision_at_k.md#fast-evaluation).
    """
    return _sorted_terms(y, s, k, kind)[0]


def _sorted_terms(y, s, k, kind):
    y = np.asarray(y, dtype=int)
    s = np.asarray(s, dtype=float)
    pos = np.flatnonzero(y == 1)
    neg = np.flatnonzero(y == 0)
    pos = pos[np.argsort(-s[pos], kind="stable")]
    neg = neg[np.argsort(-s[neg], kind="stable")]
    ps, ns = s[pos], s[neg]
    n_pos, n_neg = len(pos), len(neg)
    k = min(k, n_pos)

    def top(values, m):
        return float(values[:m].sum())

    def term(d):
        base = d + top(ns, d)
        if kind == "struct":
            return base + top(ps, k - d) - top(ps, n_pos)
        if kind == "ramp":
            return base - (top(ps, k) - top(ps, k - d))
        if kind == "max":
            return base - float(ps[n_pos - d:].sum()) if d > 0 else base
        if kind == "avg":
            return base - (d * float(ps[k - d:].sum()) / (n_pos - k + d) if d > 0 else 0.0)
        raise ValueError(kind)

    values = [term(d) for d in range(min(k, n_neg) + 1)]
    return values, pos, neg, ps, ns, n_pos, n_neg, k


def reference_surrogate(y, s, k, kind):
    """(value, grad, k_used, delta_star) in count units, k capped at n_pos."""
    values, pos, neg, ps, ns, n_pos, n_neg, k = _sorted_terms(y, s, k, kind)
    d_star = int(np.argmax(values))  # first maximizer
    grad = np.zeros(len(y))
    cneg = np.where(np.arange(n_neg) < d_star, 1.0, 0.0)
    ranks = np.arange(n_pos)
    if kind == "struct":
        cpos = np.where(ranks >= k - d_star, -1.0, 0.0)
    elif kind == "ramp":
        cpos = np.where((ranks >= k - d_star) & (ranks < k), -1.0, 0.0)
    elif kind == "max":
        cpos = np.where(ranks >= n_pos - d_star, -1.0, 0.0)
    else:
        coef = -d_star / (n_pos - k + d_star) if d_star > 0 else 0.0
        cpos = np.where(ranks >= k - d_star, coef, 0.0)
    grad[neg] = _tie_average(ns, cneg)
    grad[pos] = _tie_average(ps, cpos)
    return values[d_star], grad, k, d_star


def brute_force_line_minimum(y, f, h, k, kind, max_step=1e4):
    """min over |α| <= max_step of the surrogate at f + α·h (count units), by enumeration.

    The order of the scores changes only where two rows cross; between two
    consecutive crossings every Δ-term is linear in α, so the surrogate (their
    maximum) has its remaining breakpoints where two terms meet.  Every
    crossing and every such meeting point is evaluated: O(n⁴) points at most
    (small n only).
    """
    f = np.asarray(f, dtype=float)
    h = np.asarray(h, dtype=float)
    n = f.shape[0]
    points = {-max_step, 0.0, max_step}
    for i in range(n):
        for j in range(i + 1, n):
            if h[i] != h[j]:
                a = (f[j] - f[i]) / (h[i] - h[j])
                if abs(a) <= max_step:
                    points.add(a)
    grid = sorted(points)
    candidates = set(grid)
    for a, b in zip(grid[:-1], grid[1:]):
        m1, m2 = a + (b - a) / 3, a + 2 * (b - a) / 3
        t1 = np.array(reference_terms(y, f + m1 * h, k, kind))
        t2 = np.array(reference_terms(y, f + m2 * h, k, kind))
        slope = (t2 - t1) / (m2 - m1)
        intercept = t1 - slope * m1
        for d in range(len(t1)):
            for e in range(d + 1, len(t1)):
                if slope[d] != slope[e]:
                    x = (intercept[e] - intercept[d]) / (slope[d] - slope[e])
                    if a < x < b:
                        candidates.add(x)
    return min(max(reference_terms(y, f + a * h, k, kind)) for a in candidates)


def reference_perceptron(y, s, k, variant):
    """(grad, delta) of the Perceptron@k rule; the update is w -= X.T @ grad."""
    y = np.asarray(y, dtype=int)
    s = np.asarray(s, dtype=float)
    n_pos = int(y.sum())
    k = min(k, n_pos)
    member = np.zeros(len(y))
    above = 0
    for value in sorted(set(s.tolist()), reverse=True):
        group = s == value
        size = int(group.sum())
        member[group] = min(max(k - above, 0), size) / size
        above += size
    delta = float(np.sum(member[y == 0]))
    grad = np.zeros(len(y))
    if delta <= 0:
        return grad, 0.0
    grad[y == 0] = member[y == 0]
    fn = (1 - member) * (y == 1)
    if variant == "avg":
        grad[y == 1] = -(delta / fn.sum()) * fn[y == 1]
    else:
        remaining = delta
        for value in sorted(set(s[y == 1].tolist()), reverse=True):
            group = (s == value) & (y == 1)
            take = max(0.0, min(fn[group].sum(), remaining))
            remaining -= take
            grad[group] = -take / group.sum()
    return grad, delta


def batch_k(k, nb):
    if k >= 1:
        return min(int(k), nb)
    return min(max(1, int(math.floor(k * nb + 0.5))), nb)


def _norm(w):
    """‖w‖ without overflow (|w| beyond 1e154 after a huge step): max|w| · ‖w / max|w|‖."""
    top = float(np.max(np.abs(w), initial=0.0))
    return top * float(np.linalg.norm(w / top)) if 0.0 < top < math.inf else top


def reference_epoch(X, y, order, batch_size, k, rule, kind, eta0=1.0, alpha=0.0, radius=None, w=None, t=0):
    """One pass of the learners, in plain NumPy; returns (w, t)."""
    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)
    w = np.zeros(X.shape[1]) if w is None else np.array(w, dtype=float)
    for start in range(0, len(order), batch_size):
        idx = order[start:start + batch_size]
        Xb, yb = X[idx], np.asarray(y)[idx]
        n_pos = int(yb.sum())
        if n_pos == 0 or n_pos == len(yb):
            continue
        kb = batch_k(k, len(yb))
        t += 1
        s = Xb @ w
        if rule == "sgd":
            _, g, k_used, _ = reference_surrogate(yb, s, kb, kind)
            eta = eta0 / math.sqrt(t)
            if alpha > 0:
                w = np.zeros_like(w) if eta * alpha >= 1 else (1 - eta * alpha) * w
            w = w - eta / k_used * (Xb.T @ g)
            if radius is not None and _norm(w) > radius:
                w = w * (radius / _norm(w))
        else:
            g, delta = reference_perceptron(yb, s, kb, kind)
            if delta > 0:
                w = w - Xb.T @ g
    return w, t
