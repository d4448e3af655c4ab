"""A metric's refusal is a ``MetricRefusal`` on every route, said once with the right names.

The routes: ``rankcore.evaluate`` and ``metric(y, s)`` (the front door), a fit's ``scoring=`` on its ``eval_set``
with and without queries, ``eval_metric=``; the metrics: the built-ins and a plugin's, whose own ``check_data`` or
``query_values`` raises a plain ``ValueError`` naming the labels ``y`` and itself (as the plugin template does).
"""

import numpy as np
import pytest

import rankcore
from _plugin_registration import components_registered
from rankcore.metrics import MetricRefusal

rng = np.random.default_rng(0)
SIZES = [6, 10, 7, 8, 9, 5, 10, 8]
QID = np.repeat(np.arange(len(SIZES)), SIZES)
X = rng.normal(size=(QID.size, 3))
GRADES = np.clip(np.round(X[:, 0] + rng.normal(scale=0.5, size=QID.size) + 1), 0, 3)
BINARY = (GRADES > 1).astype(float)
SCORES = X[:, 0] + rng.normal(scale=0.3, size=QID.size)
FEW = np.zeros(QID.size)
FEW[[0, 7]] = 1                      # two relevant rows: the plugin below refuses them


class FewRelevant(rankcore.Metric):
    """A plugin metric whose checks raise plain ValueErrors in its own words (``y: metric 'x' ...``)."""

    name = "test-few-relevant"
    requires_both_classes = False

    def check_data(self, y, scores):
        if y.sum() < 3:
            raise ValueError(f"y: metric {self.spec!r} needs at least 3 relevant rows, got {int(y.sum())}")

    def query_values(self, y, scores, queries):
        if y.sum() < 3:
            raise ValueError(f"metric {self.spec!r}: needs at least 3 relevant rows, got {int(y.sum())}")
        return np.full(queries.n_queries, 0.5)

    def compute(self, y, scores):
        return float(scores[y == 1].mean())


PLUGIN = "test-few-relevant"
DETAIL = "needs at least 3 relevant rows, got 2"


def _fit(scoring=None, eval_metric=None, qid=False, second=False):
    sets = [(X, FEW, QID) if qid else (X, FEW)]
    if second:
        sets.insert(0, (X, BINARY, QID) if qid else (X, BINARY))
    model = rankcore.boost(n_iter=2, random_state=0, scoring=scoring)
    return model.fit(X, BINARY, qid=QID if qid else None, eval_set=sets if second else sets[0],
                     eval_metric=eval_metric)


@pytest.mark.parametrize("route, message, parameter, eval_set", [
    (dict(scoring=PLUGIN), f"scoring='{PLUGIN}' on eval_set: {DETAIL}", "scoring", "eval_set"),
    (dict(scoring=PLUGIN, second=True), f"scoring='{PLUGIN}' on eval_set[1]: {DETAIL}", "scoring", "eval_set[1]"),
    (dict(scoring=PLUGIN, qid=True), f"scoring='{PLUGIN}' on eval_set: {DETAIL}", "scoring", "eval_set"),
    (dict(scoring=PLUGIN, qid=True, second=True), f"scoring='{PLUGIN}' on eval_set[1]: {DETAIL}", "scoring",
     "eval_set[1]"),
    (dict(eval_metric=[PLUGIN]), f"eval_metric: the metric '{PLUGIN}' cannot score eval_set y: {DETAIL}",
     "eval_metric", "eval_set"),
    (dict(eval_metric=[PLUGIN], second=True),
     f"eval_metric: the metric '{PLUGIN}' cannot score eval_set[1] y: {DETAIL}", "eval_metric", "eval_set[1]"),
])
def test_a_plugin_metrics_own_value_error_is_its_refusal_said_once_of_the_set(route, message, parameter, eval_set):
    """Before: the plugin's "y: metric 'x' ..." reached the user naming the training labels ``y`` for an
    eval_set's, or ``eval_set[1]: y: ...``, without the parameter, or with the metric and ``y`` said twice."""
    with components_registered("rankcore_register_metrics", [FewRelevant], "test-refusal-routes"):
        with pytest.raises(MetricRefusal) as caught:
            _fit(**route)
    exc = caught.value
    assert str(exc) == message
    assert (exc.spec, exc.parameter, exc.eval_set, exc.detail) == (PLUGIN, parameter, eval_set, DETAIL)


@pytest.mark.parametrize("spec", ["auc", "pauc:0.1", "tpauc:0.5,0.5", "ks", "rmax", "pnorm:4", "max_height"])
@pytest.mark.parametrize("second", [False, True])
def test_a_named_scoring_without_queries_is_said_as_the_parameter_and_the_set(spec, second):
    """Before: without queries the refusal said ``eval_set y: metric 'auc' ...`` with neither ``parameter`` nor
    ``eval_set`` set, where the same refusal within queries says ``scoring='auc' on eval_set: ...``."""
    where = "eval_set[1]" if second else "eval_set"
    one_class = (X, np.zeros_like(BINARY))
    with pytest.raises(MetricRefusal) as caught:
        rankcore.boost(n_iter=2, scoring=spec).fit(X, BINARY, eval_set=[(X, BINARY), one_class] if second
                                                   else one_class)
    exc = caught.value
    detail = f"needs both classes, got only negatives (0) in {QID.size} labels"
    assert str(exc) == f"scoring='{spec}' on {where}: {detail}"
    assert (exc.reason, exc.parameter, exc.eval_set, exc.detail) == ("labels", "scoring", where, detail)


def test_a_count_beyond_the_rows_of_an_eval_set_names_the_parameter_and_the_set():
    with pytest.raises(MetricRefusal) as caught:
        rankcore.boost(n_iter=2, scoring="prec@k:100").fit(X, BINARY, eval_set=(X[:30], BINARY[:30]))
    exc = caught.value
    assert str(exc) == ("scoring='prec@k:100' on eval_set: k: expected a count in [1, 30] (the number of examples), "
                        "got 100")
    assert (exc.reason, exc.k, exc.longest, exc.parameter, exc.eval_set) == ("k_rows", 100, 30, "scoring", "eval_set")


def test_the_default_scoring_keeps_its_words_and_gains_the_set_as_a_field():
    with pytest.raises(MetricRefusal) as caught:
        rankcore.boost(n_iter=2).fit(X, BINARY, eval_set=(X, np.zeros_like(BINARY)))
    exc = caught.value
    assert str(exc) == f"eval_set y: metric 'auc' needs both classes, got only negatives (0) in {QID.size} labels"
    assert (exc.parameter, exc.eval_set, exc.labels) == (None, "eval_set", "eval_set y")


NAN = np.where(np.arange(QID.size) == 3, np.nan, BINARY)


@pytest.mark.parametrize("spec, y, qid, message, reason", [
    ("prec@k:5", GRADES, None, "y: expected binary labels in {0, 1} (1 = relevant), got other values [2.0, 3.0] "
                               "(needed by the bipartite metric(s) 'prec@k:5')", "labels"),
    ("auc", GRADES, QID, "y: expected binary labels in {0, 1} (1 = relevant), got other values [2.0, 3.0] "
                         "(needed by the bipartite metric(s) 'auc')", "labels"),
    ("auc", np.zeros(QID.size), None, f"y: metric 'auc' needs both classes, got only negatives (0) in {QID.size} "
                                      "labels", "labels"),
    ("ks", np.ones(QID.size), None, f"y: metric 'ks' needs both classes, got only positives (1) in {QID.size} "
                                    "labels", "labels"),
    ("auc", NAN, None, "y: expected finite numbers, got NaN at position 3 (1 in all) (needed by the bipartite "
                       "metric(s) 'auc')", "labels"),
    ("ndcg@k:5", np.where(np.arange(QID.size) == 3, np.nan, GRADES), QID,
     "y: expected finite numbers, got NaN at position 3 (1 in all)", "labels"),
    ("ndcg@k:5", np.zeros(QID.size), None, "y: metric 'ndcg@k:5' is undefined without a relevant row (every grade "
                                           "is 0); pass empty=0 or empty=1 to give such a list a value", "no_query"),
    ("map", np.zeros(QID.size), None, "y: metric 'map' is undefined without a relevant row (every grade is 0); "
                                      "pass empty=0 or empty=1 to give such a list a value", "no_query"),
])
def test_evaluate_refuses_labels_with_a_metric_refusal_in_the_same_words(spec, y, qid, message, reason):
    """Before: these were plain ValueErrors from ``evaluate``, where a fit's eval_set says the same refusal as a
    ``MetricRefusal`` (the docs: "labels the metric does not take, such as grades for prec@k")."""
    with pytest.raises(MetricRefusal) as caught:
        rankcore.evaluate(y, SCORES, spec, qid=qid)
    assert str(caught.value) == message
    assert (caught.value.spec, caught.value.reason, caught.value.labels) == (spec, reason, "y")


@pytest.mark.parametrize("spec, y, message", [
    ("prec@k:5", GRADES, "y: expected binary labels in {0, 1} (1 = relevant), got other values [2.0, 3.0]"),
    ("auc", np.ones(QID.size), f"y: metric 'auc' needs both classes, got only positives (1) in {QID.size} labels"),
    ("auc", NAN, "y: expected finite numbers, got NaN at position 3 (1 in all)"),
    ("err@k:5", np.zeros(QID.size), "y: metric 'err@k:5' is undefined without a relevant row (every grade is 0); "
                                    "pass empty=0 or empty=1 to give such a list a value"),
    (PLUGIN, FEW, f"y: metric '{PLUGIN}' {DETAIL}"),
])
def test_a_metric_called_refuses_labels_with_a_metric_refusal_in_the_same_words(spec, y, message):
    with components_registered("rankcore_register_metrics", [FewRelevant], "test-refusal-routes"):
        with pytest.raises(MetricRefusal) as caught:
            rankcore.resolve("metric", spec)(y, SCORES)
    assert str(caught.value) == message and caught.value.spec == spec and str(caught.value).endswith(
        caught.value.detail)


@pytest.mark.parametrize("metric, cv, y, detail_start, reason", [
    ("prec@k:100", "auto", (X[:30, 0] > 0).astype(int), "k: expected a count in [1, 6] (the number of examples), "
                                                       "got 100. Use a metric that fits them", "k_rows"),
    ("pauc:0.1", 0.05, np.r_[1, 1, np.zeros(78, dtype=int)], "needs both classes, got only negatives (0) in 4 "
                                                             "labels. Each needs both classes", "labels"),
])
def test_auto_rankers_check_of_its_folds_keeps_the_refusal_and_names_the_metric_once(metric, cv, y, detail_start,
                                                                                      reason):
    """Before: a plain ValueError ``metric 'prec@k:100' cannot be computed on ...: metric 'prec@k:100': k: ...``,
    the metric said twice and the refusal's fields lost."""
    rows = np.random.default_rng(1).normal(size=(y.shape[0], 3))
    with pytest.raises(MetricRefusal) as caught:
        rankcore.AutoRanker(metric=metric, cv=cv, candidates=["stumps:n_iter=2"], random_state=0).fit(rows, y)
    exc = caught.value
    assert str(exc).startswith(f"metric '{metric}' cannot be computed on ") and str(exc).count(f"'{metric}'") == 1
    assert exc.detail.startswith(detail_start) and str(exc).endswith(exc.detail)
    assert (exc.spec, exc.reason) == (metric, reason)


class SpreadRefusing(rankcore.Metric):
    """A plugin metric whose ``compute`` / ``query_values`` refuse scores that are not all tied: its labels pass
    the checks before iteration 1, and it refuses after the first tree."""

    name = "test-spread-refusing"
    requires_both_classes = False

    def compute(self, y, scores):
        if np.ptp(scores) > 0:
            raise ValueError(f"metric {self.spec!r}: needs tied scores")
        return 0.5

    def query_values(self, y, scores, queries):
        return np.full(queries.n_queries, self.compute(y, scores))


SPREAD = "test-spread-refusing"


@pytest.mark.parametrize("route, message, parameter, eval_set", [
    (dict(scoring=SPREAD), f"scoring='{SPREAD}' on eval_set: needs tied scores", "scoring", "eval_set"),
    (dict(scoring=SPREAD, qid=True), f"scoring='{SPREAD}' on eval_set: needs tied scores", "scoring", "eval_set"),
    (dict(scoring=SPREAD, second=True), f"scoring='{SPREAD}' on eval_set[0]: needs tied scores", "scoring",
     "eval_set[0]"),
    (dict(eval_metric=[SPREAD]), f"eval_metric: the metric '{SPREAD}' cannot score eval_set y: needs tied scores",
     "eval_metric", "eval_set"),
    (dict(eval_metric=[SPREAD], qid=True),
     f"eval_metric: the metric '{SPREAD}' cannot score eval_set y: needs tied scores", "eval_metric", "eval_set"),
    (dict(eval_metric=[SPREAD], second=True),
     f"eval_metric: the metric '{SPREAD}' cannot score eval_set[0] y: needs tied scores", "eval_metric",
     "eval_set[0]"),
])
def test_a_plugin_metrics_refusal_during_the_iterations_is_said_as_before_them(route, message, parameter, eval_set):
    """Before: one list's ``scoring`` and every ``eval_metric`` let the plugin's plain ValueError raised after a
    tree (``metric 'x': needs tied scores``) reach the user in its own words, naming neither the parameter nor the
    set, where its refusal before iteration 1 names both (of two sets, the first refuses first)."""
    qid, second = route.pop("qid", False), route.pop("second", False)
    sets = [(X, BINARY, QID) if qid else (X, BINARY)] * (2 if second else 1)
    with components_registered("rankcore_register_metrics", [SpreadRefusing], "test-refusal-routes-spread"):
        with pytest.raises(MetricRefusal) as caught:
            rankcore.boost(n_iter=3, random_state=0, scoring=route.get("scoring")).fit(
                X, BINARY, qid=QID if qid else None, eval_set=sets if second else sets[0],
                eval_metric=route.get("eval_metric"))
    exc = caught.value
    assert str(exc) == message
    assert (exc.spec, exc.parameter, exc.eval_set, exc.detail) == (SPREAD, parameter, eval_set, "needs tied scores")
