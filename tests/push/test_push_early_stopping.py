"""Early stopping of the push estimators: the split rule, the small-data fallback, the best iteration kept."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore import PushBoost
from rankcore.push._validation import (
    CV_FOLDS,
    CV_SLACK,
    MIN_HOLDOUT_ROWS,
    MIN_VALIDATION_CLASS,
    MIN_VALIDATION_ROWS,
    holdout_rows,
    holdout_size,
    patience,
    plan_validation,
    selected_iteration,
)


def _labels(n, n_pos, seed=0):
    y = np.zeros(n, dtype=np.int8)
    y[np.random.default_rng(seed).choice(n, n_pos, replace=False)] = 1
    return y


def _data(seed, n=400, d=5):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 + rng.standard_normal(n) > 1.0).astype(int)
    return X, y


# ---------------------------------------------------------------------------
# the split rule
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n, fraction, n_pos, expected",
    [
        (10_000, 0.1, 3_000, 1_000),     # the fraction itself
        (200, 0.1, 100, 50),             # the row floor
        (1_000, 0.1, 40, 250),           # 10 positives need a quarter of the rows
        (1_000, 0.1, 980, 500),          # ... or of negatives
        (300, 0.1, None, 50),            # graded: rows only
    ],
)
def test_holdout_size_floors(n, fraction, n_pos, expected):
    assert holdout_size(n, fraction, n_pos) == expected


@settings(deadline=None, max_examples=60)
@given(n=st.integers(20, 3000), share=st.floats(0.02, 0.98), fraction=st.floats(0.05, 0.5), seed=st.integers(0, 99))
def test_plan_is_a_large_enough_stratified_holdout_or_stratified_folds(n, share, fraction, seed):
    n_pos = min(n - 2, max(2, round(share * n)))
    y = _labels(n, n_pos, seed)
    plan = plan_validation(y, fraction, seed, stratify=True)
    if plan.kind == "holdout":
        (tr, va), = plan.folds
        assert va.shape[0] == math.ceil(fraction * n)
        assert va.shape[0] >= MIN_VALIDATION_ROWS
        # stratified: each class within one row of its share; hence the class floors (up to rounding)
        assert abs(int(y[va].sum()) - n_pos * va.shape[0] / n) <= 1
        assert y[va].sum() >= MIN_VALIDATION_CLASS - 1 and (1 - y[va]).sum() >= MIN_VALIDATION_CLASS - 1
    else:
        assert plan.kind == "cv"
        assert len(plan.folds) == min(CV_FOLDS, n_pos, n - n_pos)
        assert holdout_size(n, fraction, n_pos) > math.ceil(fraction * n)
        every_val = np.concatenate([va for _, va in plan.folds])
        np.testing.assert_array_equal(np.sort(every_val), np.arange(n))      # each row validated once
        for tr, va in plan.folds:
            assert np.intersect1d(tr, va).size == 0 and tr.size + va.size == n
            assert y[va].sum() >= 1 and (1 - y[va]).sum() >= 1
    for tr, va in plan.folds:
        assert np.all(np.diff(tr) > 0) and np.all(np.diff(va) > 0)


def test_plan_depends_on_the_seed_only():
    y = _labels(5000, 1500)
    a = plan_validation(y, 0.1, 3, stratify=True)
    b = plan_validation(y, 0.1, 3, stratify=True)
    c = plan_validation(y, 0.1, 4, stratify=True)
    assert a.kind == "holdout"
    np.testing.assert_array_equal(a.folds[0][1], b.folds[0][1])
    assert not np.array_equal(a.folds[0][1], c.folds[0][1])


@settings(deadline=None, max_examples=80)
@given(n=st.integers(2, 2000), share=st.floats(0.0, 1.0), fraction=st.floats(0.01, 0.99), stratify=st.booleans(),
       seed=st.integers(0, 99))
def test_holdout_rows_cover_the_rows_once_and_keep_each_class_share(n, share, fraction, stratify, seed):
    y = _labels(n, min(n, round(share * n)), seed)
    n_val = min(n, max(1, math.ceil(fraction * n)))
    train, val = holdout_rows(y, n_val, np.random.default_rng(seed), stratify=stratify)
    assert val.shape == (n_val,)
    assert np.all(np.diff(train) > 0) and np.all(np.diff(val) > 0)      # ascending, no repeats
    np.testing.assert_array_equal(np.sort(np.concatenate([train, val])), np.arange(n))
    if stratify:
        # the reference: each class within one row of its share of the validation rows
        n_pos = int(y.sum())
        assert abs(int(y[val].sum()) - n_pos * n_val / n) <= 1
        assert abs(int((1 - y[val]).sum()) - (n - n_pos) * n_val / n) <= 1


def test_holdout_rows_are_drawn_by_the_generator():
    y = _labels(5000, 400)
    a = holdout_rows(y, 500, np.random.default_rng(7), stratify=True)[1]
    b = holdout_rows(y, 500, np.random.default_rng(7), stratify=True)[1]
    c = holdout_rows(y, 500, np.random.default_rng(8), stratify=True)[1]
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert int(y[a].sum()) == 40                              # 500 rows x 8 % positives
    # every row can be drawn: over many seeds the validation rows reach (nearly) all rows
    seen = np.zeros(5000, dtype=bool)
    for seed in range(60):
        seen[holdout_rows(y, 500, np.random.default_rng(seed), stratify=True)[1]] = True
    assert seen.mean() > 0.99


def test_tiny_data_fall_back_to_fewer_folds_and_fail_clearly():
    y = _labels(30, 3)
    plan = plan_validation(y, 0.1, 0, stratify=True)
    assert plan.kind == "cv" and len(plan.folds) == 3
    with pytest.raises(ValueError, match="early_stopping: at least 2 rows of each class .* got 1"):
        plan_validation(_labels(30, 1), 0.1, 0, stratify=True)


def test_graded_targets_split_by_rows():
    grades = np.random.default_rng(0).random(1000)
    plan = plan_validation(grades, 0.1, 0, stratify=False)
    assert plan.kind == "holdout" and plan.folds[0][1].shape == (100,)
    small = plan_validation(grades[:120], 0.1, 0, stratify=False)
    assert small.kind == "cv" and len(small.folds) == CV_FOLDS


def test_patience_defaults_to_a_fifth_of_n_iter():
    assert patience(None, 100) == 20
    assert patience(None, 300) == 60
    assert patience(None, 20) == 10
    assert patience(7, 300) == 7


# ---------------------------------------------------------------------------
# the estimators keep the best iteration
# ---------------------------------------------------------------------------


def test_eval_set_early_stopping_keeps_the_best_prefix():
    X, y = _data(1, n=600)
    X_tr, y_tr, X_va, y_va = X[:400], y[:400], X[400:], y[400:]
    model = PushBoost(n_iter=200, early_stopping=True, n_iter_no_change=5, n_jobs=1).fit(
        X_tr, y_tr, eval_set=(X_va, y_va))
    full = PushBoost(n_iter=200, n_jobs=1).fit(X_tr, y_tr)
    auc = rankcore.resolve("metric", "auc")
    # index t = the scores after t iterations (t = 0: every score 0)
    staged = [auc(y_va, np.zeros(len(y_va)))] + [auc(y_va, s) for s in full.staged_decision_function(X_va)]
    run = np.asarray(staged[: model.best_iteration_ + 6])
    best = int(run.shape[0] - 1 - np.argmax(run[::-1]))          # the last maximum within the run
    assert model.best_iteration_ == model.n_iter_ == best
    np.testing.assert_array_equal(model.alphas_, full.alphas_[:best])
    assert model.validation_scores_[-1] == max(model.validation_scores_)


@pytest.mark.parametrize("n, fraction, kind", [(3000, 0.4, "holdout"), (3000, 0.1, "cv"), (160, 0.1, "cv")])
def test_internal_early_stopping_refits_the_best_iteration_on_all_rows(n, fraction, kind):
    X, y = _data(2, n=n)
    # early_stopping=True holds out only 1,000 rows or more: 10 % of 3,000 rows is cross-validated
    plan = plan_validation(y, fraction, 0, stratify=True, min_rows=MIN_HOLDOUT_ROWS)
    assert plan.kind == kind
    model = PushBoost(n_iter=60, early_stopping=True, validation_fraction=fraction, random_state=0,
                      n_jobs=1).fit(X, y)
    assert model.n_iter_ == model.best_iteration_ <= 60
    # the kept model is the first best_iteration_ iterations of a fit on every row
    refit = PushBoost(n_iter=60, random_state=0, n_jobs=1).fit(X, y)
    np.testing.assert_array_equal(model.alphas_, refit.alphas_[: model.n_iter_])
    assert model.rankers_ == refit.rankers_[: model.n_iter_]
    scores = model.validation_scores_
    assert scores.shape == (model.n_iter_,)
    if model.n_iter_ and kind == "holdout":
        assert scores[-1] == max(scores)           # one curve: its best entry (the last of ties) is kept


def test_cv_selection_averages_the_folds():
    X, y = _data(3, n=150)
    metric = rankcore.resolve("metric", "auc")
    model = PushBoost(n_iter=25, early_stopping=True, random_state=1, n_jobs=1).fit(X, y)
    plan = plan_validation(y, 0.1, 1, stratify=True)
    assert plan.kind == "cv"
    curves = []
    for tr, va in plan.folds:
        fold = PushBoost(n_iter=25, random_state=1, n_jobs=1).fit(X[tr], y[tr])
        curve = [metric(y[va], np.zeros(len(va)))] + [metric(y[va], s) for s in fold.staged_decision_function(X[va])]
        curves.append(curve + [curve[-1]] * (26 - len(curve)))
    curves = np.asarray(curves)
    mean = curves.mean(axis=0)
    # the largest count whose mean AUC loss is within CV_SLACK standard errors of the best mean
    losses = 1.0 - curves
    best = int(mean.shape[0] - 1 - np.argmax(mean[::-1]))
    se = losses[:, best].std(ddof=1) / np.sqrt(len(plan.folds))
    expected = max(t for t in range(26) if 1.0 - mean[t] <= 1.0 - mean[best] + CV_SLACK * se)
    assert model.best_iteration_ == expected == selected_iteration(losses) >= best
    np.testing.assert_allclose(model.validation_scores_, mean[1: model.n_iter_ + 1], rtol=1e-12)


def test_selected_iteration_takes_the_largest_count_within_the_slack():
    one = np.array([[0.5, 0.3, 0.2, 0.25, 0.2, 0.4]])
    assert selected_iteration(one) == 4                      # one curve: the last minimum
    folds = np.array([[0.5, 0.30, 0.20, 0.22, 0.220, 0.40],
                      [0.5, 0.32, 0.24, 0.22, 0.230, 0.40],
                      [0.5, 0.28, 0.22, 0.26, 0.222, 0.40]])
    mean = folds.mean(axis=0)                                # best mean at t = 2 (0.22), then 0.233, 0.224
    se = folds[:, 2].std(ddof=1) / np.sqrt(3)                # 0.0115...
    assert mean[4] <= mean[2] + CV_SLACK * se < mean[5]      # t = 4 is within the slack, 5 is not
    assert selected_iteration(folds) == 4


def test_selected_iteration_with_a_fold_whose_loss_reaches_minus_infinity():
    # scoring="objective" on a fold whose validation objective reaches 0 records log 0 = -inf from there on:
    # the best mean is -inf and its spread NaN, so no slack can be measured: that count is kept
    folds = np.array([[0.9, 0.9, 4.7, -np.inf, -np.inf],
                      [3.8, 11.2, 11.2, 11.2, 11.2]])
    assert selected_iteration(folds) == 4
    assert selected_iteration(folds[:, :3]) == 0


def test_early_stopping_is_deterministic_on_small_data():
    X, y = _data(4, n=120)
    a = PushBoost(n_iter=30, early_stopping=True, random_state=3, n_jobs=1).fit(X, y)
    b = PushBoost(n_iter=30, early_stopping=True, random_state=3, n_jobs=1).fit(X, y)
    np.testing.assert_array_equal(a.alphas_, b.alphas_)
    np.testing.assert_array_equal(a.validation_scores_, b.validation_scores_)


def test_n_iter_no_change_accepts_none_and_rejects_zero():
    X, y = _data(5, n=100)
    PushBoost(n_iter=3, early_stopping=True, n_iter_no_change=None, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="n_iter_no_change: expected an integer >= 1, got 0"):
        PushBoost(n_iter_no_change=0).fit(X, y)


def test_a_fold_without_the_weight_of_a_class_says_it_is_the_splits():
    # the folds are drawn by label, not by weight: zero-weight negatives can fill a fold's training part
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = np.array([1] * 20 + [0] * 10)
    w = np.ones(30)
    w[20:29] = 0.0                      # one negative of weight: some fold holds it out
    with pytest.raises(ValueError, match=r"early_stopping: the training rows of fold \d of \d+: .*zero total "
                                         r"negative weight; the split draws rows without regard to sample_weight"):
        PushBoost(n_iter=5, early_stopping=True, random_state=0).fit(X, y, sample_weight=w)


@pytest.mark.parametrize("n", [300, 12000], ids=["folds", "hold-out"])
def test_a_callback_stopping_the_refit_names_the_model(n):
    # early_stopping=True chooses the count, then refits on every row: a callback stopping that refit was
    # reported as 'early_stopping' with best_iteration_ beyond the model's own iterations
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0.3).astype(int)
    model = PushBoost(n_iter=40, early_stopping=True, random_state=0).fit(
        X, y, callbacks=lambda info: "time_budget" if info.iteration == 2 else None)
    assert model.stop_reason_ == "time_budget" and model.n_iter_ == 2
    assert model.best_iteration_ <= model.n_iter_


def _sixty_rows():
    """60 rows of 3 columns, the first deciding the class: folds of 48 rows, 38 of them drawn, split no tree."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    return X, (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)


def test_the_selection_fits_warnings_say_they_are_not_the_model():
    # On small data the folds that choose n_iter hold too few rows for a tree (48 rows, 80 % of them drawn: 38 <
    # 2 * 20) while the model's fit on every row splits: the folds' "the model is constant" was said of the model.
    X, y = _sixty_rows()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = rankcore.boost(learner="trees", n_iter=20, early_stopping=True, random_state=0).fit(X, y)
    assert model.n_iter_ > 1 and np.ptp(model.decision_function(X)) > 0
    said = [str(w.message) for w in caught if "boosting stopped" in str(w.message)]
    assert len(said) == 1, said                 # the five folds' one warning, said once
    assert said[0].startswith(f"early stopping's fit on the training rows of {CV_FOLDS} of its {CV_FOLDS} folds, "
                              "which chooses n_iter before the model is fitted on all the rows: boosting stopped at "
                              "iteration 1 (stop_reason_ = 'no_split')")


@pytest.mark.parametrize("within", [False, True])
def test_cross_validation_that_keeps_every_iteration_says_the_refits_reason(within):
    """Folds whose validation score rises to the last of n_iter iterations stop nothing: the model's stop_reason_ is
    the refit's ("n_iter"), not "early_stopping"; one that chose fewer says "early_stopping"."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + 0.3 * rng.normal(size=300) > 0.5).astype(int)
    kwargs = {"qid": np.repeat(np.arange(15), 20)} if within else {}
    if within:
        y = np.clip(np.round(X[:, 0] + 1), 0, 3)
    model = rankcore.boost(learner="trees", n_iter=3, early_stopping=True, random_state=0).fit(X, y, **kwargs)
    assert model.n_iter_ == 3 and model.stop_reason_ == "n_iter"
    noisy = rng.permutation(y)               # labels unrelated to X: validation stops improving early
    model = rankcore.boost(learner="trees", n_iter=60, early_stopping=True, random_state=0).fit(X, noisy, **kwargs)
    assert model.n_iter_ < 60 and model.stop_reason_ == "early_stopping"


@pytest.mark.parametrize("within", [False, True])
@pytest.mark.parametrize("fraction, kind", [(0.5, "holdout"), (0.1, "cv")])
def test_selection_that_keeps_every_iteration_says_what_ended_the_refit(within, fraction, kind):
    """A hold-out (as cross-validation) that keeps every iteration stopped nothing: the model's stop_reason_ is what
    ended the refit that made it -- here a callback at its last iteration -- not the hold-out fit's ("n_iter")."""
    from rankcore.metrics import check_qid
    from rankcore.push._validation import MIN_HOLDOUT_ROWS, plan_query_validation, plan_validation

    rng = np.random.default_rng(0)
    n = 2_400
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + rng.normal(size=n) > 0.5).astype(int)
    kwargs = {"qid": np.repeat(np.arange(n // 12), 12)} if within else {}
    if within:
        y = np.clip(np.round(X[:, 0] + rng.normal(size=n) + 1), 0, 3)
        plan = plan_query_validation(check_qid(kwargs["qid"], n), fraction, 0, min_rows=MIN_HOLDOUT_ROWS)
    else:
        plan = plan_validation(y, fraction, 0, stratify=True, min_rows=MIN_HOLDOUT_ROWS)
    assert plan.kind == kind                       # the path this case is about

    def stop_at_the_last(info):
        return "mine" if info.iteration == 5 else None

    params = dict(learner="trees", n_iter=5, early_stopping=True, validation_fraction=fraction, random_state=0)
    model = rankcore.boost(**params).fit(X, y, callbacks=[stop_at_the_last], **kwargs)
    assert (model.n_iter_, model.best_iteration_, model.stop_reason_) == (5, 5, "mine")
    model = rankcore.boost(**params).fit(X, y, **kwargs)
    assert (model.n_iter_, model.stop_reason_) == (5, "n_iter")


def test_the_selection_fits_warnings_survive_an_error_and_say_when_their_numbers_differ():
    from types import SimpleNamespace

    from rankcore.push._validation import selection_fit_warnings

    plan = SimpleNamespace(kind="cv", folds=[None] * 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match="a fold failed"):
            with selection_fit_warnings(plan):
                warnings.warn("column 2 is constant", UserWarning)
                raise RuntimeError("a fold failed")
    # held warnings were lost when a fold's fit raised: said before the error goes on
    assert [str(w.message) for w in caught] == [
        "early stopping's fit on the training rows of 1 of its 3 folds, which chooses n_iter before the model is "
        "fitted on all the rows: column 2 is constant"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with selection_fit_warnings(plan):
            warnings.warn("column 2 is constant", UserWarning)
            warnings.warn("column 5 is constant", UserWarning)
    # one kind, but not all said "column 2": the message says it shows the first
    assert [str(w.message) for w in caught] == [
        "early stopping's fit on the training rows of 2 of its 3 folds (the first of them said, the others with "
        "other numbers), which chooses n_iter before the model is fitted on all the rows: column 2 is constant"]


def test_the_selection_fits_warnings_keep_matching_a_filter_by_module():
    # a user's filterwarnings(module=...) silences the fit's own warning; said again by the selection fits, the
    # warning was matched by its file's path instead of its module, and escaped the filter
    X, y = _sixty_rows()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=UserWarning, module=re.escape(__name__))
        rankcore.boost(learner="trees", n_iter=20, early_stopping=False, random_state=0).fit(X[:30], y[:30])
        assert not caught                       # the filter applies to the fit's own warning
        rankcore.boost(learner="trees", n_iter=20, early_stopping=True, random_state=0).fit(X, y)
    assert not [str(w.message) for w in caught]


def test_the_selection_fits_warnings_survive_a_lazy_module_that_fails_on_access(monkeypatch):
    # a module that imports on attribute access (a lazy loader) and fails: looking for the module of a held
    # warning's file asked it for __file__ and raised its ImportError out of the fit
    import sys
    import types
    from types import SimpleNamespace

    from rankcore.push._validation import selection_fit_warnings

    class Lazy(types.ModuleType):
        def __getattr__(self, name):
            raise ImportError(f"the lazy import of {name} failed")

    class Entry:                                # not a module at all, nor a namespace
        __slots__ = ()

        def __getattr__(self, name):
            raise RuntimeError(name)

    monkeypatch.setitem(sys.modules, "lazy_module_of_a_test", Lazy("lazy_module_of_a_test"))
    monkeypatch.setitem(sys.modules, "odd_entry_of_a_test", Entry())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with selection_fit_warnings(SimpleNamespace(kind="holdout", folds=None)):
            warnings.warn_explicit("column 2 is constant", UserWarning, "/no/such/file.py", 3)
    assert [(str(w.message), w.filename) for w in caught] == [
        ("early stopping's fit on the rows beside its hold-out, which chooses n_iter before the model is fitted on "
         "all the rows: column 2 is constant", "/no/such/file.py")]


def test_the_selection_fits_warnings_of_code_in_no_modules_file_are_said():
    # a notebook's cell, python -c, exec'd code: the warning's file is no loaded module's; its module named None,
    # warn_explicit skipped the held warning silently (CPython's "module=None: skip")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)
    cell = compile("rankcore.boost(learner='trees', n_iter=20, early_stopping=stop, random_state=0).fit(X, y)",
                   "<a notebook cell>", "exec")
    said = {}
    for stop, rows in ((False, 30), (True, 60)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            exec(cell, {"rankcore": rankcore, "stop": stop, "X": X[:rows], "y": y[:rows]})
        said[stop] = [str(w.message) for w in caught if w.filename == "<a notebook cell>"]
    assert said[False]                          # the fit's own warning, raised at the cell's line
    assert said[True] and all(m.startswith("early stopping's fit on ") for m in said[True])
