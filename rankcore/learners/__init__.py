"""The ``learner`` plugin family: weak-ranker families searched by boosting."""

from ._base import Candidate, Learner, LearnerLayout, WeakRanker, multi_pass_search
from ._constraint_refusal import ConstraintRefusal, ConstraintSpecError
from ._curvature_floor import curvature_floor
from ._feature_names import checked_feature_names
from ._binning import MAX_BINS, bin_edges, check_binning_options, check_thresholds, quantile_thresholds, sample_rows
from ._lightgbm_text import lightgbm_feature_names, lightgbm_model_string
from ._xgboost_json import numeric_split_on, xgboost_json_string
from ._xgboost_model import xgboost_leaf_sources, xgboost_model_string
from ._features import FeatureLayout, FeatureRanker, Features
from ._rows import InMemoryRows, RowSource
from ._threshold import Stumps, ThresholdLayout, ThresholdRanker, Thresholds

__all__ = [
    "Learner", "LearnerLayout", "WeakRanker", "Candidate",
    "Features", "FeatureLayout", "FeatureRanker",
    "Stumps", "Thresholds", "ThresholdLayout", "ThresholdRanker",
    "bin_edges", "quantile_thresholds", "check_thresholds", "sample_rows", "MAX_BINS", "check_binning_options",
    "RowSource", "InMemoryRows", "multi_pass_search", "lightgbm_model_string", "lightgbm_feature_names",
    "xgboost_json_string", "xgboost_model_string", "xgboost_leaf_sources", "checked_feature_names",
    "numeric_split_on", "curvature_floor", "ConstraintRefusal", "ConstraintSpecError",
]
