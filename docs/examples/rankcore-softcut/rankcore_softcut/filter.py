"""The 'softcut' filter: a smooth spectral cut-off, g_λ(t) = (1 − exp(−(t/λ)^q)) / t.

A spectral filter g_λ(t) regularizes kernel ranking: it approximates 1/t for
eigenvalues t much larger than λ and stays bounded near t = 0.  With q = 1
this is Showalter's method; a larger q cuts off more sharply at t = λ.
``rankcore.Filter`` validates t, λ and the norm before ``evaluate`` runs.
"""

import numpy as np

import rankcore
from rankcore.spec import Parameter


class Softcut(rankcore.Filter):
    """Smooth cut-off g_λ(t) = (1 − exp(−(t/λ)^q))/t; g_λ(0) = 1/λ for q = 1, 0 for q > 1."""

    name = "softcut"
    # A parameter arrives as an attribute of the same name: "softcut:3" sets self.power = 3.
    parameters = (Parameter("power", float, default=2.0, minimum=1.0, maximum=16.0,
                            doc="the sharpness q in [1, 16] (1 is Showalter's method)"),)
    examples = ("softcut", "softcut:1", "softcut:4")

    def evaluate(self, t, lam, norm):
        x = np.power(t / lam, self.power)
        kept = -np.expm1(-x)                           # t·g_λ(t), in [0, 1], accurate for tiny x
        out = np.divide(kept, t, out=np.zeros_like(t), where=t > 0)
        if self.power == 1.0:
            out[t == 0] = 1.0 / lam                    # the limit at 0: x/t → 1/λ
        return out
