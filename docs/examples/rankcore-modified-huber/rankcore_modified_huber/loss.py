"""The 'modified-huber' loss: the modified Huber loss, quadratic near the margin and linear beyond.

A loss ℓ compares a positive i with a negative k through z = f_i − f_k in the
push objective R = Σ_k g(Σ_i ℓ(f_i − f_k)).  It must be convex,
non-negative, non-increasing and at least 1 for z ≤ 0.  Giving value and
derivative is enough: ``rankcore.Loss`` computes the pairwise sums exactly,
in O(I + K) memory, without ever building the I × K pairs.
"""

import numpy as np

import rankcore
from rankcore.spec import Parameter


class ModifiedHuber(rankcore.Loss):
    """ℓ(z) = ((m − z)/m)² on [−m, m), −4z/m below, 0 from m on: the modified Huber loss of margin m."""

    name = "modified-huber"
    # A parameter arrives as an attribute of the same name: "modified-huber:2" sets self.margin = 2.
    parameters = (Parameter("margin", float, default=1.0, minimum=0.0, exclusive_minimum=True,
                            doc="the margin m > 0 beyond which a pair costs nothing"),)
    examples = ("modified-huber", "modified-huber:0.5", "modified-huber:3")

    def value(self, z):
        z = np.asarray(z, dtype=np.float64)
        m = self.margin
        return np.where(z < -m, -4.0 * z / m, np.square(np.maximum(0.0, m - z) / m))

    def derivative(self, z):
        # at the kinks, the right-hand derivative (rankcore's convention)
        z = np.asarray(z, dtype=np.float64)
        m = self.margin
        return np.where(z < -m, -4.0 / m, -2.0 * np.maximum(0.0, m - z) / (m * m))

    def second_derivative(self, z):
        z = np.asarray(z, dtype=np.float64)
        m = self.margin
        return np.where((z >= -m) & (z < m), 2.0 / (m * m), 0.0)
