"""The 'cauchy' kernel: the Cauchy kernel K(x, x') = 1 / (1 + ‖x − x'‖²/γ).

A kernel gives the Gram matrices kernel ranking works with; it must be
symmetric and positive semi-definite (the Cauchy kernel is: it is a mixture
of Gaussian kernels).  ``rankcore.Kernel`` validates the rows before
``compute`` runs.
"""

import numpy as np

import rankcore
from rankcore.spec import Parameter


class Cauchy(rankcore.Kernel):
    """Cauchy kernel 1 / (1 + ‖x − x'‖²/γ): heavy-tailed, positive definite."""

    name = "cauchy"
    # A parameter arrives as an attribute of the same name: "cauchy:4" sets self.gamma = 4.
    parameters = (Parameter("gamma", float, default=1.0, minimum=1e-100, maximum=1e100,
                            doc="length scale γ (divides the squared distance)"),)
    examples = ("cauchy", "cauchy:0.1", "cauchy:25")

    def compute(self, X, Y, n_threads):
        Y = X if Y is None else Y
        # feature by feature: O(n r) memory, and (a − b)² = (b − a)², so K(X, X) is exactly symmetric
        squared = np.zeros((X.shape[0], Y.shape[0]))
        for j in range(X.shape[1]):
            squared += np.square(X[:, j, None] - Y[None, :, j])
        return 1.0 / (1.0 + squared / self.gamma)

    def diagonal(self, X, *, n_threads=None):
        return np.ones(np.asarray(X).shape[0])
