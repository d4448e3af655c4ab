"""No fit returns a constant model without saying so.

Before: the trees learner returned an all-zero model with
``stop_reason_ = "converged"`` and no warning whenever no split was possible
(default settings on 40 rows, ``min_samples_leaf`` above n, a tiny
``subsample``, a huge ``l2`` or ``min_child_weight``), ``max_depth=0`` and
``bin_subsample=1`` were accepted although they can never split, and every
estimator fitted constant features into a constant model silently.

Now: a parameter value that can never split is an error at fit naming it; a
legal setting that cannot split *these* data stops with
``stop_reason_ = "no_split"`` and a ``UserWarning`` saying which constraint
blocked; every other estimator warns when its fitted training scores are
constant.
"""

from __future__ import annotations

import contextlib
import io
import warnings

import numpy as np
import pytest

import rankcore
from rankcore.exactboost import ExactBoost
from rankcore.persistence import model_from_dict, model_to_dict
from rankcore.precision_at_k import PerceptronAtK, SGDAtK
from rankcore.push import PushBoost, RankBoost
from rankcore.rkhs import KernelRanker
from rankcore.spec import SpecError


def _small(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _no_split_fit(learner, X=None, y=None, **kw):
    X, y = _small() if X is None else (X, y)
    with pytest.warns(UserWarning, match="no_split") as record:
        model = PushBoost(learner=learner, n_iter=20, random_state=0, **kw).fit(X, y)
    assert model.stop_reason_ == "no_split"
    assert model.n_iter_ == 0 and np.ptp(model.decision_function(X)) == 0
    return model, " ".join(str(w.message) for w in record)


# --------------------------------------------------------------------------
# trees: settings that cannot split these data
# --------------------------------------------------------------------------

@pytest.mark.parametrize(("learner", "named"), [
    ("trees", "min_samples_leaf=20"),                  # the defaults on 40 rows: 32 rows per tree < 2 x 20
    ("trees:min_samples_leaf=100,subsample=1", "min_samples_leaf=100"),
    ("trees:subsample=1e-9", "subsample"),
    ("trees:l2=1e308,min_samples_leaf=2", "l2=1e+308"),
    ("trees:min_child_weight=1e300,min_samples_leaf=2", "min_child_weight=1e+300"),
], ids=["defaults-40-rows", "min_samples_leaf>n", "subsample=1e-9", "l2=1e308", "min_child_weight=1e300"])
def test_trees_that_cannot_split_warn_and_stop_with_no_split(learner, named):
    _, message = _no_split_fit(learner)
    assert named in message, message


def test_trees_no_split_message_says_what_to_change_on_small_data():
    _, message = _no_split_fit("trees")
    assert "32 rows" in message and "lower min_samples_leaf" in message, message


@pytest.mark.parametrize(("learner", "name"), [("trees:max_depth=0", "max_depth"),
                                               ("trees:bin_subsample=1", "bin_subsample")])
def test_tree_parameters_that_can_never_split_are_errors_at_fit(learner, name):
    X, y = _small(200)
    with pytest.raises(SpecError, match=name):
        PushBoost(learner=learner, n_iter=3).fit(X, y)


def test_trees_that_can_split_do_not_warn_and_keep_n_iter():
    X, y = _small(200)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = PushBoost(learner="trees", n_iter=5, random_state=0).fit(X, y)
    assert model.stop_reason_ == "n_iter" and model.n_iter_ == 5


def test_trees_that_stop_mid_fit_for_lack_of_rows_say_no_split():
    """A row subsample too small for two leaves, at a later tree: an honest stop, not "converged"."""
    X, y = _small(60, seed=3)
    with pytest.warns(UserWarning, match="no_split"):
        model = PushBoost(learner="trees:min_samples_leaf=14,subsample=0.5", n_iter=60, random_state=1).fit(X, y)
    assert model.stop_reason_ == "no_split"


def test_no_split_model_saves_and_loads():
    model, _ = _no_split_fit("trees")
    loaded = model_from_dict(model_to_dict(model))
    assert loaded.stop_reason_ == "no_split"


def test_overflow_stop_reason_saves_and_loads():
    """Every stop reason the driver reports is one a model file may hold (overflow was refused on load)."""
    from rankcore.push._boost_base import _STOP_REASONS

    assert {"n_iter", "converged", "early_stopping", "overflow", "no_split"} <= set(_STOP_REASONS)


def test_cli_fit_trees_on_small_data_warns_and_reports_no_split(tmp_path):
    from rankcore.cli import main

    X, y = _small()
    path = tmp_path / "small.csv"
    with open(path, "w") as fh:
        fh.write("a,b,c,label\n")
        for row, label in zip(X.tolist(), y.tolist()):
            fh.write(",".join(map(repr, row)) + f",{label}\n")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(["fit", str(path), "--learner", "trees", "--out", str(tmp_path / "m.json")])
    text = err.getvalue()
    assert status == 0
    assert "stopped: no_split after 0 iterations" in text, text
    warning_lines = [line for line in text.splitlines() if line.startswith("rankcore: warning:")]
    assert len(warning_lines) == 1 and "min_samples_leaf" in warning_lines[0], text
    assert "Traceback" not in text and "warnings.warn" not in text


# --------------------------------------------------------------------------
# every estimator on degenerate-but-legal data: constant features
# --------------------------------------------------------------------------

_CONSTANT_X = np.ones((40, 3))
_Y = np.r_[np.zeros(24), np.ones(16)].astype(int)


@pytest.mark.parametrize("make", [
    lambda: PushBoost(n_iter=5, random_state=0),
    lambda: RankBoost(n_iter=5, random_state=0),
    lambda: PushBoost(learner="features", n_iter=5, random_state=0),
    lambda: PushBoost(learner="thresholds", n_iter=5, random_state=0),
    lambda: PushBoost(learner="trees:min_samples_leaf=3,subsample=1", n_iter=5, random_state=0),
], ids=["stumps", "rankboost", "features", "thresholds", "trees"])
def test_push_learners_on_constant_features_warn_no_split(make):
    with pytest.warns(UserWarning, match="no_split"):
        model = make().fit(_CONSTANT_X, _Y)
    assert model.stop_reason_ == "no_split"


@pytest.mark.parametrize("make", [
    lambda: ExactBoost(n_runs=3, n_rounds=5, random_state=0),
    lambda: ExactBoost(metric="prec@k:5", n_runs=3, n_rounds=5, random_state=0),
    lambda: SGDAtK(k=5, random_state=0),
    lambda: SGDAtK(k=5, init="zero", random_state=0),
    lambda: PerceptronAtK(k=5, random_state=0),
    lambda: KernelRanker(random_state=0),
    lambda: KernelRanker(kernel="linear", random_state=0),
], ids=["exactboost", "exactboost-head-tail", "sgd", "sgd-zero", "perceptron", "kernel-rbf", "kernel-linear"])
def test_other_estimators_on_constant_features_warn_that_the_model_is_constant(make):
    with pytest.warns(UserWarning, match="constant"):
        model = make().fit(_CONSTANT_X, _Y)
    assert np.ptp(model.decision_function(_CONSTANT_X)) == 0


@pytest.mark.parametrize("make", [
    lambda: ExactBoost(n_runs=3, n_rounds=5, random_state=0),
    lambda: SGDAtK(k=5, random_state=0),
    lambda: PerceptronAtK(k=5, random_state=0),
    lambda: KernelRanker(random_state=0),
    lambda: PushBoost(n_iter=5, random_state=0),
], ids=["exactboost", "sgd", "perceptron", "kernel", "push"])
def test_estimators_on_informative_data_do_not_warn(make):
    X, y = _small(80)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make().fit(X, y)


def test_trees_on_one_distinct_row_warn_no_split():
    X = np.vstack([np.ones((39, 3)), [[2.0, 2.0, 2.0]]])
    with pytest.warns(UserWarning, match="no_split"):
        PushBoost(learner="trees:min_samples_leaf=3,subsample=1", n_iter=5, random_state=0).fit(X, _Y)


def test_boost_helper_and_dask_share_the_driver_warning():
    """The warning comes from the driver, so every backend (in memory, Dask) gives it."""
    with pytest.warns(UserWarning, match="no_split"):
        rankcore.boost(learner="trees", n_iter=5, random_state=0).fit(*_small())


def test_free_split_gain_tells_a_blocked_split_from_nothing_to_gain():
    from rankcore.learners.trees._no_split import free_split_gain

    rng = np.random.default_rng(0)
    hist = np.zeros((2, 256, 3))
    hist[:, :10, 2] = rng.integers(1, 5, size=(2, 10))          # counts in 10 bins
    hist[:, :10, 1] = hist[:, :10, 2]                           # unit curvature
    mask = np.ones(2, dtype=np.uint8)
    assert not free_split_gain(hist, mask, 0.0, 1e-10)          # a zero gradient: nothing to gain
    hist[:, :10, 0] = 0.5 * hist[:, :10, 1]                     # g proportional to h: every leaf has the same value
    assert not free_split_gain(hist, mask, 0.0, 1e-10)
    hist[0, :5, 0] = -1.0                                       # the low bins pull the other way
    assert free_split_gain(hist, mask, 0.0, 1e-10)
    assert not free_split_gain(hist, np.array([0, 1], dtype=np.uint8), 0.0, 1e-10)   # that feature not drawn
    # brute force over every cut of feature 0 (NaN slot empty) agrees
    G, H = hist[0, :255, 0], hist[0, :255, 1]
    gains = [G[:b + 1].sum() ** 2 / H[:b + 1].sum() + G[b + 1:].sum() ** 2 / max(H[b + 1:].sum(), 1e-300)
             - G.sum() ** 2 / H.sum() for b in range(9)]
    assert max(gains) > 0


def test_early_stopping_that_keeps_no_iteration_warns():
    X, y = _small(200, seed=5)
    X_val, y_val = X[:60], 1 - y[:60]                  # a validation set that every step makes worse
    with pytest.warns(UserWarning, match="early stopping kept 0"):
        model = PushBoost(n_iter=10, early_stopping=True, random_state=0).fit(X, y, eval_set=(X_val, y_val))
    assert model.n_iter_ == 0


@pytest.mark.parametrize(("seed", "chooses_none"), [(3, True), (0, False)])
def test_early_stopping_by_held_out_rows_that_chooses_no_iteration_warns(seed, chooses_none):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 3))
    y = (rng.random(300) < 0.4).astype(int)            # labels independent of X: nothing generalizes
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = PushBoost(n_iter=20, early_stopping=True, random_state=0).fit(X, y)
    assert (model.n_iter_ == 0) == chooses_none
    assert any("early stopping chose 0" in str(w.message) for w in caught) == chooses_none


def test_free_split_gain_with_an_overflowed_gradient_counts_no_gain_and_warns_nothing():
    """Rows whose gradient overflowed to inf (scores pushed apart without bound on separable rows) give gains
    that are not finite: no gain, and no numpy warning leaks to the user."""
    import warnings

    from rankcore.learners.trees._no_split import free_split_gain

    hist = np.zeros((1, 6, 3))
    hist[0, :5, 2] = 1.0
    hist[0, :5, 1] = 1.0
    hist[0, 2, :2] = np.inf                                     # inf − inf in the right-hand sums
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not free_split_gain(hist, np.ones(1, dtype=np.uint8), 0.0, 1e-10)
        hist[0, 2, :2] = 1.0
        hist[0, :2, 0] = -1.0                                   # finite again: a split gains
        assert free_split_gain(hist, np.ones(1, dtype=np.uint8), 0.0, 1e-10)
