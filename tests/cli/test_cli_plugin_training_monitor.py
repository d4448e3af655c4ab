"""A plugin's push model fitted by the command line on a float32 file, monitoring its own training rows.

The command line gives a plugin's estimator float64 values; the monitored rows are then those values too, so the
eval set is still the training data itself: named ``training``, as for rankcore's own models.
"""

import numpy as np

from rankcore import PushBoost
from rankcore._progress import Progress
from rankcore.cli._models import ModelConfig, _kind_of, fit_one


class _PluginBoost(PushBoost):
    """A push model as a plugin distribution would ship it (its module is not rankcore's)."""


_PluginBoost.__module__ = "a_plugin.models"


def test_a_plugins_training_rows_monitor_is_named_training_on_float32_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)).astype(np.float32)
    y = (X[:, 0] > 0).astype(np.int64)
    config = ModelConfig(_kind_of(_PluginBoost), {"n_iter": 4})
    outcome = fit_one(config, X, y, progress=Progress("none", quiet=True), monitor=("auc", X, y),
                      monitor_label="train auc", keep_monitor_curve=True)
    assert list(outcome.estimator.evals_result_) == ["training"]
