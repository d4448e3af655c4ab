"""The 'pairwise-logistic' estimator: a linear ranker fitted by stochastic gradient descent on sampled pairs.

It minimizes the pairwise logistic loss of linear scores f(x) = w·x,

    J(w) = mean over pairs (i relevant, k not) of log(1 + exp(−(f(x_i) − f(x_k)))) + (α/2)‖w‖²,

the loss of RankNet (Burges et al., "Learning to Rank using Gradient Descent",
2005) for a linear model, by stochastic pairwise descent (Sculley, "Large Scale
Learning to Rank", 2009): each step draws ``batch_size`` pairs at random and
follows their gradient, so a step costs O(batch_size · n_features) time and
memory whatever the number of rows -- the I × K pairs are never formed.

``rankcore.Ranker`` turns the declarations below into the constructor, the
docstring's "Parameters" section, the validation of ``fit`` and of loaded
model files, the model file itself and ``rankcore fit --model pairwise-logistic``; this
module only fits and scores.
"""

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from rankcore.base import (Fitted, IterationInfo, Ranker, TrainingCurve, check_callbacks, fits_on_a_copy,
                           random_state_kind, reads_a_snapshot, run_callbacks)
from rankcore.spec import Parameter
from rankcore.validation import check_bipartite_target, check_finite_scores


class PairwiseLogistic(Ranker):
    """Linear ranker fitted by SGD on random (relevant, other) pairs of rows, with the pairwise logistic loss.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The weights, in the units of the input: the scores are ``X @ coef_``.
    classes_ : ndarray of shape (2,)
        The two labels; the greater, ``classes_[1]``, is the relevant class.
    objective_ : ndarray of shape (n_iter_ + 1,)
        J on a fixed sample of pairs, before the first step and after each.
    n_iter_ : int
        The steps taken (fewer than ``n_iter`` when a callback stopped the fit).
    """

    name = "PairwiseLogistic"  # the "estimator" of its model files
    aliases = ("pairwise-logistic",)  # rankcore fit --model pairwise-logistic
    summary = "linear: SGD on sampled pairs, pairwise logistic loss"  # rankcore plugins, rankcore fit --help
    iteration_parameter = "n_iter"  # training_curve_, fit(callbacks=...), rankcore fit --n-iter
    parameters = (
        Parameter("n_iter", int, default=100, minimum=1, doc="Gradient steps."),
        Parameter("batch_size", int, default=256, minimum=1, doc="Pairs drawn for each step."),
        Parameter("learning_rate", float, default=0.5, minimum=0.0, exclusive_minimum=True,
                  doc="Step size η: step t moves by η/√t along the gradient of its batch."),
        Parameter("alpha", float, default=1e-4, minimum=0.0, doc="Weight α of the penalty (α/2)‖w‖²."),
        Parameter("random_state", random_state_kind(generator=False), default=None,
                  doc="Seed of the pair draws (an integer for a reproducible fit)."),
    )
    # What a fit publishes and a model file holds (n_features_in_ is set by validate_data).
    fitted = (
        Fitted("coef_", "coef"),
        Fitted("classes_", "classes", lambda classes: classes.tolist()),
        Fitted("objective_", "objective"),
        Fitted("n_iter_", "n_iter"),
        Fitted("n_features_in_", "n_features_in"),
    )
    # The specs rankcore.testing's contract checks fit: the defaults, and small batches with a strong penalty.
    examples = ("PairwiseLogistic:random_state=0",
                "PairwiseLogistic:n_iter=20,batch_size=4,alpha=0.5,random_state=1")

    @fits_on_a_copy  # works on a copy; the declared fitted attributes are published in one step
    def fit(self, X, y, *, callbacks=None):
        """Fit the weights on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two labels; the greater (1 of 0/1) is the relevant class.
        callbacks : callable or list of callables, optional
            Each is called after every step with a ``rankcore.base.IterationInfo``;
            a truthy return value stops the fit.

        Returns
        -------
        self
        """
        params = self._check_params()                  # "n_iter: expected an integer >= 1, got 0"
        callbacks = check_callbacks(callbacks)
        X, y = validate_data(self, X, y, reset=True, dtype=np.float64)
        relevant, self.classes_ = check_bipartite_target(y)
        rng = check_random_state(params.random_state)
        # Standardized features, so that one step size suits every scale; the means cancel in x_i − x_k.
        scale = X.std(axis=0)
        scale[scale == 0] = 1.0
        Z = X / scale
        top, rest = np.flatnonzero(relevant), np.flatnonzero(relevant == 0)

        def draw_pairs():
            """x_i − x_k of ``batch_size`` pairs, each drawn uniformly (with replacement)."""
            return Z[rng.choice(top, params.batch_size)] - Z[rng.choice(rest, params.batch_size)]

        monitor = draw_pairs()                         # a fixed sample: its J is comparable from step to step
        w = np.zeros(X.shape[1])
        objective = [_objective(w, monitor, params.alpha)]
        for t in range(1, params.n_iter + 1):
            pairs = draw_pairs()
            # at the margin m = w·(x_i − x_k), d/dw log(1 + e^−m) = −σ(−m)·(x_i − x_k),
            # with σ(−m) = 1/(1 + e^m) computed as exp(−log(1 + e^m)): no overflow for any m
            weights = np.exp(-np.logaddexp(0.0, pairs @ w))
            gradient = -(pairs.T @ weights) / params.batch_size + params.alpha * w
            w = w - params.learning_rate / np.sqrt(t) * gradient
            objective.append(_objective(w, monitor, params.alpha))
            if callbacks and run_callbacks(callbacks, IterationInfo(t, params.n_iter, objective[-1])):
                break
        self.coef_ = w / scale
        self.objective_ = np.array(objective)
        self.n_iter_ = len(objective) - 1
        return self

    @reads_a_snapshot  # one whole model, even while another thread refits this one
    def decision_function(self, X):
        """The scores ``X @ coef_``: the higher, the nearer the top of the list."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return check_finite_scores(X @ self.coef_, owner=f"{type(self).__name__}.decision_function", X=X)

    def _training_curve(self):
        return TrainingCurve(np.arange(self.n_iter_ + 1), self.objective_,
                             objective_name="pairwise logistic loss J (sample of pairs)", unit="step")

    def _restore_fitted_state(self, state, params):
        """Check a model file's fields (``params``: its parameters, checked as ``fit`` checks them) and set them."""
        d, steps = state["n_features_in"], state["n_iter"]
        if not (type(d) is int and d >= 1):
            self._state_error(f"n_features_in must be a positive integer, got {d!r}")
        if not (type(steps) is int and 0 <= steps <= params.n_iter):
            self._state_error(f"n_iter must be an integer in [0, {params.n_iter}], got {steps!r}")
        for key, shape in (("coef", (d,)), ("objective", (steps + 1,))):
            value = state[key]
            if not (isinstance(value, np.ndarray) and value.dtype == np.float64 and value.shape == shape
                    and np.isfinite(value).all()):
                self._state_error(f"{key} must be {shape[0]} finite float64 numbers")
        classes = state["classes"]
        if not (isinstance(classes, list) and len(classes) == 2 and classes[0] != classes[1]
                and all(isinstance(label, (str, int, float)) for label in classes)):
            self._state_error(f"classes must hold two distinct labels, got {classes!r}")
        self.coef_, self.objective_, self.n_iter_ = state["coef"], state["objective"], steps
        self.classes_, self.n_features_in_ = np.asarray(classes), d


def _objective(w, pairs, alpha):
    """J(w) on the pair differences ``pairs``: logaddexp, so that a large margin never overflows."""
    return float(np.mean(np.logaddexp(0.0, -(pairs @ w))) + 0.5 * alpha * (w @ w))
