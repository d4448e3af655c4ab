"""Exact O(n_q²) references of the per-query objectives (explicit loops over the pairs of each query), a line check."""

from __future__ import annotations

import math

import numpy as np


def query_push_reference(y, qid, f, w, loss, price, gain_weighted=False):
    """(R, ∂R/∂f, diagonal of ∂²R/∂f²) of the per-query push, by a double loop over each query's pairs.

    R = Σ_q Σ_k w_k g(L_k), L_k = Σ_{i in k's query, y_i > y_k} w_i a_ik ℓ(f_i − f_k), with
    a_ik = 1 or 2^{y_i} − 2^{y_k}.  Plain (not log) arithmetic: for moderate scores only.
    """
    y, f, w = (np.asarray(v, dtype=np.float64) for v in (y, f, w))
    qid = np.asarray(qid)
    n = f.shape[0]
    R = 0.0
    dR = np.zeros(n)
    d2R = np.zeros(n)
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        for k in rows:
            above = rows[y[rows] > y[k]]
            if not above.size or w[k] == 0:
                continue
            L = D = N = 0.0
            parts = []
            # the loss and its derivatives at every pair (i, k) of the row in one call each (elementwise, the
            # numbers of one call per pair); the sums below still add the pairs one by one, in order
            z = f[above] - f[k]
            values = zip(above.tolist(), loss.value(z).tolist(), loss.derivative(z).tolist(),
                         loss.second_derivative(z).tolist() if loss.has_second_derivative else [0.0] * above.size)
            for i, l0, l1, l2 in values:
                a = (2.0 ** y[i] - 2.0 ** y[k]) if gain_weighted else 1.0
                L += w[i] * a * l0
                D += w[i] * a * l1
                N += w[i] * a * l2
                parts.append((i, w[i] * a, l1, l2))
            if L <= 0:
                continue
            g0 = float(price.value(np.array([L]))[0])
            g1 = float(price.derivative(np.array([L]))[0])
            g2 = float(price.second_derivative(np.array([L]))[0]) if price.has_second_derivative else 0.0
            R += w[k] * g0
            dR[k] -= w[k] * g1 * D
            d2R[k] += w[k] * (g2 * D * D + g1 * N)
            for i, wa, l1, l2 in parts:
                dR[i] += w[k] * g1 * wa * l1
                d2R[i] += w[k] * (g2 * (wa * l1) ** 2 + g1 * wa * l2)
    return R, dR, d2R


def lambdarank_reference(y, qid, f, truncation=30, sigmoid=1.0, norm=True, w=None, table=None,
                         accumulate=np.float64):
    """LightGBM's lambdarank gradients and hessians, transcribed loop by loop from its definition.

    ``table``: the gain of each integer grade (LightGBM's ``label_gain``); None for 2^y − 1.
    ``accumulate``: the type each row's sums are kept in; ``np.float32`` adds every pair's λ and h to a
    single-precision sum in LightGBM's order and scales them back into one, as LightGBM's ``score_t`` does.
    """
    def G(grade):
        return 2.0 ** grade - 1.0 if table is None else float(table[int(grade)])

    y, f = np.asarray(y, dtype=np.float64), np.asarray(f, dtype=np.float64)
    qid = np.asarray(qid)
    n = f.shape[0]
    lam = np.zeros(n)
    hes = np.zeros(n)
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        cnt = len(rows)
        k = cnt if truncation is None else min(truncation, cnt)
        gains = sorted((G(y[r]) for r in rows), reverse=True)
        max_dcg = sum(gains[r] / math.log2(r + 2.0) for r in range(k))
        inv = 1.0 / max_dcg if max_dcg > 0 else 0.0
        srt = sorted(range(cnt), key=lambda a: -f[rows[a]])          # Python's sort is stable
        best, worst = f[rows[srt[0]]], f[rows[srt[-1]]]
        ql = np.zeros(cnt, dtype=accumulate)
        qh = np.zeros(cnt, dtype=accumulate)
        total = 0.0
        for i in range(k):
            for j in range(i + 1, cnt):
                a, b = srt[i], srt[j]
                if y[rows[a]] == y[rows[b]]:
                    continue
                (hr, high), (lr, low) = ((i, a), (j, b)) if y[rows[a]] > y[rows[b]] else ((j, b), (i, a))
                ds = f[rows[high]] - f[rows[low]]
                gap = G(y[rows[high]]) - G(y[rows[low]])
                pd = abs(1 / math.log2(hr + 2.0) - 1 / math.log2(lr + 2.0))
                delta = gap * pd * inv
                if norm and best != worst:
                    delta /= (float(np.float32(0.01)) + abs(ds))
                p = 1.0 / (1.0 + math.exp(sigmoid * ds))
                h = p * (1.0 - p) * sigmoid * sigmoid * delta
                p *= -sigmoid * delta
                ql[low] -= accumulate(p)
                qh[low] += accumulate(h)
                ql[high] += accumulate(p)
                qh[high] += accumulate(h)
                total -= 2 * p
        if norm and total > 0:
            factor = math.log2(1 + total) / total
            ql = (ql.astype(np.float64) * factor).astype(accumulate)
            qh = (qh.astype(np.float64) * factor).astype(accumulate)
        lam[rows] = ql
        hes[rows] = qh
    if w is not None:
        lam *= w
        hes *= w
    return lam, hes


def place_discounts_reference(f, qid, truncation=0):
    """1 / log2(1 + place) of each row in its query by descending score, ties in row order: a loop per query."""
    f = np.asarray(f, dtype=np.float64)
    qid = np.asarray(qid)
    d = np.zeros(f.shape[0])
    for q in np.unique(qid):
        rows = [int(i) for i in np.flatnonzero(qid == q)]
        rows.sort(key=lambda i: (-f[i], i))
        for place, i in enumerate(rows, start=1):
            d[i] = 0.0 if truncation and place > truncation else 1.0 / math.log2(1.0 + place)
    return d


def position_push_reference(y, qid, f, w, gain_weighted=False, discount="none", truncation=0, normalize=False):
    """(J, ∂J/∂f, diagonal of ∇²R / R) of the position-aware per-query push (exp loss, identity price).

    R = Σ_q (1/Z_q) Σ_k Σ_{i in k's query, y_i > y_k} A_ik e^{f_k − f_i}, A_ik = w_i w_k a_ik (d_i + d_k)
    (``discount="sum"``; d_i d_k with ``"product"``; 1 with ``"none"``), d from the places at ``f`` held
    fixed; Z_q = Σ A_ik over the query's pairs with ``normalize``, else 1.  A double loop over each
    query's pairs; plain arithmetic.
    """
    y, f, w = (np.asarray(v, dtype=np.float64) for v in (y, f, w))
    qid = np.asarray(qid)
    d = place_discounts_reference(f, qid, truncation)
    n = f.shape[0]
    R = 0.0
    dR = np.zeros(n)
    d2R = np.zeros(n)
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        pairs = []
        for k in rows:
            for i in rows:
                if y[i] > y[k]:
                    a = (2.0 ** y[i] - 2.0 ** y[k]) if gain_weighted else 1.0
                    factor = {"none": 1.0, "sum": d[i] + d[k], "product": d[i] * d[k]}[discount]
                    weight = w[i] * w[k] * a * factor
                    pairs.append((i, k, weight))
        Z = sum(p[2] for p in pairs) if normalize else 1.0
        if Z <= 0:
            continue
        for i, k, weight in pairs:
            term = weight / Z * math.exp(f[k] - f[i])
            R += term
            dR[k] += term
            dR[i] -= term
            d2R[k] += term
            d2R[i] += term
    if R <= 0:
        return -math.inf, np.zeros(n), np.zeros(n)
    return math.log(R), dR / R, d2R / R


def check_line_point(bound, line, f, h, alpha, tolerance):
    """Assert that ``line(alpha)`` gives the value and slope of ``bound`` evaluated directly at f + α·h; return it."""
    import pytest

    at = line(alpha)
    value, grad = bound.value_and_gradient(f + alpha * h)
    assert at.value == pytest.approx(value, rel=tolerance, abs=tolerance)
    assert at.d1 == pytest.approx(float(grad @ h), rel=1e-9, abs=1e-12)
    return at
