"""An ``eval_set`` entry is the training data itself only with the fit's own queries; ``evals_result_``'s copy and
its lists for JSON."""

import json
import warnings

import numpy as np
import pytest

import rankcore
from rankcore.push import EvalCurves


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(240, 3))
    y = np.clip(np.round(X[:, 0] + rng.normal(scale=0.5, size=240)), 0, 2)
    return X, y, np.repeat(np.arange(24), 10)


def _fit(X, y, eval_set, **queries):
    model = rankcore.boost(learner="trees", n_iter=6, early_stopping=True, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y, eval_set=eval_set, **queries)
    return model, [str(w.message) for w in caught if "training data itself" in str(w.message)]


def test_the_training_rows_cut_into_other_queries_are_a_validation_set(rows):
    """Before: the set was named 'training', never watched, and the fit warned that early stopping was off."""
    X, y, qid = rows
    other = np.repeat(np.arange(48), 5)
    model, said = _fit(X, y, [(X, y, other)], qid=qid)
    assert list(model.evals_result_) == ["validation_0"]
    assert said == []


@pytest.mark.parametrize("given", ["same", "copy", "group"])
def test_the_training_rows_with_their_own_queries_are_the_training_data(rows, given):
    X, y, qid = rows
    queries = {"group": [10] * 24} if given == "group" else {"qid": qid}
    model, said = _fit(X, y, [(X, y, qid if given == "same" else qid.copy())], **queries)
    assert list(model.evals_result_) == ["training"]
    assert len(said) == 1 and "early stopping is off" in said[0]


def test_a_group_of_other_sizes_is_other_queries(rows):
    X, y, qid = rows
    model, said = _fit(X, y, [(X, y, qid)], group=[5] * 48)
    assert list(model.evals_result_) == ["validation_0"] and said == []


def test_evals_result_copies_as_curves_and_gives_lists_for_json(rows):
    """Before: copy() was a plain dict (its missing key a bare KeyError) and there was no to_lists."""
    X, y, qid = rows
    model = rankcore.boost(learner="trees", n_iter=4, random_state=0)
    model.fit(X, y, qid=qid, eval_set=[(X[:120], y[:120], qid[:120])])
    copied = model.evals_result_.copy()
    assert isinstance(copied, EvalCurves) and isinstance(copied["validation_0"], EvalCurves)
    copied["validation_0"]["ndcg@k:10"][0] = -1.0            # a copy: the model's curve is left as it is
    assert model.evals_result_["validation_0"]["ndcg@k:10"][0] != -1.0
    with pytest.raises(KeyError, match="LightGBM's valid_0 is validation_0 here"):
        copied["valid_0"]
    plain = model.evals_result_.to_lists()
    assert json.loads(json.dumps(plain)) == plain
    assert plain["validation_0"]["ndcg@k:10"] == model.evals_result_["validation_0"]["ndcg@k:10"].tolist()


@pytest.mark.parametrize("relabel", [lambda q: q.astype(str), lambda q: q + 100, lambda q: (23 - q).tolist()])
def test_the_training_queries_under_other_ids_are_the_training_data(rows, relabel):
    """Before: ids of another type or value that group the rows alike were a validation set, watched for early
    stopping on the training rows (the fit reads ids only to group the rows)."""
    X, y, qid = rows
    model, said = _fit(X, y, [(X, y, relabel(qid))], qid=qid)
    assert list(model.evals_result_) == ["training"]
    assert len(said) == 1


def test_ids_that_merge_or_split_queries_are_other_queries(rows):
    X, y, qid = rows
    for other in (qid // 2, np.arange(240) % 24):       # queries merged; rows dealt out to other queries
        model, said = _fit(X, y, [(X, y, other)], qid=qid)
        assert list(model.evals_result_) == ["validation_0"] and said == []
