"""Perceptron@k and SGD@k: updates against references and by hand, convergence, streams, edge cases."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from _precision_at_k_reference import prec_at_k, reference_epoch, reference_perceptron, reference_surrogate
from rankcore import PerceptronAtK, SGDAtK
from rankcore.precision_at_k import _surrogates, surrogate


# the paper's plain algorithms: no internal standardization, the last iterate, w0 = 0;
# the estimators' k is then given per batch (k_per_batch), as the references take it
PLAIN = dict(average=False, standardize=False)


def plain_perceptron(**params):
    return PerceptronAtK(**{**PLAIN, "batch_size": 512, "n_epochs": 10, **params})


def plain_sgd(**params):
    return SGDAtK(**{**PLAIN, "init": "zero", "eta0": 1.0, "n_epochs": 10, **params})


def fast_perceptron(y, s, k, variant):
    grad, delta, _ = _surrogates.perceptron_batch(
        np.ascontiguousarray(s, dtype=np.float64), np.ascontiguousarray(y, dtype=np.int8), k,
        _surrogates.KINDS[variant])
    return grad, delta


# ---------------------------------------------------------------------------
# the perceptron rule on one batch
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["avg", "max"])
@given(n=st.integers(2, 12), seed=st.integers(0, 2**16), ties=st.booleans())
def test_perceptron_rule_equals_reference(variant, n, seed, ties):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n).astype(np.int8)
    if y.sum() in (0, n):
        y[0], y[-1] = 1, 0
    s = rng.integers(-2, 3, n) / 2.0 if ties else rng.standard_normal(n)
    k = int(rng.integers(1, n + 1))  # also k > n₊: capped
    grad, delta = fast_perceptron(y, s, k, variant)
    ref_grad, ref_delta = reference_perceptron(y, s, k, variant)
    assert delta == pytest.approx(ref_delta, abs=1e-12)
    np.testing.assert_allclose(grad, ref_grad, atol=1e-12)
    # Δ_t is the prec@k loss (fractional at ties) at k = min(k, n₊)
    k_used = min(k, int(y.sum()))
    assert delta == pytest.approx(k_used * (1 - prec_at_k(y, s, k_used)), abs=1e-12)
    # the update moves as much weight onto positives as it takes from negatives
    assert grad.sum() == pytest.approx(0.0, abs=1e-12)


def _tiny_batch():
    # scores under w = (1, 0): 3, 2, 1, 0, -1; k = 2
    X = np.array([[3.0, 1.0], [2.0, 0.0], [1.0, 2.0], [0.0, 1.0], [-1.0, 0.0]])
    y = np.array([0, 1, 0, 1, 1])
    return X, y


@pytest.mark.parametrize(
    "variant, expected",
    [
        # top 2 = {x1 (negative: FP), x2}; Δ = 1; FN = {x4, x5}
        # avg: w − x1 + (1/2)(x4 + x5) = (1,0) − (3,1) + ½(−1, 1) = (−2.5, −0.5)
        ("avg", [-2.5, -0.5]),
        # max: w − x1 + (the Δ = 1 highest FN: x4) = (1,0) − (3,1) + (0,1) = (−2, 0)
        ("max", [-2.0, 0.0]),
    ],
)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_perceptron_one_step_by_hand(variant, expected, sparse):
    X, y = _tiny_batch()
    Xin = sp.csr_matrix(X) if sparse else X
    model = plain_perceptron(k_per_batch=2, variant=variant, batch_size=None)
    model.partial_fit(Xin, y)  # initializes (and takes a first step from w = 0)
    model.iterate_ = model.coef_ = np.array([1.0, 0.0])
    model.partial_fit(Xin, y)
    np.testing.assert_allclose(model.coef_, expected)
    assert model.mistakes_per_epoch_[-1] == 1.0
    assert model.loss_per_epoch_[-1] == 0.5


def test_perceptron_no_update_without_mistakes():
    X, y = _tiny_batch()
    model = plain_perceptron(k_per_batch=2, batch_size=None).partial_fit(X, y)
    model.iterate_ = model.coef_ = np.array([-1.0, -3.0])  # scores −6, −2, −7, −3, 1: top 2 = x5, x2, both positive
    model.partial_fit(X, y)
    np.testing.assert_array_equal(model.coef_, [-1.0, -3.0])
    assert model.mistakes_per_epoch_[-1] == 0.0


def test_perceptron_first_step_from_zero_is_class_mean_difference():
    # at w = 0 every score ties: each example is in the top k with probability k/n
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 3))
    y = np.array([1] * 6 + [0] * 14)
    k = 4
    model = plain_perceptron(k_per_batch=k, batch_size=None).partial_fit(X, y)
    n, n_pos, n_neg = 20, 6, 14
    delta = k * n_neg / n
    assert model.mistakes_per_epoch_[0] == pytest.approx(delta)
    expected = delta * (X[y == 1].mean(axis=0) - X[y == 0].mean(axis=0))
    np.testing.assert_allclose(model.coef_, expected)


# ---------------------------------------------------------------------------
# whole epochs against the NumPy reference
# ---------------------------------------------------------------------------

CONFIGS = [
    dict(rule="perceptron", kind="avg"),
    dict(rule="perceptron", kind="max"),
    dict(rule="sgd", kind="avg"),
    dict(rule="sgd", kind="max"),
    dict(rule="sgd", kind="struct"),
    dict(rule="sgd", kind="avg", alpha=0.05),
    dict(rule="sgd", kind="avg", radius=0.5),
    dict(rule="sgd", kind="max", alpha=0.01, radius=2.0),
    dict(rule="sgd", kind="avg", alpha=3.0),  # η α >= 1 on the first steps: w is wiped
]


def _make_estimator(cfg, k, batch_size, eta0=0.5):
    if cfg["rule"] == "perceptron":
        return plain_perceptron(k_per_batch=k, variant=cfg["kind"], batch_size=batch_size, shuffle=False, n_jobs=1)
    return plain_sgd(k_per_batch=k, surrogate=cfg["kind"], eta0=eta0, alpha=cfg.get("alpha", 0.0),
                     radius=cfg.get("radius"), batch_size=batch_size, shuffle=False, n_jobs=1)


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(f"{v}" for v in c.values()))
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("k", [3, 0.2], ids=["k=3", "k=0.2"])
def test_epochs_equal_reference(cfg, sparse, k):
    rng = np.random.default_rng(7)
    X = rng.standard_normal((67, 5)) * (rng.random((67, 5)) < 0.6)  # zeros, so CSR is really sparse
    X[:, 0] = np.round(X[:, 0])  # some ties in scores early on
    y = (X[:, 1] + 0.8 * rng.standard_normal(67) > 0.6).astype(int)
    y[:10] = 0  # the first batch of 10 has no positive: skipped
    batch = 10
    model = _make_estimator(cfg, k, batch)
    Xin = sp.csr_matrix(X) if sparse else X
    w, t = None, 0
    order = np.arange(67)
    for _ in range(3):
        model.partial_fit(Xin, y)
        w, t = reference_epoch(X, y, order, batch, k, cfg["rule"], cfg["kind"], eta0=0.5,
                               alpha=cfg.get("alpha", 0.0), radius=cfg.get("radius"), w=w, t=t)
        np.testing.assert_allclose(model.coef_, w, rtol=1e-9, atol=1e-12)
        assert model.t_ == t
    assert model.n_skipped_batches_ == 3
    if "radius" in cfg:
        assert np.linalg.norm(model.coef_) <= cfg["radius"] * (1 + 1e-12)


@pytest.mark.parametrize("kind", ["avg", "struct"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_the_ball_holds_the_weights_at_a_huge_eta0_as_in_the_reference(sparse, kind):
    # a step of 1e300 overflows the ||v||^2 kept row by row (inf, or NaN from inf - inf): the projection was
    # skipped (NaN > radius is false) and the weights left the ball at 1e299, with NumPy's overflow warning
    rng = np.random.default_rng(7)
    X = rng.standard_normal((67, 5)) * (rng.random((67, 5)) < 0.6)
    y = (X[:, 1] + 0.8 * rng.standard_normal(67) > 0.6).astype(int)
    model = plain_sgd(k_per_batch=3, surrogate=kind, eta0=1e300, radius=0.5, batch_size=10, shuffle=False, n_jobs=1)
    Xin = sp.csr_matrix(X) if sparse else X
    w, t = None, 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            model.partial_fit(Xin, y)
            w, t = reference_epoch(X, y, np.arange(67), 10, 3, "sgd", kind, eta0=1e300, radius=0.5, w=w, t=t)
            np.testing.assert_allclose(model.coef_, w, rtol=1e-9, atol=1e-12)
            assert np.linalg.norm(model.coef_) <= 0.5 * (1 + 1e-12)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_fit_shuffled_epochs_equal_reference(n_jobs, exact_threads):
    exact_threads(n_jobs)
    rng = np.random.default_rng(3)
    X = rng.standard_normal((300, 4))
    y = (X @ [1.0, -1.0, 0.5, 0.0] + rng.standard_normal(300) > 1.0).astype(int)
    model = plain_sgd(k_per_batch=0.1, eta0=0.3, batch_size=32, n_epochs=4, random_state=11, n_jobs=n_jobs).fit(X, y)
    perm_rng = np.random.RandomState(11)
    w, t = None, 0
    for _ in range(4):
        order = perm_rng.permutation(300)
        w, t = reference_epoch(X, y, order, 32, 0.1, "sgd", "avg", eta0=0.3, w=w, t=t)
    np.testing.assert_allclose(model.coef_, w, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_threaded_scoring_equals_one_thread(sparse, exact_threads):
    exact_threads(2)
    # batches of 3000 rows × 100 features pass the kernel's threshold for threads
    rng = np.random.default_rng(8)
    X = rng.standard_normal((6000, 100)) * (rng.random((6000, 100)) < (0.9 if sparse else 1.0))
    y = (X[:, 0] + rng.standard_normal(6000) > 1.5).astype(int)
    Xin = sp.csr_matrix(X) if sparse else X
    one = plain_sgd(batch_size=3000, n_epochs=2, random_state=0, n_jobs=1).fit(Xin, y)
    two = plain_sgd(batch_size=3000, n_epochs=2, random_state=0, n_jobs=2).fit(Xin, y)
    np.testing.assert_array_equal(one.coef_, two.coef_)


def test_dense_and_sparse_fits_agree_and_are_deterministic():
    rng = np.random.default_rng(4)
    X = sp.random(500, 40, density=0.1, random_state=4, format="csr")
    y = (rng.random(500) < 0.2).astype(int)
    a = plain_sgd(k_per_batch=0.05, batch_size=50, n_epochs=3, random_state=0).fit(X, y)
    b = plain_sgd(k_per_batch=0.05, batch_size=50, n_epochs=3, random_state=0).fit(X.toarray(), y)
    c = plain_sgd(k_per_batch=0.05, batch_size=50, n_epochs=3, random_state=0).fit(X.astype(np.float32).tocsc(), y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(a.coef_, c.coef_, rtol=1e-5, atol=1e-7)
    X64 = X.copy()
    X64.indices, X64.indptr = X.indices.astype(np.int64), X.indptr.astype(np.int64)
    e = plain_sgd(k_per_batch=0.05, batch_size=50, n_epochs=3, random_state=0).fit(X64, y)
    np.testing.assert_array_equal(a.coef_, e.coef_)
    d = plain_sgd(k_per_batch=0.05, batch_size=50, n_epochs=3, random_state=1).fit(X, y)
    assert not np.allclose(a.coef_, d.coef_)


def test_sparse_non_canonical_csr_is_summed():
    X = sp.csr_matrix((np.array([1.0, 2.0, 3.0, -1.0]), np.array([0, 0, 1, 1]), np.array([0, 2, 3, 4])),
                      shape=(3, 2))
    assert not X.has_canonical_format
    y = np.array([1, 0, 0])
    a = plain_sgd(k_per_batch=1, batch_size=None, radius=0.1, n_epochs=2).fit(X, y)
    b = plain_sgd(k_per_batch=1, batch_size=None, radius=0.1, n_epochs=2).fit(X.toarray(), y)
    np.testing.assert_allclose(a.coef_, b.coef_)
    assert not X.has_canonical_format  # the caller's matrix is not modified


# ---------------------------------------------------------------------------
# convergence
# ---------------------------------------------------------------------------


def _separable(n=600, d=10, margin=0.5, pos_rate=0.2, seed=0):
    rng = np.random.default_rng(seed)
    direction = rng.standard_normal(d)
    direction /= np.linalg.norm(direction)
    X = rng.standard_normal((n, d))
    y = (rng.random(n) < pos_rate).astype(int)
    proj = X @ direction
    # push the classes apart along the direction: a margin of at least 2·margin
    X += np.outer(np.where(y == 1, margin - np.minimum(proj, 0) + 0.0, -margin - np.maximum(proj, 0)), direction)
    assert (X[y == 1] @ direction).min() - (X[y == 0] @ direction).max() >= 2 * margin - 1e-9
    return X, y


@pytest.mark.parametrize("batch_size", [None, 100])
def test_perceptron_avg_reaches_zero_loss_on_separable_data(batch_size):
    X, y = _separable()
    model = plain_perceptron(k_per_batch=0.1, variant="avg", batch_size=batch_size, n_epochs=200,
                             random_state=0).fit(X, y)
    # the mistake bound: finitely many mistakes, so the last passes make none ...
    assert model.mistakes_per_epoch_[-1] == 0
    assert model.mistakes_per_epoch_.sum() < 200
    # ... and the full training set is ranked right at the top
    scores = model.decision_function(X)
    assert prec_at_k(y, scores, int(0.1 * len(y))) == 1.0
    assert prec_at_k(y, scores, int(y.sum())) == 1.0 or batch_size is not None


def test_perceptron_max_reaches_zero_loss_on_separable_data():
    X, y = _separable(seed=1)
    model = plain_perceptron(k_per_batch=0.1, variant="max", batch_size=None, n_epochs=300).fit(X, y)
    assert model.mistakes_per_epoch_[-1] == 0
    assert prec_at_k(y, model.decision_function(X), 60) == 1.0


def test_sgd_avg_decreases_training_surrogate_on_average():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((3000, 20))
    y = (X @ rng.standard_normal(20) + 2.0 * rng.standard_normal(3000) > 3.0).astype(int)
    model = plain_sgd(k_per_batch=0.05, surrogate="avg", eta0=1.0, batch_size=200, n_epochs=1, random_state=0).fit(X, y)
    full = [surrogate(y, model.decision_function(X), 150, "avg")]  # the training avg surrogate, k = 5 %
    for epoch in range(1, 12):
        perm = np.random.default_rng(epoch).permutation(3000)
        model.partial_fit(X[perm], y[perm])
        full.append(surrogate(y, model.decision_function(X), 150, "avg"))
    full = np.array(full)
    per_batch = model.surrogate_per_epoch_
    assert per_batch.shape == (12,)
    # on average over epochs (SGD steps need not each decrease it): the second
    # half is lower than the first and the trend is down, for the batches'
    # surrogate and for the surrogate of the whole training set
    for curve in (per_batch, full):
        assert curve[6:].mean() < curve[:6].mean()
        assert np.corrcoef(np.arange(12), curve)[0, 1] < -0.5
    # and clearly below its value at w = 0 (1 per slot)
    assert full[-1] < 0.8


def test_sgd_records_per_epoch():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((400, 5))
    y = (X[:, 0] > 1).astype(int)
    model = plain_sgd(k_per_batch=0.1, batch_size=64, n_epochs=5, random_state=0).fit(X, y)
    assert model.n_iter_ == 5
    assert model.t_ == 5 * int(np.ceil(400 / 64)) - model.n_skipped_batches_
    for name in ("mistakes_per_epoch_", "loss_per_epoch_", "surrogate_per_epoch_"):
        assert getattr(model, name).shape == (5,)
    assert np.all(model.loss_per_epoch_ <= model.surrogate_per_epoch_ + 1e-12)  # avg bounds the loss
    model.partial_fit(X[:100], y[:100])
    assert model.n_iter_ == 6 and model.surrogate_per_epoch_.shape == (6,)


# ---------------------------------------------------------------------------
# streams and edge cases
# ---------------------------------------------------------------------------


def test_partial_fit_stream_of_batches_equals_one_pass():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((240, 6))
    y = (X[:, 0] + rng.standard_normal(240) > 1).astype(int)
    one = plain_sgd(k_per_batch=4, batch_size=40, shuffle=False).fit(X, y)  # n_epochs = 10
    stream = plain_sgd(k_per_batch=4, batch_size=40)
    for _ in range(10):
        for start in range(0, 240, 40):
            stream.partial_fit(X[start:start + 40], y[start:start + 40], classes=[0, 1])
    np.testing.assert_allclose(stream.coef_, one.coef_)
    assert stream.t_ == one.t_


def test_partial_fit_single_class_batches_need_classes():
    X = np.random.default_rng(0).standard_normal((10, 3))
    with pytest.raises(ValueError, match="classes"):
        plain_perceptron().partial_fit(X, np.zeros(10))
    model = plain_perceptron().partial_fit(X, np.zeros(10), classes=[0, 1])
    assert model.n_skipped_batches_ == 1 and model.t_ == 0
    np.testing.assert_array_equal(model.coef_, 0.0)
    assert np.isnan(model.surrogate_per_epoch_[0])
    with pytest.raises(ValueError, match="labels must be one of"):
        model.partial_fit(X, np.full(10, 2))
    with pytest.raises(ValueError, match="features"):
        model.partial_fit(X[:, :2], np.zeros(10))


@pytest.mark.parametrize("classes, error, message", [
    ([0, "a"], TypeError, "mixed types"), (("a", 0), TypeError, "mixed types"),
    (np.array([0.0, np.nan]), ValueError, "NaN is not a label"), ([0.0, float("nan")], ValueError, "NaN"),
])
def test_partial_fit_refuses_classes_that_are_no_labels(classes, error, message):
    # np.asarray([0, "a"]) is ["0", "a"]: without the check y = [0, 1] was refused as not among them
    X = np.random.default_rng(0).standard_normal((10, 3))
    with pytest.raises(error, match=f"classes: .*{message}"):
        plain_perceptron().partial_fit(X, np.arange(10) % 2, classes=classes)


@pytest.mark.parametrize("make", [plain_perceptron, plain_sgd])
def test_partial_fit_refuses_sample_weights_given_as_its_third_argument(make):
    # partial_fit(X, y, w): w is classes; 0/1 weights (rows left out by weight 0) were read as the labels 0 and 1
    # and the weights ignored without a word
    X = np.random.default_rng(0).standard_normal((10, 3))
    y = np.arange(10) % 2
    w = (np.arange(10) % 3 > 0).astype(float)
    with pytest.raises(ValueError, match=r"^classes: expected the two labels, got 10 values, one per row "
                                         r".*takes no sample weights"):
        make().partial_fit(X, y, w)
    model = make().partial_fit(X, y, classes=y)       # the labels of every row are still their classes
    np.testing.assert_array_equal(model.classes_, [0, 1])


def test_batch_with_fewer_positives_than_k_uses_k_npos():
    # 2 positives, k = 5: the batch is the k = n₊ = 2 problem
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    y = np.array([1, 1, 0, 0, 0, 0])
    model = plain_sgd(k_per_batch=5, batch_size=None, eta0=1.0).partial_fit(X, y)
    value, g, k_used, _ = reference_surrogate(y, np.zeros(6), 5, "avg")
    assert k_used == 2
    np.testing.assert_allclose(model.coef_, -(X.T @ g) / 2)


def test_string_labels_and_relevant_class():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 3))
    y_num = (X[:, 0] > 0.5).astype(int)
    y_str = np.where(y_num == 1, "spam", "ham")  # "spam" > "ham": the relevant class
    a = plain_perceptron(random_state=0).fit(X, y_num)
    b = plain_perceptron(random_state=0).fit(X, y_str)
    np.testing.assert_allclose(a.coef_, b.coef_)
    assert list(b.classes_) == ["ham", "spam"]
    assert b.score(X, y_str) == a.score(X, y_num)


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(k=0), "k: expected a count"),
        (dict(k=1.5), "whole count"),
        (dict(k_per_batch=600, batch_size=512), "k_per_batch: a count must not exceed the batch size"),
        (dict(k="5"), "k: expected an integer count"),
        (dict(batch_size=0), "batch_size: expected a positive integer"),
        (dict(n_epochs=0), "n_epochs"),
        (dict(surrogate="ramp"), "surrogate: expected one of"),
        (dict(eta0=0), "eta0: expected a finite number > 0"),
        (dict(alpha=-1), "alpha"),
        (dict(radius=0.0), "radius"),
        (dict(n_jobs=0), "n_jobs"),
        (dict(shuffle="yes"), "shuffle"),
    ],
)
def test_sgd_bad_parameters(params, match):
    X = np.random.default_rng(0).standard_normal((20, 2))
    y = np.arange(20) % 2
    with pytest.raises(ValueError, match=match):
        plain_sgd(**params).fit(X, y)


def test_perceptron_bad_variant_and_data():
    X = np.random.default_rng(0).standard_normal((20, 2))
    y = np.arange(20) % 2
    with pytest.raises(ValueError, match="variant: expected one of 'avg', 'max'"):
        plain_perceptron(variant="struct").fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        plain_perceptron().fit(np.where(X > 1, np.nan, X), y)
    with pytest.raises(ValueError, match="both classes|one class"):
        plain_perceptron().fit(X, np.ones(20))
    with pytest.raises(ValueError, match="inconsistent lengths"):
        plain_perceptron().fit(X, y[:-1])
    with pytest.raises(ValueError, match="requires y"):
        plain_perceptron().fit(X, None)


def test_sgd_overflow_is_reported():
    X = np.random.default_rng(0).standard_normal((40, 2)) * 1e300
    y = np.arange(40) % 2
    with pytest.raises(FloatingPointError, match="overflowed"):
        plain_sgd(eta0=1e300, batch_size=None).fit(X, y)


@pytest.mark.parametrize("cls", [PerceptronAtK, SGDAtK])
def test_a_short_partial_fit_caps_k_per_batch_as_fit_does(cls):
    # a 5-row call with k_per_batch=8 and batch_size=10 was refused ("raise batch_size"), where fit caps its
    # short last batch
    rng = np.random.default_rng(0)
    X = rng.standard_normal((105, 3))
    y = (X[:, 0] > 0.3).astype(int)
    model = cls(k_per_batch=8, batch_size=10, random_state=0, shuffle=False)
    model.partial_fit(X[:100], y[:100], classes=[0, 1]).partial_fit(X[100:], y[100:])
    assert np.isfinite(model.decision_function(X)).all()
    with pytest.raises(ValueError, match="k_per_batch: a count must not exceed the batch size \\(4 rows\\)"):
        cls(k_per_batch=8, batch_size=4).fit(X, y)
    with pytest.raises(ValueError, match="k_per_batch: a count must not exceed the rows of each batch "
                                         "\\(batch_size=None: the call's 105 rows\\)"):
        cls(k_per_batch=500, batch_size=None).fit(X, y)         # one batch of every row


@pytest.mark.parametrize("cls", [PerceptronAtK, SGDAtK])
def test_classes_given_again_must_be_the_first_calls(cls):
    X = np.random.default_rng(0).standard_normal((40, 3))
    y = np.arange(40) % 2
    model = cls(random_state=0).partial_fit(X, y, classes=[0, 1])
    model.partial_fit(X, y, classes=[0, 1])                     # the same: fine
    for other in (["neg", "pos"], [0, 1, 2]):
        with pytest.raises(ValueError, match="classes: .* differs from the classes of the first call, \\[0, 1\\]"):
            model.partial_fit(X, y, classes=other)


def test_an_eval_set_too_short_for_k_is_refused_before_any_epoch():
    X = np.random.default_rng(0).standard_normal((100, 3))
    y = (X[:, 0] > 0).astype(int)
    calls = []
    with pytest.raises(ValueError, match=r"eval_set: metric 'prec@k:50'"):
        SGDAtK(k=50, random_state=0).fit(X, y, eval_set=(X[:20], y[:20]),
                                                  callbacks=lambda info: calls.append(info))
    assert calls == []
