"""``trees:bagging_temperature``: CatBoost's Bayesian bootstrap, against NumPy references.

Each tree is grown on w·g and w·h, w_r = (−log U_r)^T with U_r drawn from the tree's seed and row r's
position in the training set.  Checked here: the weights against a reference written with Python
integers, their distribution and independence from the blocks; that a tree grown with weights is the
tree grown without them on pre-weighted g and h (both routes, every growth); that the two routes and
any split into blocks agree; that T = 0 is the unweighted fit bit for bit; the parameter's validation;
and that a fit is a function of its ``random_state``.
"""

import copy
import math

import numpy as np
import pytest

import rankcore
from rankcore.learners._base import multi_pass_search
from rankcore.learners.trees._row_draws import bagging_weights
from rankcore.registry import SpecError, resolve
from _tree_references import route_statistics
from test_tree_grow import _data

_ARRAYS = ("feature", "threshold", "nan_left", "left", "right", "value", "gain", "bins")


def _tree_state(candidate):
    """Every array of the candidate's tree (node or oblivious) and its derivative, as bytes."""
    if candidate is None:
        return None
    r = candidate.ranker
    arrays = [np.asarray(getattr(r, name)) for name in _ARRAYS if getattr(r, name, None) is not None]
    return tuple(a.tobytes() for a in arrays) + (np.float64(candidate.derivative).tobytes(),)

M64 = (1 << 64) - 1


def _reference_weights(seed, rows, temperature):
    """w_r = (−log U_r)^T, U_r = (top 53 bits of splitmix64(position + (seed ^ salt)·golden) + ½) / 2^53."""
    out = []
    for r in rows:
        z = (int(r) + ((int(seed) ^ 0xD1B54A32D192ED03) * 0x9E3779B97F4A7C15)) & M64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        z ^= z >> 31
        u = ((z >> 11) + 0.5) / 2.0**53
        out.append((-math.log(u)) ** temperature)
    return np.array(out)


# ----------------------------------------------------------------------
# The weights
# ----------------------------------------------------------------------
@pytest.mark.parametrize("temperature", [1.0, 0.5, 3.0, 1e-3])
@pytest.mark.parametrize("seed", [0, 7, 2**62 - 1])
def test_bagging_weights_equal_the_integer_reference(seed, temperature):
    rows = np.r_[0, 1, 2, 999, 2**31 + 5, np.arange(40, 60)].astype(np.int64)
    np.testing.assert_allclose(bagging_weights(seed, rows, temperature), _reference_weights(seed, rows, temperature),
                               rtol=1e-14, atol=0)


def test_bagging_weights_are_exponential_at_temperature_one_and_keyed_by_seed_and_position():
    rows = np.arange(200_000, dtype=np.int64)
    w = bagging_weights(3, rows, 1.0)
    assert np.all(np.isfinite(w)) and np.all(w > 0)
    assert abs(w.mean() - 1.0) < 0.01 and abs(w.var() - 1.0) < 0.03            # Exp(1)
    assert abs(np.mean(w > 1.0) - math.exp(-1.0)) < 0.005
    # T scales log w: (−log U)^T
    np.testing.assert_allclose(bagging_weights(3, rows, 0.5), np.sqrt(w), rtol=1e-12)
    # a row's weight is a function of (seed, position): any slice of positions reads the same weights
    np.testing.assert_array_equal(bagging_weights(3, rows[1000:1500], 1.0), w[1000:1500])
    other = bagging_weights(4, rows, 1.0)
    assert abs(np.corrcoef(w, other)[0, 1]) < 0.01
    # independent of the subsample's draw from the same seed (which hashes the seed without the salt)
    from rankcore.learners.trees._row_draws import row_hash
    keep = row_hash(3, rows) < np.uint64(int(0.8 * 2.0**64 - 1))
    assert abs(w[keep].mean() - w[~keep].mean()) < 0.02


# ----------------------------------------------------------------------
# Trees
# ----------------------------------------------------------------------
SPECS = [
    "trees:subsample=1,bagging_temperature=1",
    "trees:bagging_temperature=0.5",                                     # on top of the 80 % row sample
    "trees:max_leaves=7,max_depth=3,min_samples_leaf=3,bagging_temperature=2,random_strength=1",
    "trees:growth=depthwise,max_leaves=12,colsample=0.7,bagging_temperature=1",
    "trees:growth=oblivious,max_depth=4,random_strength=1,bagging_temperature=1",
    "trees:growth=oblivious,max_depth=6,subsample=1,l2=1,bagging_temperature=0.3",
]


def _without_bagging(spec):
    name, params = spec.split(":")
    kept = [p for p in params.split(",") if not p.startswith("bagging_temperature")]
    return name + (":" + ",".join(kept) if kept else "")


def _temperature(spec):
    return float([p for p in spec.split(":")[1].split(",") if p.startswith("bagging_temperature")][0].split("=")[1])


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("curvature", ["ones", "hessian"])
def test_bagged_tree_equals_the_tree_grown_on_preweighted_statistics(spec, curvature):
    """Each tree of the bagged layout is the plain layout's tree on w·g, w·h (w from the same tree's seed),
    by both routes; the seeds are the layouts' draws, equal for equal random_state."""
    X = _data(3)
    n = X.shape[0]
    gradients, curvatures = route_statistics(n, 4, curvature)
    T = _temperature(spec)
    bagged = resolve("learner", spec).prepare(X, random_state=5)
    plain = resolve("learner", _without_bagging(spec)).prepare(X, random_state=5)
    bagged_p = resolve("learner", spec).prepare(X, random_state=5)
    plain_p = resolve("learner", _without_bagging(spec)).prepare(X, random_state=5)
    blocks = {id(lay): lay.encode(X) for lay in (bagged, plain, bagged_p, plain_p)}
    rows = np.arange(n, dtype=np.int64)
    grown = 0
    for g, h in zip(gradients, curvatures):
        # the seed the next search draws (``_draw_tree``): read from a copy of the layout's generator
        seed = int(copy.deepcopy(bagged._rng).integers(0, 2**62))
        w = bagging_weights(seed, rows, T)
        np.testing.assert_allclose(w, _reference_weights(seed, rows, T), rtol=1e-14)
        a = bagged.search_in_memory([blocks[id(bagged)]], [g], [h])
        b = plain.search_in_memory([blocks[id(plain)]], [w * g], [w * h])
        c = multi_pass_search(bagged_p, [blocks[id(bagged_p)]], [g], [h])
        d = multi_pass_search(plain_p, [blocks[id(plain_p)]], [w * g], [w * h])
        assert _tree_state(a) == _tree_state(b) == _tree_state(c) == _tree_state(d)
        grown += a is not None
    assert grown >= 3


@pytest.mark.parametrize("spec", SPECS)
def test_bagged_trees_do_not_depend_on_the_blocks(spec):
    """The weights follow the rows' positions: three blocks grow the tree of one (up to the rounding of the
    histograms' sums across blocks)."""
    X = _data(8, n=600)
    gradients, curvatures = route_statistics(X.shape[0], 3, "hessian")
    one = resolve("learner", spec).prepare(X, random_state=1)
    three = resolve("learner", spec).prepare(X, random_state=1)
    cuts = [0, 150, 420, 600]
    block = one.encode(X)
    blocks = [three.encode(X[a:b], offset=a) for a, b in zip(cuts[:-1], cuts[1:])]
    for g, h in zip(gradients, curvatures):
        a = one.search_in_memory([block], [g], [h])
        b = multi_pass_search(three, blocks, [g[x:y] for x, y in zip(cuts[:-1], cuts[1:])],
                              [h[x:y] for x, y in zip(cuts[:-1], cuts[1:])])
        assert (a is None) == (b is None)
        if a is None:
            continue
        for name in ("feature", "threshold", "nan_left", "left", "right"):
            if getattr(a.ranker, name, None) is None:
                continue
            np.testing.assert_array_equal(getattr(a.ranker, name), getattr(b.ranker, name))
        np.testing.assert_allclose(a.ranker.value, b.ranker.value, rtol=1e-9, atol=1e-12)


def _fit_scores(X, y, qid, spec, random_state=0, **kw):
    model = rankcore.boost(learner=spec, n_iter=25, random_state=random_state, n_jobs=1, **kw).fit(X, y, qid=qid)
    return model, model.decision_function(X)


def _small_queries(seed=0, n_q=30):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 40, n_q)
    qid = np.repeat(np.arange(n_q), sizes)
    X = rng.normal(size=(qid.shape[0], 5))
    X[:, 0] = np.round(X[:, 0], 1)                                       # ties
    y = np.clip(np.round(X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=qid.shape[0])), 0, 3)
    return X, y, qid


@pytest.mark.parametrize("learner", ["trees", "trees:growth=leafwise,max_leaves=8"])
def test_zero_temperature_is_the_unweighted_fit_bit_for_bit(learner):
    X, y, qid = _small_queries(1)
    sep = ":" if ":" not in learner else ","
    plain, s_plain = _fit_scores(X, y, qid, learner)
    zero, s_zero = _fit_scores(X, y, qid, f"{learner}{sep}bagging_temperature=0")
    np.testing.assert_array_equal(s_plain, s_zero)
    assert [r.value.tobytes() for r in plain.rankers_] == [r.value.tobytes() for r in zero.rankers_]
    np.testing.assert_array_equal(plain.alphas_, zero.alphas_)


def test_bagged_fit_is_a_function_of_its_random_state():
    X, y, qid = _small_queries(2)
    spec = "trees:bagging_temperature=1,subsample=1"
    _, a = _fit_scores(X, y, qid, spec, random_state=3)
    _, b = _fit_scores(X, y, qid, spec, random_state=3)
    _, c = _fit_scores(X, y, qid, spec, random_state=4)
    _, plain = _fit_scores(X, y, qid, "trees:subsample=1", random_state=3)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert not np.array_equal(a, plain)


def test_bagged_fit_on_an_outcome_set_descends():
    """Without queries too (the exp push of pow:2): the weighted trees still fit the training rows."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=400) > 0.5).astype(int)
    model = rankcore.boost(learner="trees:bagging_temperature=1", n_iter=20, random_state=0).fit(X, y)
    auc = rankcore.evaluate(y, model.decision_function(X), ["auc"])["auc"]
    assert auc > 0.85


@pytest.mark.parametrize("value, match", [("-1", "bagging_temperature"), ("nan", "bagging_temperature"),
                                          ("inf", "bagging_temperature"),
                                          ("101", "bagging_temperature")])
def test_bad_bagging_temperature_is_refused_by_name(value, match):
    with pytest.raises((SpecError, ValueError), match=match):
        resolve("learner", f"trees:bagging_temperature={value}")


def test_the_largest_temperature_keeps_every_weight_finite():
    w = bagging_weights(1, np.arange(100_000, dtype=np.int64), 100.0)
    assert np.all(np.isfinite(w)) and np.all(w >= 0)
    # the extremes of U: the hash's largest and smallest top 53 bits
    u = (np.array([0.0, 2.0**53 - 1]) + 0.5) * 2.0**-53
    assert np.all(np.isfinite((-np.log(u)) ** 100.0))


def test_bagging_with_leaf_newton_steps_is_refused_by_name():
    with pytest.raises((SpecError, ValueError), match="bagging_temperature.*leaf_newton_steps"):
        resolve("learner", "trees:bagging_temperature=1,leaf_newton_steps=2")
    resolve("learner", "trees:bagging_temperature=0,leaf_newton_steps=2")            # off: no conflict


def test_bagged_layout_reports_an_estimated_derivative():
    X = _data(0, n=50)
    assert resolve("learner", "trees:subsample=1,bagging_temperature=1").prepare(X, random_state=0).sampled_derivative
    assert not resolve("learner", "trees:subsample=1").prepare(X, random_state=0).sampled_derivative


# ----------------------------------------------------------------------
# By query (bagging_unit="query")
# ----------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["trees:subsample=1,bagging_temperature=1,bagging_unit=query",
                                  "trees:growth=oblivious,max_depth=4,random_strength=1,bagging_temperature=0.5,"
                                  "bagging_unit=query"])
def test_bagged_by_query_tree_equals_the_tree_grown_on_query_weighted_statistics(spec):
    """Every row of a query takes the query's weight, bagging_weights(seed, query index): the tree is the plain
    layout's tree on those pre-weighted g and h, by both routes."""
    X = _data(4)
    n = X.shape[0]
    codes = np.sort(np.random.default_rng(0).integers(0, 40, n))          # 40 queries, in row order
    gradients, curvatures = route_statistics(n, 3, "hessian")
    T = _temperature(spec)
    plain_spec = _without_bagging(spec).replace(",bagging_unit=query", "")
    layouts = [resolve("learner", s).prepare(X, random_state=2) for s in (spec, plain_spec, spec, plain_spec)]
    for lay in layouts[::2]:
        assert lay.wants_row_groups
        lay.set_row_groups(codes)
    blocks = [lay.encode(X) for lay in layouts]
    for g, h in zip(gradients, curvatures):
        seed = int(copy.deepcopy(layouts[0]._rng).integers(0, 2**62))
        w = bagging_weights(seed, np.arange(40, dtype=np.int64), T)[codes]
        np.testing.assert_allclose(w, _reference_weights(seed, codes, T), rtol=1e-14)
        a = layouts[0].search_in_memory([blocks[0]], [g], [h])
        b = layouts[1].search_in_memory([blocks[1]], [w * g], [w * h])
        c = multi_pass_search(layouts[2], [blocks[2]], [g], [h])
        d = multi_pass_search(layouts[3], [blocks[3]], [w * g], [w * h])
        assert a is not None and _tree_state(a) == _tree_state(b) == _tree_state(c) == _tree_state(d)


def test_bagged_by_query_fit_is_repeatable_and_differs_from_by_row():
    X, y, qid = _small_queries(3)
    by_query = "trees:bagging_temperature=1,bagging_unit=query,subsample=1"
    _, a = _fit_scores(X, y, qid, by_query, random_state=1)
    _, b = _fit_scores(X, y, qid, by_query, random_state=1)
    _, rows = _fit_scores(X, y, qid, "trees:bagging_temperature=1,subsample=1", random_state=1)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, rows)
    # bagging_unit means nothing without a temperature: the unweighted fit
    _, off = _fit_scores(X, y, qid, "trees:bagging_unit=query,subsample=1", random_state=1)
    _, plain = _fit_scores(X, y, qid, "trees:subsample=1", random_state=1)
    np.testing.assert_array_equal(off, plain)


def test_bagging_by_query_without_queries_is_refused_by_name():
    X = _data(0, n=200)
    y = (np.nan_to_num(X[:, 0]) > 0).astype(int)
    with pytest.raises(ValueError, match="bagging_unit='query'"):
        rankcore.boost(learner="trees:bagging_temperature=1,bagging_unit=query", n_iter=3).fit(X, y)


def test_bad_bagging_unit_is_refused_by_name():
    with pytest.raises((SpecError, ValueError), match="bagging_unit"):
        resolve("learner", "trees:bagging_unit=group")
    layout = resolve("learner", "trees:bagging_temperature=1,bagging_unit=query").prepare(_data(0, n=50))
    with pytest.raises(ValueError, match="query index per row"):
        layout.set_row_groups(np.array([0.5, 1.0]))
