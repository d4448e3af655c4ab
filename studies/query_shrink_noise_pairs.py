"""The forty-first session's candidates for the default per-query ranker (``query_defaults_study.py --shrink-noise``).

* Model shrinkage (CatBoost's ``model_shrink_rate`` in its "Constant" mode): before each new tree the model's
  scores are multiplied by 1 − η·s (η the learning rate), so the model is Σ_t c_t·tree_t with
  c_t = η·(1 − η·s)^(T − t) -- :func:`shrunk`.
* Gradient noise in the manner of stochastic gradient Langevin boosting (A. Ustimenko and L. Prokhorenkova, "SGLB:
  Stochastic Gradient Langevin Boosting", 2021): Gaussian noise added to each row's gradient before each tree's
  search -- :func:`gaussian_noise_terms`, a term of the study's ``_Listwise`` path.
* A pairwise logistic term (RankNet's loss; C. Burges et al., "Learning to Rank using Gradient Descent", 2005)
  over the pairs of differing grades within each query -- :func:`pairlogit_terms`, a term of the same path.

The module holds the candidates' own code only; ``query_defaults_study.py`` registers them as study models.
"""

from __future__ import annotations

import math

import numpy as np


def ranked_rows(codes, y):
    """Per row: whether its query holds two grades or more (a query of one grade has no order to learn)."""
    n_q = int(codes.max()) + 1
    top, low = np.full(n_q, -np.inf), np.full(n_q, np.inf)
    np.maximum.at(top, codes, y)
    np.minimum.at(low, codes, y)
    return (top > low)[codes]


def _shrinking_boosting(rate, trace=None):
    """A stand-in for the driver's loop (Newton steps, no line search) with model shrinkage at ``rate`` = s.

    Before each tree after the first, the training scores are multiplied in place by ρ = 1 − η·s and the
    backend's caches of the old scores dropped; the new tree is grown at the shrunk scores and added with η.  The
    records' coefficients are η·ρ^(shrinks after the tree), so the fitted model's scores are the loop's
    (``trace``, a list, receives the final training scores for the tests).  O(n) extra work per tree.
    Like the driver's other stand-ins, it takes ``fixed_value`` and has no ``"diverged"`` stop (its J moves).
    """
    def run(backend, layout, *, n_iter, log_value, has_value=True, fixed_value=True, tol=0.0, max_step=None,
            callback=None):
        import dataclasses
        from rankcore.push._driver import BoostingRecord, BoostingResult, _next_candidate

        if has_value and getattr(layout, "line_search", True):
            raise ValueError("the study's model shrinkage runs Newton steps without a line search only")
        eta = float(getattr(layout, "shrinkage", 1.0))
        rho = 1.0 - eta * rate
        scores = backend._scores
        result = BoostingResult(initial_value=math.nan)
        shrinks, before = 0, []
        for iteration in range(1, n_iter + 1):
            if iteration > 1 and rho != 1.0:
                scores *= rho
                shrinks += 1
                backend._h_cache = backend._grad_cache = backend._summary = backend._next_stages = None
            state = backend.objective_state()
            candidate = _next_candidate(backend, layout, state, result, iteration, tol, 1)
            if candidate is None:
                break
            backend.apply_update(candidate.ranker, eta)
            # the staged path would carry the objective's stages past the step: recomputed from the scores instead
            backend._next_stages = None
            record = BoostingRecord(iteration, candidate.ranker, eta, math.nan, float(candidate.derivative), 0)
            result.records.append(record)
            before.append(shrinks)
            if callback is not None and (reason := callback(record)):
                result.stop_reason = str(reason)
                break
        result.records = [dataclasses.replace(r, alpha=r.alpha * rho ** (shrinks - b))
                          for r, b in zip(result.records, before)]
        if trace is not None:
            trace.append(scores.copy())
        return result

    return run


def shrunk(rate, random_state=0, trace=None):
    """The library's default with model shrinkage at ``rate`` (:func:`_shrinking_boosting`): a study model."""
    def fit(X, y, qid, threads):
        import rankcore
        import rankcore.push._boost_base as estimators

        original = estimators.run_boosting
        estimators.run_boosting = _shrinking_boosting(rate, trace)
        try:
            model = rankcore.boost(learner="trees", n_jobs=threads, random_state=random_state).fit(X, y, qid=qid)
        finally:
            estimators.run_boosting = original
        return model.decision_function

    return fit


def gaussian_noise_terms(y, codes):
    """Langevin-style gradient noise as a study term: ``terms(scores, rng)`` -> (ν, 0), ν ~ N(0, 1) per row of the
    queries of two grades or more (0 elsewhere, where the push has no gradient either), drawn afresh at each call
    (once per tree) from ``rng``.  The study's path scales ν by c = ‖g_push(0)‖₁ / ‖ν₀‖₁, so at weight w the
    noise's mean |·| per row is w times the push's at f = 0.  The Hessian is left alone (Newton leaves divide by
    the objective's own).  O(n) a call.
    """
    ranked = ranked_rows(codes, y)

    def terms(scores, rng):
        return np.where(ranked, rng.standard_normal(scores.shape[0]), 0.0), np.zeros_like(scores)

    return terms


def pairlogit_terms(y, codes):
    """The pairwise logistic loss's gradient and Hessian diagonal per row: ``terms(scores, rng)`` -> (g, h).

    Per query, every pair with y_i > y_j adds log(1 + exp(−(f_i − f_j))); with e = σ(f_j − f_i), row i gets
    −e, row j +e in g and both e(1 − e) in h.  Unweighted (every pair of differing grades alike).  The pairs are
    listed once at the start: O(P) time and memory a call for the P pairs, quadratic in a query's length (a
    logistic pair term does not factor the way the push's exponential one does, so no sort gives it in O(n log n)
    exactly); ``rng`` is unused.
    """
    from scipy.special import expit

    upper, lower = [], []
    for q in np.unique(codes[ranked_rows(codes, y)]):
        rows = np.flatnonzero(codes == q)
        i, j = np.nonzero(y[rows][:, None] > y[rows][None, :])
        upper.append(rows[i])
        lower.append(rows[j])
    upper = np.concatenate(upper) if upper else np.empty(0, dtype=np.intp)
    lower = np.concatenate(lower) if lower else np.empty(0, dtype=np.intp)

    def terms(scores, rng):
        e = expit(scores[lower] - scores[upper])
        curv = e * (1.0 - e)
        n = scores.shape[0]
        g = np.bincount(lower, e, minlength=n) - np.bincount(upper, e, minlength=n)
        return g, np.bincount(upper, curv, minlength=n) + np.bincount(lower, curv, minlength=n)

    return terms
