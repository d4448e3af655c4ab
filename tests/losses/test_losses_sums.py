"""Pairwise sums of the losses: every fast path against explicit pairs ([reference, fast])."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.losses import Exponential, Hinge, Logistic, SquaredHinge, _blocked
from rankcore.losses._base import Loss
from rankcore.registry import resolve
from rankcore.spec import SpecError
from rankcore.testing import check_component
from rankcore.testing._losses import pairwise_reference

from _python_losses import PythonHinge, PythonLogistic

BUILTIN = [Exponential(), Logistic(), Hinge(), SquaredHinge()]


ALL = BUILTIN + [PythonHinge(), PythonLogistic()]


def _case(rng, I, K, ties=True):
    f_pos = rng.normal(0, 1.5, I)
    f_neg = rng.normal(0, 1.5, K)
    if ties and I > 2 and K > 2:
        f_pos[: I // 2] = np.round(f_pos[: I // 2], 1)
        f_neg[: K // 2] = np.round(f_neg[: K // 2], 1)
        f_pos[0] = f_neg[0] + 1.0            # the hinge kink z = 1 exactly
        f_pos[1] = f_neg[1]                   # a tie across classes
    return (f_pos, rng.uniform(0.1, 2.0, I), f_neg, rng.uniform(0.0, 2.0, K),
            rng.uniform(0, 1, I), rng.uniform(0, 1, K))


def _check(loss, case, n_threads):
    f_pos, w, f_neg, c, hp, hn = case
    L, D, E, L1, L2 = pairwise_reference(loss, f_pos, w, f_neg, c, hp, hn)
    got_L, got_D = loss.negative_sums(f_pos, w, f_neg, n_threads=n_threads)
    got_E = loss.positive_sums(f_pos, f_neg, c, n_threads=n_threads)
    dl, d1, d2 = loss.directional_sums(f_pos, w, hp, f_neg, hn, n_threads=n_threads)
    for got, ref in [(got_L, L), (got_D, D), (got_E, E), (dl, L), (d1, L1)] + ([(d2, L2)] if L2 is not None else []):
        np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-10 * max(1.0, np.abs(ref).max(initial=0)))
    if L2 is None:
        assert np.isnan(d2).all()


@pytest.mark.parametrize("n_threads", [1, 2], ids=lambda n: f"threads={n}")
@pytest.mark.parametrize("loss", ALL, ids=lambda l: l.name)
@pytest.mark.parametrize("I, K", [(1, 1), (1, 9), (13, 1), (37, 29), (150, 240)], ids=lambda v: str(v))
def test_pairwise_sums_match_explicit_pairs(loss, I, K, n_threads):
    _check(loss, _case(np.random.default_rng(I * 1000 + K), I, K), n_threads)


@settings(max_examples=40)
@given(seed=st.integers(0, 10**6), I=st.integers(1, 30), K=st.integers(1, 30),
       loss=st.sampled_from(ALL), grid=st.sampled_from([None, 0.5, 0.25]))
def test_pairwise_sums_property(seed, I, K, loss, grid):
    """Random sizes; scores on a coarse grid create many exact ties and exact kinks."""
    rng = np.random.default_rng(seed)
    case = list(_case(rng, I, K, ties=False))
    if grid is not None:
        case[0] = np.round(case[0] / grid) * grid
        case[2] = np.round(case[2] / grid) * grid
    _check(loss, tuple(case), 1)


def test_numpy_fallback_tiles(monkeypatch):
    """The blocked NumPy loop gives the same sums with tiny tiles (many blocks each way)."""
    case = _case(np.random.default_rng(3), 23, 31)
    loss = PythonLogistic()
    ref = [loss.negative_sums(case[0], case[1], case[2]), loss.positive_sums(case[0], case[2], case[3])]
    monkeypatch.setattr(_blocked, "BLOCK_PAIRS", 7)
    for n_threads in (1, 3):
        got = [loss.negative_sums(case[0], case[1], case[2], n_threads=n_threads),
               loss.positive_sums(case[0], case[2], case[3], n_threads=n_threads)]
        np.testing.assert_allclose(got[0][0], ref[0][0], rtol=1e-13)
        np.testing.assert_allclose(got[0][1], ref[0][1], rtol=1e-13)
        np.testing.assert_allclose(got[1], ref[1], rtol=1e-13)


def test_logistic_factorized_and_generic_kernels_agree():
    """The one-exp-per-example logistic kernel against the per-pair generic kernel, in every regime."""
    rng = np.random.default_rng(7)
    loss = Logistic()
    for scale in (1e-6, 1e-2, 1.0, 20.0, 250.0):
        f_pos, f_neg = rng.normal(0, scale, 200), rng.normal(0, scale, 300)
        w = np.ones(200)
        fast = loss.negative_sums(f_pos, w, f_neg)
        slow = Loss.negative_sums(loss, f_pos, w, f_neg)
        np.testing.assert_allclose(fast[0], slow[0], rtol=1e-12)
        np.testing.assert_allclose(fast[1], slow[1], rtol=1e-12)


def test_logistic_wide_scores_fall_back_to_the_generic_kernel():
    loss = Logistic()
    f_pos, f_neg = np.array([-500.0, 0.0, 500.0]), np.array([-400.0, 10.0, 450.0])
    L, D = loss.negative_sums(f_pos, np.ones(3), f_neg)
    ref = pairwise_reference(loss, f_pos, np.ones(3), f_neg, np.ones(3), np.zeros(3), np.zeros(3))
    np.testing.assert_allclose(L, ref[0], rtol=1e-12)
    assert np.isfinite(L).all()


def test_sums_with_an_empty_class():
    for loss in BUILTIN:
        L, D = loss.negative_sums(np.empty(0), np.empty(0), np.array([0.5, 1.0]))
        np.testing.assert_array_equal(L, 0.0)
        assert loss.positive_sums(np.empty(0), np.array([0.5]), np.ones(1)).shape == (0,)


def test_hinge_sums_are_exact_for_large_shifted_scores():
    """Centering keeps the prefix-sum expansion accurate when every score is large."""
    rng = np.random.default_rng(0)
    f_pos, f_neg = 1e6 + rng.normal(size=50), 1e6 + rng.normal(size=60)
    for loss in (Hinge(), SquaredHinge()):
        ref = pairwise_reference(loss, f_pos, np.ones(50), f_neg, np.ones(60), np.zeros(50), np.zeros(60))
        L, _ = loss.negative_sums(f_pos, np.ones(50), f_neg)
        np.testing.assert_allclose(L, ref[0], rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("center", [0.0, 0.37, -2.5e5, 1e6 + 0.05])
@pytest.mark.parametrize("degree", [1, 2])
def test_sorted_kernels_count_pairs_by_the_raw_scores_whatever_the_centre(degree, center):
    """The centre moves the expansion only: the counted pairs are those of f_i − f_k < 1 on the raw scores.

    Weights are distinct powers of two, so the hinge's D and E (sums of the counted weights) are exact and name
    the counted set; L, D, E of either degree match the pairs to rounding of the centred terms.
    """
    from rankcore.losses import _sorted_sums

    rng = np.random.default_rng(degree)
    grid = 1e6 + np.arange(-15, 16) / 10.0                 # pairs exactly 10 steps apart: z = 1 up to rounding
    f_pos, f_neg = rng.choice(grid, 40), rng.choice(grid, 45)
    f_pos[:6] = f_neg[:6] + 1.0                             # and z = 1 after rounding
    f_pos.sort()
    w, c = np.exp2(rng.permutation(40)), np.exp2(rng.permutation(45))
    live = (f_pos[None, :] - f_neg[:, None]) < 1.0
    L, D, E = np.empty(45), np.empty(45), np.empty(40)
    _sorted_sums.negative_sums(1, f_pos, w, f_neg, center, L, D, 1)
    order = np.argsort(f_neg)
    _sorted_sums.positive_sums(1, f_neg[order], c[order], f_pos, center, E, 1)
    np.testing.assert_array_equal(D, -(w * live).sum(axis=1))
    np.testing.assert_array_equal(E, -(c[:, None] * live).sum(axis=0))
    loss = Hinge() if degree == 1 else SquaredHinge()
    ref = pairwise_reference(loss, f_pos, w, f_neg, c, np.zeros(40), np.zeros(45))
    _sorted_sums.negative_sums(degree, f_pos, w, f_neg, center, L, D, 1)
    _sorted_sums.positive_sums(degree, f_neg[order], c[order], f_pos, center, E, 1)
    spread = (1.0 + np.abs(grid - center).max()) ** degree * max(w.sum(), c.sum())   # the terms' size
    for got, want in ((L, ref[0]), (D, ref[1]), (E, ref[2])):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-14 * spread)


def test_logistic_is_in_bits():
    assert Logistic().value(np.array([0.0]))[0] == pytest.approx(1.0)


@pytest.mark.parametrize("spec", ["exp", "logistic", "hinge", "sqhinge"])
def test_builtin_loss_contract(spec):
    check_component("loss", spec)


def test_loss_specs():
    assert resolve("loss", "squared_hinge") == SquaredHinge()
    with pytest.raises(SpecError, match="unknown loss 'hing'"):
        resolve("loss", "hing")
    with pytest.raises(SpecError, match="too many arguments"):
        resolve("loss", "exp:2")


def test_loss_base_class_requires_value():
    with pytest.raises(NotImplementedError, match="must implement value"):
        rankcore.Loss().value(np.zeros(1))
    assert rankcore.Loss().pairwise_kernel() is None


@pytest.mark.parametrize("kernel", ["logistic", "exp", "hinge", "sqhinge"])
def test_generic_pairwise_kernel_is_the_same_bit_for_bit_on_any_thread_count(kernel):
    """One thread owns each output, so 1 and 2 threads give identical sums, every time.

    Regression: the per-pair ℓ, ℓ′, ℓ″ were written through pointers by the
    loss's ``evaluate``, so OpenMP shared them between the threads of the
    pair loop, and with 2 threads a sum now and then took another pair's
    term (off by ~1 in 5,000).  Each tile now keeps them on its own stack
    (``rankcore.losses._tiling``).  Large enough for both threads to run.
    """
    from rankcore.losses import _pairwise

    kern = {"logistic": _pairwise.LogisticKernel(1.0), "exp": _pairwise.ExponentialKernel(0.7),
            "hinge": _pairwise.TruncatedPowerKernel(1), "sqhinge": _pairwise.TruncatedPowerKernel(2)}[kernel]
    rng = np.random.default_rng(11)
    I, K = 3000, 2600                        # > TILE on each side: several tiles and chunks
    f_pos, f_neg = np.round(rng.normal(size=I), 2), np.round(rng.normal(size=K), 2) - 0.3
    w, c = rng.uniform(0.5, 2, size=I), rng.uniform(0, 1, size=K)
    hp, hn = rng.normal(size=I), rng.normal(size=K)

    def sums(n_threads):
        L, D, E = np.empty(K), np.empty(K), np.empty(I)
        dl, d1, d2 = np.empty(K), np.empty(K), np.empty(K)
        _pairwise.negative_sums(kern, f_pos, w, f_neg, L, D, n_threads)
        _pairwise.positive_sums(kern, f_pos, f_neg, c, E, n_threads)
        _pairwise.directional_sums(kern, f_pos, w, hp, f_neg, hn, dl, d1, d2, 2, n_threads)
        return np.concatenate([L, D, E, dl, d1, d2])

    one = sums(1)
    for _ in range(3):
        assert sums(2).tobytes() == one.tobytes()


@pytest.mark.parametrize("loss", [Hinge(), SquaredHinge()], ids=["hinge", "sqhinge"])
def test_one_far_score_leaves_the_others_sums_exact(loss):
    # one score far from the rest must not spoil the others' sums: with scores in [0, 3] and one at 1e9 a centre
    # half way between would make the squared hinge's L over the other negatives cancel (or turn negative)
    rng = np.random.default_rng(0)
    f_pos, f_neg = rng.uniform(0, 3, 300), rng.uniform(0, 3, 300)
    f_neg[0] = 1e9
    w, c = rng.uniform(0.5, 1.5, 300), rng.uniform(0.5, 1.5, 300)
    L, D = loss.negative_sums(f_pos, w, f_neg)
    E = loss.positive_sums(f_pos, f_neg, c)
    z = f_pos[:, None] - f_neg[None, :]
    live = z < 1
    L_ref = (w[:, None] * np.where(live, (1 - z) ** loss.degree, 0)).sum(0)
    D_ref = (w[:, None] * np.where(live, -loss.degree * (1 - z) ** (loss.degree - 1), 0)).sum(0)
    E_ref = (c[None, :] * np.where(live, -loss.degree * (1 - z) ** (loss.degree - 1), 0)).sum(1)
    np.testing.assert_allclose(L, L_ref, rtol=1e-12)
    np.testing.assert_allclose(D, D_ref, rtol=1e-12)
    np.testing.assert_allclose(E, E_ref, rtol=1e-12)
