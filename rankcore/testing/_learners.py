"""Contract checks of the ``learner`` family (see :class:`rankcore.Learner`)."""

from __future__ import annotations

import numpy as np

__all__ = ["CHECKS"]


def _data(rng, n=120, d=4, dtype=np.float64):
    X = rng.normal(size=(n, d))
    X[:, 0] = np.round(X[:, 0], 1)          # ties
    X[: n // 4, 1] = 0.0                    # a block of equal values
    if d > 3:
        X[:, 3] = 1.5                       # a constant feature
    return np.ascontiguousarray(X, dtype=dtype)


def _gradient(rng, n):
    g = rng.normal(size=n)
    return g - g.mean()                     # shift-invariant objectives have Σ g = 0


def _search(layout, blocks, g, *, n_threads=None):
    """The layout's candidate for the gradient g over encoded blocks (single- or multi-pass).

    ``blocks`` is a list of (encoded block, row slice); a multi-pass search
    gets the sample weights (ones) as its curvature.
    """
    if getattr(layout, "multi_pass", False):
        from ..learners import multi_pass_search

        return multi_pass_search(layout, [enc for enc, _ in blocks], [g[s] for _, s in blocks],
                                 [np.ones(g[s].shape[0]) for _, s in blocks], n_threads=n_threads or 1)
    stats = None
    for enc, s in blocks:
        part = layout.statistics(enc, g[s]) if n_threads is None else layout.statistics(enc, g[s], n_threads=n_threads)
        stats = part if stats is None else stats + part
    return layout.select(stats)


def _encode(layout, X, cuts=None):
    cuts = [0, X.shape[0]] if cuts is None else cuts
    out = []
    for a, b in zip(cuts[:-1], cuts[1:]):
        enc = layout.encode(X[a:b], offset=a) if getattr(layout, "multi_pass", False) else layout.encode(X[a:b])
        out.append((enc, slice(a, b)))
    return out


def check_learner_evaluate_matches_predict(learner, rng):
    """layout.evaluate(ranker, encode(X)) == ranker.predict(X) exactly, for float64 and float32 X."""
    for dtype in (np.float64, np.float32):
        X = _data(rng, dtype=dtype)
        layout = learner.prepare(X, random_state=0)
        blocks = _encode(layout, X)
        encoded = blocks[0][0]
        for _ in range(5):
            g = _gradient(rng, X.shape[0])
            candidate = _search(layout, blocks, g)
            if candidate is None:
                continue
            h = layout.evaluate(candidate.ranker, encoded)
            p = candidate.ranker.predict(X)
            assert h.dtype == np.float64 and h.shape == (X.shape[0],), f"learner {learner.spec!r}: evaluate shape/dtype"
            assert np.array_equal(h, p), f"learner {learner.spec!r}: evaluate and predict differ for {candidate.ranker}"
            assert np.isfinite(h).all(), f"learner {learner.spec!r}: h is not finite"
            if getattr(learner, "bounded", True):
                assert np.all((h >= 0) & (h <= 1)), f"learner {learner.spec!r}: h outside [0, 1] on training data"
            if candidate.ranker.values is not None:
                assert np.isin(h, candidate.ranker.values).all(), (
                    f"learner {learner.spec!r}: {candidate.ranker} takes values outside its declared values")


def check_learner_derivative_is_dot_product(learner, rng):
    """The candidate's derivative equals Σ_n g_n h(x_n), and no other ranker it returns does better."""
    X = _data(rng)
    layout = learner.prepare(X, random_state=0)
    blocks = _encode(layout, X)
    seen = []
    for _ in range(8):
        g = _gradient(rng, X.shape[0])
        candidate = _search(layout, blocks, g)
        if candidate is None:
            continue
        h = candidate.ranker.predict(X)
        if getattr(layout, "sampled_derivative", False):
            # Σ g h over the rows the search sampled, which the check cannot see: finite is all
            # it can ask here (the descent check below still applies); the same learner with
            # every row (e.g. trees:subsample=1) gets the exact check
            assert np.isfinite(candidate.derivative), f"learner {learner.spec!r}: derivative is not finite"
        else:
            np.testing.assert_allclose(candidate.derivative, g @ h, rtol=1e-9, atol=1e-9,
                                       err_msg=f"learner {learner.spec!r}: derivative is not Σ g h")
        seen.append((g, candidate))
    if getattr(layout, "multi_pass", False):
        # multi-pass searches fit a model of the gradient (e.g. a tree), not the best |Σ g h|:
        # the candidate must be a descent direction (the line search scales it)
        for g, candidate in seen:
            assert candidate.derivative < 0, f"learner {learner.spec!r}: the candidate is not a descent direction"
        return
    # a selection must be at least as good as any ranker selected for another gradient
    rankers = [c.ranker for _, c in seen]
    for g, candidate in seen:
        best_other = max(abs(g @ r.predict(X)) for r in rankers)
        assert abs(candidate.derivative) >= best_other - 1e-9, (
            f"learner {learner.spec!r}: select missed a better ranker ({best_other} > {abs(candidate.derivative)})")


def check_learner_statistics_additive(learner, rng):
    """Statistics of a split of the rows add up to the statistics of all rows.

    For a multi-pass learner: the search over blocks finds the same ranker as over one block.
    """
    X = _data(rng)
    layout = learner.prepare(X, random_state=0)
    g = _gradient(rng, X.shape[0])
    if getattr(layout, "multi_pass", False):
        cut = [0, 17, 18, 70, X.shape[0]]
        whole = _search(learner.prepare(X, random_state=0), _encode(layout, X), g)
        parts = _search(learner.prepare(X, random_state=0), _encode(layout, X, cut), g)
        assert (whole is None) == (parts is None), f"learner {learner.spec!r}: blocks changed whether a ranker exists"
        if whole is not None:
            np.testing.assert_allclose(parts.ranker.predict(X), whole.ranker.predict(X), rtol=1e-10, atol=1e-12,
                                       err_msg=f"learner {learner.spec!r}: the search depends on the row blocks")
        return
    whole = layout.statistics(layout.encode(X), g)
    cut = [0, 17, 18, 70, X.shape[0]]
    parts = sum(layout.statistics(layout.encode(X[a:b]), g[a:b]) for a, b in zip(cut[:-1], cut[1:]))
    np.testing.assert_allclose(parts, whole, rtol=1e-10, atol=1e-10,
                               err_msg=f"learner {learner.spec!r}: statistics are not additive over row blocks")


def check_learner_threads_do_not_change_results(learner, rng):
    """The selected ranker and its derivative do not depend on n_threads."""
    X = _data(rng, n=400)
    g = _gradient(rng, X.shape[0])
    out = []
    for n_threads in (1, 2):
        layout = learner.prepare(X, random_state=0, n_threads=n_threads)
        c = _search(layout, _encode(layout, X), g, n_threads=n_threads)
        out.append(c)
    if out[0] is None:
        assert out[1] is None
        return
    if getattr(layout, "multi_pass", False):
        assert out[0].ranker.to_state() == out[1].ranker.to_state(), (
            f"learner {learner.spec!r}: n_threads changed the ranker")
    else:
        assert out[0].ranker == out[1].ranker, f"learner {learner.spec!r}: n_threads changed the ranker"
    np.testing.assert_allclose(out[0].derivative, out[1].derivative, rtol=1e-12)


def check_learner_ranker_state_round_trip(learner, rng):
    """ranker_from_state(ranker.to_state()) predicts identically; a malformed record is refused."""
    import json

    X = _data(rng)
    layout = learner.prepare(X, random_state=0)
    candidate = _search(layout, _encode(layout, X), _gradient(rng, X.shape[0]))
    if candidate is None:
        return
    state = json.loads(json.dumps(candidate.ranker.to_state()))
    restored = learner.ranker_from_state(state)
    assert np.array_equal(restored.predict(X), candidate.ranker.predict(X)), (
        f"learner {learner.spec!r}: a restored ranker predicts differently")
    try:
        learner.ranker_from_state({"kind": "no-such-kind"})
    except (ValueError, TypeError, KeyError):
        pass
    else:
        raise AssertionError(f"learner {learner.spec!r}: ranker_from_state accepted a malformed record")


def check_learner_constant_data(learner, rng):
    """All-constant features: no candidate (None) or a candidate with zero derivative, never an error."""
    X = np.ones((20, 3))
    layout = learner.prepare(X, random_state=0)
    g = _gradient(rng, 20)
    candidate = _search(layout, _encode(layout, X), g)
    assert candidate is None or abs(candidate.derivative) < 1e-9, (
        f"learner {learner.spec!r}: constant data gave a non-zero derivative")


CHECKS = [
    check_learner_evaluate_matches_predict,
    check_learner_derivative_is_dot_product,
    check_learner_statistics_additive,
    check_learner_threads_do_not_change_results,
    check_learner_ranker_state_round_trip,
    check_learner_constant_data,
]
