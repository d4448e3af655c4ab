"""``trees:leaf_newton_steps``: k Newton steps on each tree's leaf values, its splits fixed.

Against a NumPy reference of the k iterations on the same leaf partition
(the objective's gradient and curvature at the scores moved by the whole
leaf values, summed per leaf over the tree's rows), on a separable
objective in one and several blocks, a whole-vector one and the per-query
push; the objective after the tree; the parameter's validation.
"""

import numpy as np
import pytest

import rankcore
from _query_data import graded_queries
from rankcore.learners.trees._learner import Trees
from rankcore.metrics._queries import check_qid
from rankcore.push._backend import InMemoryBackend
from rankcore.push._driver import run_boosting
from rankcore.registry import resolve
from rankcore.spec import SpecError

L2 = 0.01


def _single_list(seed=0, n=300):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = ((X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.7, size=n)) > 0.6).astype(np.int8)
    return X, y, None


def _bind(spec, y, qid):
    objective = resolve("objective", spec)
    if qid is None:
        return objective, objective.bind(y)
    return objective, objective.bind(y, queries=check_qid(qid, y.shape[0]))


def _first_tree(spec, X, y, qid, steps, growth, subsample=1.0, block_rows=None, learning_rate=0.1):
    """The first tree of a fit with ``steps`` leaf Newton steps, and the backend (scores after it)."""
    objective, problem = _bind(spec, y, qid)
    learner = Trees(growth=growth, max_depth=3, max_leaves=8, min_samples_leaf=5, subsample=subsample, l2=L2,
                    line_search=False, leaf_newton_steps=steps, learning_rate=learning_rate)
    layout = learner.prepare(X, random_state=3)
    backend = InMemoryBackend(problem, layout, X, y, block_rows=block_rows)
    result = run_boosting(backend, layout, n_iter=1, log_value=objective.log_value)
    assert len(result.records) == 1
    return result.records[0], backend, layout, problem


def _reference(problem, leaf, kept, v, steps):
    """``steps`` Newton iterations v ← v − (G + λv)/(H + λ), G and H summed per leaf over the kept rows."""
    v = v.copy()
    for _ in range(steps):
        _, g, h = problem.value_gradient_hessian(v[leaf])
        G = np.bincount(leaf[kept], weights=g[kept], minlength=v.shape[0])
        H = np.bincount(leaf[kept], weights=h[kept], minlength=v.shape[0])
        v = v - (G + L2 * v) / (H + L2)
    return v


CASES = {
    "exp push, one block": ("push:exp,pow:4", None, "oblivious"),
    "exp push, four blocks": ("push:exp,pow:4", [70, 80, 90, 60], "oblivious"),
    "exp push, leaf-wise": ("push:exp,pow:2", None, "leafwise"),
    "logistic push (whole vector)": ("push:logistic,pow:2", None, "depthwise"),
    "per-query push": ("push:exp,identity,gain_weighted=true", None, "oblivious"),
}


@pytest.mark.parametrize("steps", [2, 3, 5], ids=lambda k: f"steps={k}")
@pytest.mark.parametrize("subsample", [1.0, 0.7], ids=lambda s: f"subsample={s}")
@pytest.mark.parametrize("case", CASES)
def test_leaf_newton_steps_match_a_numpy_reference_on_the_same_leaves(case, subsample, steps):
    spec, blocks, growth = CASES[case]
    X, y, qid = graded_queries(0) if "query" in case else _single_list()
    one, _, layout, problem = _first_tree(spec, X, y, qid, 1, growth, subsample, blocks)
    more, _, _, _ = _first_tree(spec, X, y, qid, steps, growth, subsample, blocks)
    # the same splits: only the leaf values move
    for field in ("feature", "threshold", "nan_left") + (("left", "right") if growth != "oblivious" else ()):
        np.testing.assert_array_equal(getattr(one.ranker, field), getattr(more.ranker, field))
    values = np.asarray(one.ranker.values)
    h1 = one.ranker.predict(X)
    leaf = np.searchsorted(values, h1)
    block = layout.encode(X)
    rows_leaf, kept = layout.leaf_rows(one.ranker, block)
    np.testing.assert_array_equal(rows_leaf, leaf)
    kept = np.ones(y.shape[0], dtype=bool) if kept is None else kept
    assert kept.mean() == pytest.approx(subsample, abs=0.1)
    # the kept rows are the tree's own: its first step is -G/(H + λ) over them at f = 0
    _, g, h = problem.value_gradient_hessian(np.zeros(y.shape[0]))
    G = np.bincount(leaf[kept], weights=g[kept], minlength=values.shape[0])
    H = np.bincount(leaf[kept], weights=h[kept], minlength=values.shape[0])
    np.testing.assert_allclose(values, -G / (H + L2), rtol=1e-9, atol=1e-12)
    want = _reference(problem, leaf, kept, values, steps - 1)
    np.testing.assert_allclose(more.ranker.predict(X), want[leaf], rtol=1e-8, atol=1e-10)
    # and a step actually moved them
    assert np.max(np.abs(want - values)) > 1e-3
    assert more.alpha == one.alpha == pytest.approx(0.1)


@pytest.mark.parametrize("case", CASES)
def test_leaf_newton_steps_lower_the_objective_after_the_tree(case):
    spec, blocks, growth = CASES[case]
    X, y, qid = graded_queries(1) if "query" in case else _single_list(1)
    after = []
    for steps in (1, 2, 4):
        _, backend, _, problem = _first_tree(spec, X, y, qid, steps, growth, 1.0, blocks, learning_rate=1.0)
        after.append(problem.value_gradient_hessian(backend.scores)[0])
    assert after[1] <= after[0] + 1e-12
    assert after[2] <= after[0] + 1e-12


def test_leaf_newton_steps_one_is_the_plain_fit():
    X, y, qid = graded_queries(2)
    plain = rankcore.boost(learner="trees", n_iter=15, random_state=0, n_jobs=1).fit(X, y, qid=qid)
    one = rankcore.boost(learner="trees:leaf_newton_steps=1", n_iter=15, random_state=0, n_jobs=1).fit(
        X, y, qid=qid)
    np.testing.assert_array_equal(plain.decision_function(X), one.decision_function(X))
    two = rankcore.boost(learner="trees:leaf_newton_steps=2", n_iter=15, random_state=0, n_jobs=1).fit(
        X, y, qid=qid)
    assert "leaf_newton_steps=2" in two.learner_spec_
    assert "line_search=false" in two.learner_spec_ and "oblivious" in two.learner_spec_   # the query defaults kept
    assert not np.allclose(two.decision_function(X), plain.decision_function(X))


def test_leaf_newton_steps_with_the_line_search_refine_the_direction_it_searches():
    X, y, _ = _single_list(3)
    model = rankcore.boost(learner="trees:max_leaves=4,subsample=1,leaf_newton_steps=3", n_iter=5,
                           random_state=0, n_jobs=1).fit(X, y)
    assert model.n_iter_ == 5
    assert np.all(np.diff(model.objective_values_) <= 0)


def test_leaf_newton_steps_save_and_load(tmp_path):
    X, y, qid = graded_queries(3)
    model = rankcore.boost(learner="trees:leaf_newton_steps=3", n_iter=10, random_state=0, n_jobs=1).fit(
        X, y, qid=qid)
    path = tmp_path / "model.json"
    rankcore.save_model(model, path)
    np.testing.assert_array_equal(rankcore.load_model(path).decision_function(X), model.decision_function(X))


@pytest.mark.parametrize("value", ["0", "-1", "1.5", "two"])
def test_leaf_newton_steps_must_be_an_integer_of_at_least_one(value):
    with pytest.raises(SpecError, match="leaf_newton_steps"):
        resolve("learner", f"trees:leaf_newton_steps={value}")


def test_leaf_newton_steps_need_a_curvature():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="leaf_newton_steps > 1 .* need a curvature"):
        rankcore.boost(objective="prec@k-avg:5", learner="trees:leaf_newton_steps=2", n_iter=2).fit(X, y)


def test_leaf_newton_steps_need_a_backend_that_takes_them():
    X, y, _ = _single_list()
    layout = Trees(leaf_newton_steps=2).prepare(X, random_state=0)
    with pytest.raises(ValueError, match="leaf_newton_steps=2: this backend"):
        run_boosting(object(), layout, n_iter=1, log_value=True)
