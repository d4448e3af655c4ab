"""CentroidRanker: a linear ranker that walks towards the difference of the class centroids.

After ``n_iter`` steps of size ``step`` the weights are w = (1 − (1 − step)^t) · d,
d the difference between the mean relevant row and the mean other row (on
standardized features if asked).  Small enough to read in one go, it uses
every part of the estimator contract: declared parameters (constructor,
docstring, validation), declared fitted state (model files, thread-safe
publish), a training curve and callbacks.
"""

import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data

from rankcore.base import Fitted, IterationInfo, Ranker, TrainingCurve, check_callbacks, run_callbacks
from rankcore.spec import Parameter
from rankcore.validation import check_finite_scores


class CentroidRanker(Ranker):
    """Rank by the direction from the mean other row to the mean relevant row.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The weights in the units of the input: scores are X @ coef_.
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the relevant class.
    distances_ : ndarray of shape (n_iter_ + 1,)
        ‖w_t − d‖ before the first step and after each one.
    n_iter_ : int
        Steps taken.
    """

    name = "CentroidRanker"
    aliases = ("centroid",)
    iteration_parameter = "n_iter"
    parameters = (
        Parameter("n_iter", int, default=10, minimum=1, doc="Steps towards the centroid difference."),
        Parameter("step", float, default=0.5, minimum=0.0, maximum=1.0, exclusive_minimum=True,
                  doc="The share of the remaining distance each step covers."),
        Parameter("standardize", bool, default=True, doc="Scale each feature to unit variance first."),
    )
    fitted = (
        Fitted("coef_", "coef", lambda w: np.ascontiguousarray(w, dtype=np.float64)),
        Fitted("classes_", "classes", lambda c: c.tolist()),
        Fitted("distances_", "distances", lambda v: np.ascontiguousarray(v, dtype=np.float64)),
        Fitted("n_iter_", "n_iter", int),
        Fitted("n_features_in_", "n_features_in", int),
    )

    def fit(self, X, y, *, callbacks=None):
        params = self._check_params()            # "n_iter: expected an integer >= 1, got 0"
        callbacks = check_callbacks(callbacks)
        X, y = validate_data(self, X, y, reset=True)
        self.classes_ = np.unique(y)
        if self.classes_.shape[0] != 2:
            raise ValueError(f"y: expected two classes, got {self.classes_.shape[0]}")
        relevant = y == self.classes_[1]
        scale = X.std(axis=0) if params.standardize else np.ones(X.shape[1])
        scale = np.where(scale > 0, scale, 1.0)
        target = (X[relevant].mean(axis=0) - X[~relevant].mean(axis=0)) / scale
        w = np.zeros(X.shape[1])
        distances = [float(np.linalg.norm(target))]
        for t in range(1, params.n_iter + 1):
            w = w + params.step * (target - w)
            distances.append(float(np.linalg.norm(target - w)))
            if callbacks and run_callbacks(callbacks, IterationInfo(t, params.n_iter, distances[-1])):
                break
        self.coef_ = w / scale
        self.distances_ = np.array(distances)
        self.n_iter_ = len(distances) - 1
        return self

    def decision_function(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        # finite weights can still overflow (a model file may hold 1e308): never return inf silently
        with np.errstate(over="ignore", invalid="ignore"):
            scores = X @ self.coef_
        return check_finite_scores(scores, owner="CentroidRanker.decision_function", X=X)

    def _training_curve(self):
        return TrainingCurve(np.arange(self.n_iter_ + 1), self.distances_, objective_name="distance to the target")

    def _restore_fitted_state(self, state, setup):
        coef, distances, d = state["coef"], state["distances"], state["n_features_in"]
        if type(d) is not int or d < 1:       # not a bool: True would pass as 1
            self._state_error(f"n_features_in must be a positive integer, got {d!r}")
        if not (isinstance(coef, np.ndarray) and coef.shape == (d,) and np.isfinite(coef).all()):
            self._state_error(f"coef must be {d} finite numbers")
        if not (isinstance(distances, np.ndarray) and distances.shape == (state["n_iter"] + 1,)):
            self._state_error("distances must hold n_iter + 1 numbers")
        if not (isinstance(state["classes"], list) and len(state["classes"]) == 2):
            self._state_error("classes must hold two labels")
        self.coef_, self.distances_, self.n_iter_ = coef, distances, state["n_iter"]
        self.classes_, self.n_features_in_ = np.asarray(state["classes"]), d
