"""ExactBoost's head and tail (``head``): a prec@k ensemble on top, a whole-list ensemble below.

The reference is plain NumPy: the two ensembles fitted separately (the head
is the ``head=None`` model with the same seed, the tail the second half of a
``metric="auc"`` model with twice the runs), each scored stump by stump, and
the gate applied by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.datasets import make_classification

import rankcore
from rankcore import ExactBoost
from rankcore.exactboost._predict import build_step_table
from rankcore.persistence import ModelFormatError, _checksum, _decode, _encode, model_from_dict, model_to_dict

SMALL = dict(n_runs=12, n_rounds=12, random_state=4)


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=500, n_features=6, n_informative=4, weights=[0.88], flip_y=0.05,
                               random_state=3)
    return X, y


@pytest.fixture(scope="module")
def gated(data):
    X, y = data
    return ExactBoost(metric="prec@k:0.05", **SMALL).fit(X, y)


def stump_scores(stumps: np.ndarray, n_runs: int, X: np.ndarray) -> np.ndarray:
    """Reference: the run average of a·1[x_j <= ξ] + b·1[x_j > ξ], stump by stump."""
    total = np.zeros(X.shape[0])
    for j, xi, a, b in stumps:
        total += np.where(X[:, int(j)] <= xi, a, b)
    return total / n_runs


# --------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------


def test_head_defaults_by_metric(data):
    X, y = data
    assert ExactBoost().get_params()["head"] == "auto"
    gated = ExactBoost(metric="prec@k:0.05", n_runs=2, n_rounds=3, random_state=0).fit(X, y)
    assert gated.head_ == 2.0 and gated.tail_metric_.spec == "auc" and gated.tail_stumps_ is not None
    for metric in ("auc", "ks", "pauc:0.1"):
        single = ExactBoost(metric=metric, n_runs=2, n_rounds=3, random_state=0).fit(X, y)
        assert single.head_ is None and single.tail_stumps_ is None and single.head_threshold_ is None
    off = ExactBoost(metric="prec@k:0.05", head=None, n_runs=2, n_rounds=3, random_state=0).fit(X, y)
    assert off.head_ is None and off.tail_stumps_ is None
    # the tail's metric is the tie-break's; with the tie-break off, AUC
    other = ExactBoost(metric="prec@k:0.05", tie_break="pauc:0.2", n_runs=2, n_rounds=3, random_state=0).fit(X, y)
    assert other.tail_metric_.spec == "pauc:0.2"
    plain = ExactBoost(metric="prec@k:0.05", tie_break=None, n_runs=2, n_rounds=3, random_state=0).fit(X, y)
    assert plain.tie_break_ is None and plain.tail_metric_.spec == "auc"


@pytest.mark.parametrize("head", [0.5, 0, -2, float("nan"), float("inf"), True, "big", [2]])
def test_bad_head_is_refused(data, head):
    X, y = data
    with pytest.raises(ValueError, match="head"):
        ExactBoost(metric="prec@k:0.05", head=head, n_runs=2, n_rounds=3).fit(X, y)


def test_head_needs_a_top_k_metric(data):
    X, y = data
    with pytest.raises(ValueError, match="head: only metrics that score the k top rows"):
        ExactBoost(metric="auc", head=2, n_runs=2, n_rounds=3).fit(X, y)


# --------------------------------------------------------------------------
# The model against the reference
# --------------------------------------------------------------------------


@pytest.mark.parametrize("metric, head", [("prec@k:0.05", "auto"), ("prec@k:0.1", 1), ("prec@k:17", 3.5)])
def test_gated_scores_match_the_reference(data, metric, head):
    X, y = data
    model = ExactBoost(metric=metric, head=head, **SMALL).fit(X, y)
    alone = ExactBoost(metric=metric, head=None, **SMALL).fit(X, y)
    auc_model = ExactBoost(metric="auc", **{**SMALL, "n_runs": 2 * SMALL["n_runs"]}).fit(X, y)
    # the head runs are the single-ensemble model's, the tail runs those of an AUC model seeded after them
    np.testing.assert_array_equal(model.stumps_, alone.stumps_)
    np.testing.assert_array_equal(model.train_loss_, alone.train_loss_)
    first = int(auc_model.run_lengths_[:SMALL["n_runs"]].sum())
    np.testing.assert_array_equal(model.tail_stumps_, auc_model.stumps_[first:])
    np.testing.assert_array_equal(model.tail_run_lengths_, auc_model.run_lengths_[SMALL["n_runs"]:])

    n = X.shape[0]
    k = rankcore.resolve("metric", metric).params["k"]
    k = k if k >= 1 else max(1, math.floor(k * n + 0.5))
    multiple = 2.0 if head == "auto" else float(head)
    head_train = stump_scores(model.stumps_, SMALL["n_runs"], X)
    size = min(n, math.ceil(multiple * k - 1e-9))
    assert model.head_threshold_ == pytest.approx(np.sort(head_train)[::-1][size - 1], abs=1e-12)

    rng = np.random.default_rng(0)
    X_new = np.vstack([X, rng.normal(scale=3.0, size=(300, X.shape[1])), X.min(0) - 1, X.max(0) + 1])
    head_new = stump_scores(model.stumps_, SMALL["n_runs"], X_new)
    tail_new = stump_scores(model.tail_stumps_, SMALL["n_runs"], X_new)
    in_head = head_new >= model.head_threshold_ - 1e-12
    scores = model.decision_function(X_new)
    assert np.isfinite(scores).all()
    np.testing.assert_allclose(scores[~in_head], tail_new[~in_head], rtol=0, atol=1e-12)
    if in_head.any() and (~in_head).any():
        assert scores[in_head].min() > scores[~in_head].max()
        # within the head: the head score plus one constant
        shift = scores[in_head] - head_new[in_head]
        np.testing.assert_allclose(shift, shift[0], rtol=0, atol=1e-12)
    # the training rows in the head are at least ceil(head * k), more only through ties
    in_train = head_train >= model.head_threshold_ - 1e-12
    assert in_train.sum() >= size
    assert in_train.sum() == size or np.sum(np.isclose(head_train, model.head_threshold_, rtol=0, atol=1e-12)) > 1


def test_top_of_the_training_list_is_the_head_models(gated, data):
    """The ceil(head·k) top training rows, and their order, are the single prec@k ensemble's."""
    X, y = data
    alone = ExactBoost(metric="prec@k:0.05", head=None, **SMALL).fit(X, y)
    size = math.ceil(2 * max(1, math.floor(0.05 * X.shape[0] + 0.5)))
    top_gated = np.argsort(-gated.decision_function(X), kind="stable")[:size]
    top_alone = np.argsort(-alone.decision_function(X), kind="stable")[:size]
    np.testing.assert_array_equal(top_gated, top_alone)
    prec = rankcore.resolve("metric", "prec@k:0.05")
    assert prec(y, gated.decision_function(X)) == prec(y, alone.decision_function(X))


def test_tail_ranks_the_rest_of_the_list(data):
    """Below the head, the prec@k ensemble alone leaves ties and misorders; the tail is the AUC model's order."""
    X, y = data
    alone = ExactBoost(metric="prec@k:0.05", head=None, tie_break=None, **SMALL).fit(X, y)
    gated = ExactBoost(metric="prec@k:0.05", tie_break=None, **SMALL).fit(X, y)
    auc = rankcore.resolve("metric", "auc")
    assert auc(y, gated.decision_function(X)) > auc(y, alone.decision_function(X))
    assert np.unique(gated.decision_function(X)).size > np.unique(alone.decision_function(X)).size


def test_step_table_max_score_is_the_largest_score():
    """Brute force over every cell of a two-feature grid of thresholds."""
    rng = np.random.default_rng(1)
    feature = rng.integers(0, 2, size=15)
    threshold = rng.choice([-1.0, 0.0, 0.5, 2.0], size=15)
    a = rng.choice(np.linspace(-1, 1, 9), size=15)
    b = rng.choice(np.linspace(-1, 1, 9), size=15)
    table = build_step_table(feature, threshold, a, b, 3)
    grid = np.array([-5.0, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 2.0, 9.0])
    X = np.array([[u, v] for u in grid for v in grid])
    assert table.max_score() == pytest.approx(table.decision(X).max(), abs=1e-12)


def test_head_and_tail_independent_of_n_jobs(data, exact_threads):
    exact_threads(2)
    X, y = data
    one = ExactBoost(metric="prec@k:0.05", n_jobs=1, **SMALL).fit(X, y)
    two = ExactBoost(metric="prec@k:0.05", n_jobs=2, **SMALL).fit(X, y)
    np.testing.assert_array_equal(one.tail_stumps_, two.tail_stumps_)
    assert one.head_threshold_ == two.head_threshold_
    np.testing.assert_array_equal(one.decision_function(X), two.decision_function(X))


def test_a_row_scores_the_same_alone(gated, data):
    X, _ = data
    full = gated.decision_function(X)
    for i in (0, 7, 123):
        assert gated.decision_function(X[i:i + 1])[0] == full[i]


# --------------------------------------------------------------------------
# Persistence
# --------------------------------------------------------------------------


def test_round_trip_keeps_the_tail(gated, data, tmp_path):
    X, _ = data
    path = tmp_path / "gated.json"
    rankcore.save_model(gated, path)
    loaded = rankcore.load_model(path)
    assert loaded.head_ == 2.0 and loaded.tail_metric_.spec == "auc"
    assert loaded.head_threshold_ == gated.head_threshold_
    np.testing.assert_array_equal(loaded.tail_stumps_, gated.tail_stumps_)
    np.testing.assert_array_equal(loaded.decision_function(X), gated.decision_function(X))


def _tampered(model, edit):
    data = model_to_dict(model)
    edit(data["state"], data["params"])
    data["sha256"] = _checksum({k: v for k, v in data.items() if k != "sha256"})
    return data


def _edit_array(key, change):
    def edit(state, params):
        state[key] = _encode(np.asarray(change(_decode(state[key], key))), key)
    return edit


@pytest.mark.parametrize(
    "edit, message",
    [
        (_edit_array("tail_stumps", lambda s: s + np.array([99, 0, 0, 0])), "tail_stump features"),
        (_edit_array("tail_stumps", lambda s: s * np.array([1, 1, 5, 1])), r"tail_stump values"),
        (_edit_array("tail_run_lengths", lambda s: s + 1), "tail_run_lengths"),
        (_edit_array("tail_train_loss", lambda s: s[:, :-1]), "tail_train_loss"),
        (lambda s, p: s.update(head_threshold=float("nan")), "head_threshold"),
        (lambda s, p: s.update(head_threshold="0.1"), "head_threshold"),
        (lambda s, p: s.update(tail_metric="ks"), "tail_metric"),
        (lambda s, p: s.pop("tail_stumps"), "missing"),
        (lambda s, p: p.update(head=None), "unexpected"),
        (lambda s, p: p.update(head=0.5), "head"),
    ],
    ids=["feature-out-of-range", "value-out-of-range", "lengths-sum", "loss-shape", "nan-threshold",
         "string-threshold", "metric-mismatch", "missing-tail", "params-without-head", "bad-head"],
)
def test_tampered_tail_is_refused(gated, edit, message):
    with pytest.raises(ModelFormatError, match=message):
        model_from_dict(_tampered(gated, edit))


def test_file_saved_before_head_existed_loads_as_one_ensemble(data):
    """A prec@k model saved without ``head`` in its parameters and no tail: the single ensemble it was."""
    X, y = data
    old = ExactBoost(metric="prec@k:0.05", head=None, **SMALL).fit(X, y)

    def strip(state, params):
        params.pop("head")

    loaded = model_from_dict(_tampered(old, strip))
    assert loaded.head is None and loaded.head_ is None and loaded.tail_stumps_ is None
    np.testing.assert_array_equal(loaded.decision_function(X), old.decision_function(X))
