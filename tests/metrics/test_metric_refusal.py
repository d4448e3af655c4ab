"""``MetricRefusal``: a metric's refusal carries its facts as fields, from the metric up through the estimators.

The layers above the metric say the refusal again for their audience (``scoring='ndcg@k:40' on eval_set: ...``,
``eval_metric: the metric ... cannot score ...``) and keep the class and its fields; these tests read the fields
at each layer and check the text each layer says is made of them.
"""

import pickle

import numpy as np
import pytest

import rankcore
from rankcore.metrics import MetricRefusal, k_beyond
from rankcore.metrics._refusal import REASONS


def _queries(sizes, seed=0, graded=True):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(len(sizes)), sizes)
    X = rng.normal(size=(qid.size, 3))
    y = np.clip(np.round(X[:, 0] + rng.normal(scale=0.5, size=qid.size) + 1), 0, 3) if graded else \
        (X[:, 0] + rng.normal(scale=0.5, size=qid.size) > 0).astype(int)
    return X, y, qid


def test_it_is_a_value_error_whose_text_ends_with_its_detail():
    exc = k_beyond("ndcg@k:40", 40, 5)
    assert isinstance(exc, ValueError)
    assert str(exc) == ("metric 'ndcg@k:40': k = 40 is larger than every query (the largest has 5 rows), so no "
                        "query is cut at k; choose k <= 5")
    assert (exc.spec, exc.reason, exc.k, exc.longest) == ("ndcg@k:40", "k_beyond", 40, 5)
    assert str(exc).endswith(exc.detail) and exc.detail.startswith("k = 40 is larger than every query")
    assert exc.parameter is None and exc.eval_set is None and exc.labels is None


def test_the_rules_the_layers_rely_on_are_checked_when_it_is_made():
    with pytest.raises(TypeError, match="reason must be one of"):
        MetricRefusal("metric 'x': bad", spec="x", reason="bad")
    with pytest.raises(TypeError, match="must start with labels 'y' and end with detail 'other'"):
        MetricRefusal("y: metric 'x' bad", spec="x", reason="labels", detail="other", labels="y")
    with pytest.raises(TypeError, match="must start with labels 'eval_set y'"):
        MetricRefusal("y: metric 'x' bad", spec="x", reason="labels", detail="bad", labels="eval_set y")
    assert set(REASONS) == {"k_beyond", "k_rows", "no_query", "labels", "other"}


def test_with_context_keeps_the_facts_and_relabeled_renames_the_labels():
    exc = MetricRefusal("y: metric 'misrank' needs two", spec="misrank", reason="labels", detail="needs two",
                        labels="y")
    said = exc.with_context("scoring='misrank': needs two", parameter="scoring")
    assert type(said) is MetricRefusal and str(said) == "scoring='misrank': needs two"
    assert (said.spec, said.reason, said.detail, said.parameter, said.labels) == ("misrank", "labels", "needs two",
                                                                                   "scoring", None)
    moved = exc.relabeled("eval_set y")
    assert str(moved) == "eval_set y: metric 'misrank' needs two" and moved.labels == "eval_set y"
    unnamed = k_beyond("map@k:3", 3, 2)                 # no labels named: as it is
    assert unnamed.relabeled("eval_set y") is unnamed


def test_it_pickles_with_its_fields():
    """A refusal raised in a worker process comes back whole (the fit's executors pickle errors)."""
    base = k_beyond("ndcg@k:40", 40, 5)
    exc = base.with_context(f"scoring='ndcg@k:40' on eval_set: {base.detail}", parameter="scoring",
                            eval_set="eval_set")
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is MetricRefusal and str(back) == str(exc) and back.facts() == exc.facts()


def test_label_checks_become_refusals_only_by_the_name_they_were_given():
    exc = MetricRefusal.of_labels(ValueError("eval_set y: expected binary labels in {0, 1}"), "prec@k:3",
                                  "eval_set y")
    assert (exc.reason, exc.detail, exc.labels) == ("labels", "expected binary labels in {0, 1}", "eval_set y")
    other = MetricRefusal.of_labels(ValueError("something else"), "prec@k:3", "eval_set y")
    assert (other.detail, other.labels) == ("something else", None)
    assert MetricRefusal.of_labels(exc, "prec@k:3", "y") is exc


@pytest.mark.parametrize("spec, longest", [("ndcg@k:40", 10), ("prec@k:40", 10)])
def test_evaluate_refuses_a_k_beyond_every_query_with_the_fields(spec, longest):
    X, y, qid = _queries([4, 10, 7], graded=spec.startswith("ndcg"))
    with pytest.raises(rankcore.MetricRefusal) as caught:
        rankcore.evaluate(y, X[:, 0], spec, qid=qid)
    exc = caught.value
    assert (exc.reason, exc.spec, exc.k, exc.longest) == ("k_beyond", spec, 40, longest)
    assert str(exc).startswith(f"metric '{spec}': k = 40 is larger than every query (the largest has {longest} ")


def test_no_query_counted_and_graded_labels_for_prec_at_k_are_refusals():
    X, y, qid = _queries([5, 6, 7])
    with pytest.raises(MetricRefusal) as caught:
        rankcore.evaluate(np.zeros_like(y), X[:, 0], "ndcg@k:3", qid=qid)
    assert (caught.value.reason, caught.value.n_queries, caught.value.labels) == ("no_query", 3, "y")
    assert str(caught.value) == f"y: metric 'ndcg@k:3' {caught.value.detail}"
    with pytest.raises(MetricRefusal) as caught:
        rankcore.metrics.prec_at_k(np.array([1, 0, 1]), np.array([0.3, 0.2, 0.1]), k=5)
    assert (caught.value.reason, caught.value.k, caught.value.longest) == ("k_rows", 5, 3)
    assert caught.value.detail == "k: expected a count in [1, 3] (the number of examples), got 5"


def test_a_named_scoring_on_an_eval_set_is_said_with_the_parameter_and_the_set():
    X, y, qid = _queries([8] * 12)
    X_s, y_s, q_s = _queries([3] * 6, seed=1)
    model = rankcore.boost(learner="stumps", scoring="ndcg@k:5", n_iter=3, random_state=0)
    with pytest.raises(MetricRefusal) as caught:
        model.fit(X, y, qid=qid, eval_set=[(X, y, qid), (X_s, y_s, q_s)])
    exc = caught.value
    assert (exc.reason, exc.spec, exc.parameter, exc.eval_set, exc.k, exc.longest) == \
        ("k_beyond", "ndcg@k:5", "scoring", "eval_set[1]", 5, 3)
    assert str(exc) == f"scoring='ndcg@k:5' on eval_set[1]: {exc.detail}"
    with pytest.raises(MetricRefusal) as caught:
        model.fit(X, y, qid=qid, eval_set=(X, np.zeros_like(y), qid))
    assert (caught.value.reason, caught.value.eval_set, caught.value.n_queries) == ("no_query", "eval_set", 12)
    with pytest.raises(MetricRefusal) as caught:               # grades for prec@k, on the training rows' hold-out
        rankcore.boost(learner="stumps", scoring="prec@k:3", n_iter=3, early_stopping=True,
                       random_state=0).fit(X, y, qid=qid)
    assert (caught.value.reason, caught.value.parameter, caught.value.eval_set) == ("labels", "scoring", None)
    assert str(caught.value) == f"scoring='prec@k:3': {caught.value.detail}"
    assert caught.value.detail.startswith("expected binary labels")


def test_an_eval_metric_refusal_names_the_parameter_in_push_and_in_auto():
    X, y, qid = _queries([8] * 12)
    X_s, y_s, q_s = _queries([3] * 6, seed=1)
    with pytest.raises(MetricRefusal) as caught:
        rankcore.boost(learner="stumps", n_iter=3, random_state=0).fit(
            X, y, qid=qid, eval_set=(X_s, y_s, q_s), eval_metric="ndcg@k:40")
    exc = caught.value
    assert (exc.reason, exc.spec, exc.parameter, exc.eval_set, exc.k, exc.longest) == \
        ("k_beyond", "ndcg@k:40", "eval_metric", "eval_set", 40, 3)
    assert str(exc) == f"eval_metric: the metric 'ndcg@k:40' cannot score eval_set y: {exc.detail}"
    with pytest.raises(MetricRefusal) as caught:
        rankcore.AutoRanker(candidates=["stumps:n_iter=2"], random_state=0).fit(
            X, y, qid=qid, eval_set=(X_s, y_s, q_s), eval_metric="ndcg@k:40")
    assert caught.value.facts() == {**exc.facts(), "labels": None}
    assert str(caught.value) == f"eval_metric: the metric 'ndcg@k:40' cannot score eval_set: {exc.detail}"
