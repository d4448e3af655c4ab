"""The built-in kernels against plain NumPy references and scikit-learn (γ divides here)."""

import numpy as np
import pytest
from sklearn.metrics import pairwise

import rankcore
from rankcore.kernels import CallableKernel, Kernel
from rankcore.spec import SpecError


def resolve(spec):
    return rankcore.get_registry().resolve("kernel", spec)


def ref_rbf(X, Y, gamma):
    return np.exp(-((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1) / gamma)


def ref_laplacian(X, Y, gamma):
    return np.exp(-np.abs(X[:, None, :] - Y[None, :, :]).sum(-1) / gamma)


def ref_poly(X, Y, degree, gamma, coef0):
    return (X @ Y.T / gamma + coef0) ** degree


CASES = {
    "rbf:2.5": lambda X, Y: ref_rbf(X, Y, 2.5),
    "laplacian:1.5": lambda X, Y: ref_laplacian(X, Y, 1.5),
    "poly:3,gamma=2,coef0=1": lambda X, Y: ref_poly(X, Y, 3, 2.0, 1.0),
    "poly:1,gamma=1,coef0=0": lambda X, Y: X @ Y.T,
    "linear": lambda X, Y: X @ Y.T,
}


def data(rng, n, d=4, offset=0.0):
    X = rng.normal(size=(n, d)) + offset
    X[1] = X[0]  # exact duplicate rows
    return X


@pytest.mark.parametrize("impl", ["reference", "fast"])
@pytest.mark.parametrize("spec", sorted(CASES))
@pytest.mark.parametrize("n_threads", [1, 2], ids=lambda t: f"threads={t}")
def test_gram_matches_reference(spec, impl, n_threads, exact_threads):
    exact_threads(n_threads)
    rng = np.random.default_rng(3)
    X, Y = data(rng, 57), data(rng, 23)
    expected_xx, expected_xy = CASES[spec](X, X), CASES[spec](X, Y)
    if impl == "reference":
        got_xx, got_xy = CASES[spec](X, X), CASES[spec](X, Y)
    else:
        k = resolve(spec)
        got_xx, got_xy = k(X, n_threads=n_threads), k(X, Y, n_threads=n_threads)
        assert np.array_equal(got_xx, got_xx.T)
    scale = np.abs(expected_xx).max()
    np.testing.assert_allclose(got_xx, expected_xx, rtol=1e-12, atol=1e-13 * scale)
    np.testing.assert_allclose(got_xy, expected_xy, rtol=1e-12, atol=1e-13 * scale)


@pytest.mark.parametrize("n", [0, 1, 2, 65, 130])
def test_gram_edge_sizes(n):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(max(n, 1), 3))[:n] if n else np.empty((0, 3))
    if n == 0:
        with pytest.raises(ValueError):
            resolve("rbf:1")(X)
        return
    for spec in CASES:
        np.testing.assert_allclose(resolve(spec)(X), CASES[spec](X, X), rtol=1e-12, atol=1e-12)


def test_rbf_far_from_origin_keeps_accuracy():
    # |x|^2 + |y|^2 - 2<x,y> cancels for rows far from the origin; the kernel centers first.
    rng = np.random.default_rng(1)
    X = data(rng, 40, offset=1e6)
    np.testing.assert_allclose(resolve("rbf:3")(X), ref_rbf(X - 1e6, X - 1e6, 3.0), rtol=1e-9, atol=1e-12)
    assert np.all(np.diag(resolve("rbf:3")(X)) == 1.0)


@pytest.mark.parametrize("ours, theirs", [
    ("rbf:4", lambda X, Y: pairwise.rbf_kernel(X, Y, gamma=0.25)),
    ("laplacian:4", lambda X, Y: pairwise.laplacian_kernel(X, Y, gamma=0.25)),
    ("poly:2,gamma=4,coef0=1", lambda X, Y: pairwise.polynomial_kernel(X, Y, degree=2, gamma=0.25, coef0=1)),
    ("linear", lambda X, Y: pairwise.linear_kernel(X, Y)),
])
def test_gamma_is_the_reciprocal_of_scikit_learns(ours, theirs):
    rng = np.random.default_rng(2)
    X, Y = data(rng, 30), data(rng, 11)
    np.testing.assert_allclose(resolve(ours)(X, Y), theirs(X, Y), rtol=1e-12, atol=1e-14)


def test_scale_is_resolved_from_training_data():
    rng = np.random.default_rng(4)
    X = rng.normal(scale=3.0, size=(50, 5))
    assert resolve("rbf").with_data(X).gamma == pytest.approx(5 * X.var())
    assert resolve("poly:2").with_data(X).gamma == pytest.approx(5 * X.var())
    assert resolve("laplacian").with_data(X).gamma == pytest.approx(5 * X.std())
    assert resolve("rbf").with_data(np.ones((4, 2))).gamma == 1.0  # constant data
    assert resolve("rbf:7").with_data(X).gamma == 7.0
    fitted = resolve("rbf").with_data(X)
    assert rankcore.get_registry().resolve("kernel", fitted.spec) == fitted
    with pytest.raises(ValueError, match="with_data"):
        resolve("rbf")(X)


def test_kernel_spec_errors():
    with pytest.raises(SpecError, match="gamma"):
        resolve("rbf:-1")
    with pytest.raises(SpecError, match="gamma"):
        resolve("rbf:abc")
    with pytest.raises(SpecError, match="degree"):
        resolve("poly:0")
    with pytest.raises(SpecError, match="coef0"):
        resolve("poly:2,coef0=-1")


def test_kernel_input_errors():
    k = resolve("rbf:1")
    X = np.ones((3, 2))
    with pytest.raises(ValueError, match="same number of features"):
        k(X, np.ones((3, 3)))
    with pytest.raises(ValueError, match="NaN"):
        k(np.array([[np.nan, 1.0]]))
    with pytest.raises(ValueError, match="2-D"):
        k(np.ones(3))
    with pytest.raises(TypeError):
        k(np.array([["a", "b"]]))


def test_callable_kernel_matrix_and_pair_forms():
    rng = np.random.default_rng(5)
    X, Y = data(rng, 9), data(rng, 4)
    matrix = CallableKernel(lambda A, B: pairwise.rbf_kernel(A, B, gamma=0.5))
    pair = CallableKernel(lambda a, b: float(np.exp(-0.5 * ((a - b) ** 2).sum())))
    np.testing.assert_allclose(matrix(X, Y), ref_rbf(X, Y, 2.0), rtol=1e-12)
    np.testing.assert_allclose(pair(X, Y), ref_rbf(X, Y, 2.0), rtol=1e-12)
    assert np.array_equal(pair(X), pair(X).T)
    with pytest.raises(TypeError, match="callable kernel"):
        CallableKernel(lambda a, b: "x")(X)
    with pytest.raises(TypeError):
        CallableKernel(3)
    for bad in (np.nan, np.inf):    # the user's function at fault: a ValueError naming kernel, not a RuntimeError
        with pytest.raises(ValueError, match=r"^kernel: the callable <lambda> returned NaN or infinite values"):
            CallableKernel(lambda A, B, v=bad: np.full((len(A), len(B)), v))(X, Y)


def test_kernel_base_requires_compute():
    class Empty(Kernel):
        name = "empty-test"

    with pytest.raises(NotImplementedError, match="empty-test"):
        Empty()(np.ones((2, 2)))


# --------------------------------------------------------------------------
# Documented parameter bounds: clear spec errors, not RuntimeError
# --------------------------------------------------------------------------


def test_kernel_parameter_bounds_are_exit_2_from_the_cli(tmp_path, capsys):
    from rankcore.cli import main

    rng = np.random.default_rng(0)
    path = tmp_path / "d.csv"
    rows = "".join(f"{a!r},{b!r},{int(a > 0)}\n" for a, b in rng.normal(size=(30, 2)))
    path.write_text("a,b,label\n" + rows)
    for option in (["--kernel", "rbf:1e-320"], ["--kernel", "poly:degree=1e9"], ["--filter", "iterated:1e308"]):
        status = main(["fit", str(path), "--model", "kernel", *option, "--out", str(tmp_path / "m.json"), "-q"])
        err = capsys.readouterr().err
        assert status == 2 and len(err.strip().splitlines()) == 1 and "must be" in err, err


def test_kernel_overflow_on_huge_finite_data_is_a_value_error():
    """Found by the load_model fuzzing: |x| ~ 1e200 overflows poly; an input error, not a bug."""
    X = np.array([[1e200, 0.0], [0.0, 1.0]])
    kernel = rankcore.get_registry().resolve("kernel", "poly:2,gamma=1")
    with pytest.raises(ValueError, match=r"not finite on these data.*features \(up to 1e\+200 in size\).*scale "
                                         r"the features"):
        kernel(X)


@pytest.mark.parametrize("spec", ["poly:coef0=1e308", "poly:degree=100,coef0=1e10"])
def test_kernel_overflow_from_its_parameters_says_so(spec):
    """coef0=1e308 on features of ordinary size: the message blamed the features alone."""
    X = np.random.default_rng(0).normal(size=(30, 2))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match=r"kernel 'poly:.*': the kernel values are not finite on these data .* or the "
                                         r"kernel's parameters are too large for it: .* lower the parameters"):
        rankcore.KernelRanker(kernel=spec).fit(X, y)
