"""Bad input to a fit within queries: each a clear error naming the argument (issues' "Bad input" lists)."""

import numpy as np
import pytest

import rankcore
from _query_data import graded_queries
from _refusals import refused

X, Y, QID = graded_queries(0)
N = Y.shape[0]


def _fit(model=None, X=X, y=Y, **kwargs):
    model = model if model is not None else rankcore.boost(learner="trees", n_iter=2, random_state=0)
    return model.fit(X, y, **kwargs)


@pytest.mark.parametrize("qid, message", [
    (QID[:-1], f"qid: expected one query id per row ({N} rows), got {N - 1}"),
    (np.where(np.arange(N) == 5, np.nan, 1.0), "qid: query ids must not be NaN, got NaN at row 5"),
    ([None] + list(QID[1:]), "qid: query ids must not be None or NaN, got None at row 0"),
])
def test_push_queries_bad_qid(qid, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        _fit(qid=qid)


def test_push_queries_a_short_X_is_not_said_to_be_y():
    # the rows a fit counts are X's: the qid refusal said "per row of y (599)" of a y of 600 rows
    with pytest.raises(ValueError, match=rf"^qid: expected one query id per row \({N - 1} rows\), got {N}$"):
        _fit(X=X[:-1], qid=QID)


def test_push_queries_both_qid_and_group():
    with pytest.raises(ValueError, match="qid, group: give one of them"):
        _fit(qid=QID, group=[N])


def test_push_queries_group_sizes_must_sum_to_the_rows():
    with pytest.raises(ValueError, match=f"group: the query sizes sum to {N - 1}, but y has {N} rows"):
        _fit(group=[N - 1])


@pytest.mark.parametrize("bad, shown", [(-1.0, "-1.0"), (np.nan, "nan")])
def test_push_queries_negative_or_nan_grades_name_y_and_the_row(bad, shown):
    y = Y.copy()
    y[7] = bad
    with pytest.raises(ValueError, match=rf"y: relevance grades must be finite numbers >= 0 .* got {shown} at row 7"):
        _fit(y=y, qid=QID)


def test_push_queries_grades_overflowing_the_gain_name_the_row():
    """Gain-weighted pairs form 2^grade: the row is the caller's, although the fit works in query order."""
    y = Y.copy()
    y[11] = 2000.0
    model = rankcore.boost(objective="push:exp,pow:4,gain_weighted=true", learner="trees", n_iter=2)
    with pytest.raises(ValueError, match=r"y: the objective 'push:price=pow:4,gain_weighted=true' weighs rows by the "
                                         r"gain 2\^grade, so grades must be <= 1023, got 2000.0 at row 11"):
        _fit(model, y=y, qid=QID)
    with pytest.raises(ValueError, match="so grades must be <= 1023, got 2000.0 at row 11"):
        _fit(rankcore.boost(objective="lambdarank", learner="trees", n_iter=2), y=y, qid=QID)


@pytest.mark.parametrize("bad, shown", [(4, "4.0"), (1.5, "1.5")])
def test_push_queries_grades_outside_a_gain_table_name_the_row(bad, shown):
    """lambdarank's gain table (LightGBM's label_gain) gives gains to its whole grades only: the caller's row."""
    y = Y.copy()
    y[11] = bad
    model = rankcore.boost(objective="lambdarank:gain=0/1/3/7", learner="trees", n_iter=2)
    with pytest.raises(ValueError, match=r"y: the objective 'lambdarank:gain=0/1/3/7' has gains for the grades "
                                         r"0..3 only \(its gain table, LightGBM's label_gain\), so grades must be "
                                         rf"whole numbers <= 3, got {shown} at row 11"):
        _fit(model, y=y, qid=QID)
    with pytest.raises(ValueError, match=rf"eval_set y: the objective .* got {shown} at row 11"):
        _fit(rankcore.boost(objective="lambdarank:gain=0/1/3/7", learner="trees", n_iter=2), qid=QID,
             eval_set=(X, y, QID))
    # the default gain 2^grade - 1 takes both
    _fit(rankcore.boost(objective="lambdarank", learner="trees", n_iter=2), y=y, qid=QID)


@pytest.mark.parametrize("bad", [-1.0, np.nan, 1.5, "text", None, "numeric text"])
def test_push_queries_refused_grades_carry_the_argument(bad):
    """A refused grade is an ArgumentRefusal of ``y`` (of ``eval_set y`` for the validation rows'), fields kept."""
    if bad == "numeric text":               # NumPy reads "2" as 2.0; score and evaluate refuse text, so fit does
        y = Y.astype(int).astype(str)
    else:
        y = Y.astype(object) if isinstance(bad, str) or bad is None else Y.copy()
        y[7] = bad
    lambdarank = rankcore.boost(objective="lambdarank:gain=0/1/3/7", learner="trees", n_iter=2)
    refused(lambda: _fit(lambdarank, y=y, qid=QID), parameter="y", round_trip=True)
    exc = refused(lambda: _fit(lambdarank, qid=QID, eval_set=(X, y, QID)), parameter="eval_set y")
    assert str(exc).startswith("eval_set y: ")


@pytest.mark.parametrize("objective", ["prec@k-avg:5", "prec@k-ramp:5"])
def test_push_queries_single_list_objectives_refuse_qid(objective):
    model = rankcore.boost(objective=objective, learner="stumps", n_iter=2)
    with pytest.raises(ValueError, match=f"qid: the objective '{objective}' ranks one list; it cannot rank within "
                                         "queries"):
        _fit(model, y=(Y > 1).astype(int), qid=QID)


def test_push_queries_lambdarank_without_qid():
    model = rankcore.boost(objective="lambdarank", learner="trees", n_iter=2)
    with pytest.raises(ValueError, match=r"qid: the objective 'lambdarank' ranks within queries; pass "
                                         r"fit\(X, y, qid=...\)"):
        _fit(model)


def test_push_queries_lambdarank_needs_newton_leaves():
    model = rankcore.boost(objective="lambdarank", learner="stumps", n_iter=2)
    with pytest.raises(ValueError, match="objective 'lambdarank' gives gradients and curvature but no value.*"
                                         "the learner 'stumps' has no Newton leaves"):
        _fit(model, qid=QID)


def test_push_queries_lambdarank_has_no_objective_to_validate_on():
    model = rankcore.boost(objective="lambdarank", learner="trees", n_iter=2, scoring="objective")
    with pytest.raises(ValueError, match="scoring='objective': the objective 'lambdarank' has no value"):
        _fit(model, qid=QID)


@pytest.mark.parametrize("spec, message", [
    ("lambdarank:0", "truncation"),
    ("lambdarank:sigmoid=0", "sigmoid"),
    ("lambdarank:sigmoid=-1", "sigmoid"),
])
def test_push_queries_lambdarank_parameters(spec, message):
    with pytest.raises(ValueError, match=message):
        _fit(rankcore.boost(objective=spec, learner="trees", n_iter=2), qid=QID)


@pytest.mark.parametrize("objective", [None, "lambdarank", "yetirank", "xendcg", "mp-squared", "push:exp,pow:4"])
def test_push_queries_a_query_fit_needs_two_grades_somewhere(objective):
    # Every objective within queries refuses it, not the push's alone: with no pair to order, LambdaMART, YetiRank,
    # XE-NDCG and QueryRMSE would fit a constant model.
    with pytest.raises(ValueError, match=r"y, qid: ranking within queries needs a query with two grades, got \d+ "
                                         "queries, each with a single grade"):
        _fit(rankcore.boost(objective=objective, learner="trees", n_iter=2), y=np.ones(N), qid=QID)
    with pytest.raises(ValueError, match="got 1 query, each with a single grade"):
        _fit(rankcore.boost(objective=objective, learner="trees", n_iter=2), y=np.ones(N), qid=np.zeros(N))


def test_push_queries_eval_set_is_a_triple():
    with pytest.raises(ValueError, match=r"eval_set: expected a triple \(X_val, y_val, qid_val\) when fitting with "
                                         "qid"):
        _fit(qid=QID, eval_set=(X, Y))
    with pytest.raises(ValueError, match=f"eval_set qid: expected one query id per row \\({N} rows\\), got 3"):
        _fit(qid=QID, eval_set=(X, Y, QID[:3]))
    with pytest.raises(ValueError, match=r"eval_set: a triple \(X_val, y_val, qid_val\) goes with fit\(..., qid=...\)"):
        _fit(y=(Y > 1).astype(int), eval_set=(X, (Y > 1).astype(int), QID))


def test_push_queries_eval_set_of_lightgbm_group_sizes_is_named_so():
    # A LightGBM user fitting with group= gives a set's query sizes (eval_group) as its third element.
    order = np.argsort(QID, kind="stable")
    _, sizes = np.unique(QID[order], return_counts=True)
    with pytest.raises(ValueError, match=r"eval_set: expected a triple \(X_val, y_val, qid_val\) when fitting with qid "
                                         r"or group \(qid_val: the validation rows' query ids\)"):
        _fit(X=X[order], y=Y[order], group=sizes, eval_set=(X, Y))
    with pytest.raises(ValueError, match=f"eval_set qid: expected one query id per row \\({N} rows\\), got "
                                         f"{sizes.shape[0]}; these look like LightGBM's query sizes \\(eval_group\\): "
                                         r"give each row's query id, np.repeat\(np.arange\(len\(sizes\)\), sizes\)"):
        _fit(X=X[order], y=Y[order], group=sizes, eval_set=(X[order], Y[order], sizes))
    with pytest.raises(ValueError, match=r"got 3$"):            # not sizes of these rows: no such advice
        _fit(qid=QID, eval_set=(X, Y, QID[:3]))



def test_query_sizes_given_as_qid_are_named_so_in_fit_and_the_metrics():
    # LGBMRanker's user passes group sizes as qid=: the refusal says they look like sizes and what to pass
    order = np.argsort(QID, kind="stable")
    _, sizes = np.unique(QID[order], return_counts=True)
    advice = (f"qid: expected one query id per row \\({N} rows\\), got {sizes.shape[0]}; these look like the sizes of "
              r"consecutive queries \(LightGBM's group\): pass them as group= instead, or each row's query id, "
              r"qid=np.repeat\(np.arange\(len\(sizes\)\), sizes\)")
    with pytest.raises(ValueError, match=advice):
        _fit(X=X[order], y=Y[order], qid=sizes)
    with pytest.raises(ValueError, match=advice):
        rankcore.evaluate(Y[order], np.arange(N, dtype=float), "ndcg@k:5", qid=sizes)
    with pytest.raises(ValueError, match=r"got 3$"):             # not sizes of these rows: no such advice
        rankcore.evaluate(Y, np.arange(N, dtype=float), "ndcg@k:5", qid=[1, 1, 1])


def test_lgbmrankers_fit_arguments_are_named_with_rankcores():
    # LGBMRanker.fit(eval_at=[1, 5]) was Python's bare TypeError about a private class's fit
    with pytest.raises(TypeError, match=r"eval_at: PushBoost.fit takes no argument 'eval_at'; other libraries' "
                                        r"eval_at is here fit\(X, y, eval_set=..., eval_metric="):
        _fit(qid=QID, eval_set=(X, Y, QID), eval_at=[1, 5])
    with pytest.raises(TypeError, match=r"categorical_feature: .* categorical_features="):
        _fit(qid=QID, categorical_feature=[0])

def test_push_queries_one_weight_per_query_is_refused_with_how_to_give_one_per_row():
    n_queries = np.unique(QID).shape[0]
    with pytest.raises(ValueError, match=f"sample_weight: expected {N} weights, one per row, got {n_queries}, one "
                                         r"per query \(as XGBoost's ranking weights\); repeat each query's weight"):
        _fit(qid=QID, sample_weight=np.ones(n_queries))
    with pytest.raises(ValueError, match=f"sample_weight: expected {N} weights \\(one per example\\), got 3"):
        _fit(qid=QID, sample_weight=np.ones(3))
    # the recipe the message gives: each row gets its query's weight, the weights in the order of np.unique(qid)
    labels, inverse = np.unique(QID, return_inverse=True)
    per_query = np.arange(1.0, labels.shape[0] + 1)
    np.testing.assert_array_equal(per_query[inverse], [1.0 + list(labels).index(q) for q in QID])
    _fit(qid=QID, sample_weight=per_query[inverse])


def test_push_queries_weights_that_leave_no_pair_are_refused_as_weights():
    # weights of 0 on every relevant row leave no pair to order: the refusal said "y, qid: ... 3 with a single
    # grade" of data whose every other query has two grades, and named neither the weights nor what they did
    relevant = Y > 0
    has_two = np.array([np.unique(Y[QID == q]).shape[0] > 1 for q in QID])
    with pytest.raises(rankcore.ArgumentRefusal) as caught:
        _fit(qid=QID, sample_weight=np.where(relevant, 0.0, 1.0))
    exc = caught.value
    n_queries, n_two = np.unique(QID).shape[0], np.unique(QID[has_two]).shape[0]
    assert (exc.parameter, exc.reason) == ("sample_weight", "zero_total")
    assert exc.detail == (f"needs a query with two grades of positive weight, got {n_queries} queries: "
                          f"{n_queries - n_two} with a single grade, and the weights leave none of the other {n_two} "
                          f"a pair of rows of two grades, both of positive weight")
    assert str(exc).startswith("objective 'push:") and str(exc).endswith(exc.detail)
    # one relevant row of positive weight gives a pair again
    weights = np.where(relevant, 0.0, 1.0)
    weights[np.flatnonzero(relevant & has_two)[0]] = 1.0
    assert _fit(qid=QID, sample_weight=weights).n_queries_ == n_queries
