"""The kernel contract checks (rankcore.testing._kernels) catch broken kernels, and a plugin kernel works end to end."""

import numpy as np
import pytest

import rankcore
from rankcore.kernels import Kernel
from rankcore.registry import register_plugin, unregister_plugin
from rankcore.testing import _kernels, check_component


class Asymmetric(Kernel):
    name = "asymmetric"

    def compute(self, X, Y, n_threads):
        Y = X if Y is None else Y
        return np.exp(-np.abs(X[:, :1] - 0.9 * Y[:, :1].T))


class Indefinite(Kernel):
    """−‖x − y‖: symmetric, not PSD."""

    name = "indefinite"

    def compute(self, X, Y, n_threads):
        Y = X if Y is None else Y
        return -np.sqrt(((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1))


class WrongDiagonal(Kernel):
    name = "wrong-diagonal"

    def compute(self, X, Y, n_threads):
        Y = X if Y is None else Y
        return X @ Y.T

    def diagonal(self, X, *, n_threads=None):
        return np.zeros(np.asarray(X).shape[0])


@pytest.mark.parametrize("broken, check", [
    (Asymmetric, _kernels.check_kernel_symmetric_psd),
    (Indefinite, _kernels.check_kernel_symmetric_psd),
    (WrongDiagonal, _kernels.check_kernel_blocks_consistent),
], ids=lambda v: getattr(v, "__name__", str(v)))
def test_contract_check_fails_on_broken_kernel(broken, check):
    with pytest.raises(AssertionError):
        check(broken(), np.random.default_rng(0))


def test_plugin_kernel_passes_checks_and_fits():
    class Cauchy(Kernel):
        """1 / (1 + ‖x − x'‖²/γ): PSD (a scale mixture of Gaussians)."""

        name = "test-cauchy"
        parameters = (rankcore.Parameter("gamma", float, default=1.0, minimum=0.0, exclusive_minimum=True),)

        def compute(self, X, Y, n_threads):
            Y = X if Y is None else Y
            d2 = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
            return 1.0 / (1.0 + d2 / self.gamma)

    class Plugin:
        @rankcore.hookimpl
        def rankcore_register_kernels(self):
            return [Cauchy]

    register_plugin(Plugin(), name="test-kernel-plugin")
    try:
        check_component("kernel", "test-cauchy:2")
        rng = np.random.default_rng(0)
        X = rng.normal(size=(40, 2))
        y = X[:, 0] + 0.1 * rng.normal(size=40)
        model = rankcore.KernelRanker(kernel="test-cauchy", gamma=2.0, lam=1e-3).fit(X, y)
        assert model.kernel_.spec == "test-cauchy:2"
        assert model.score(X, y) > 0.8
    finally:
        unregister_plugin("test-kernel-plugin")
