"""Clear messages for common mistakes."""

import numpy as np
import pytest
from _model_files import KINDS, _data, _estimators

import rankcore
from rankcore.spec import MAX_ECHO, SpecError, abbreviate


@pytest.fixture(scope="module")
def fitted():
    X, y = _data()
    return {kind: est.fit(X, y) for kind, est in _estimators().items()}


@pytest.mark.parametrize("kind", KINDS)
def test_one_row_as_1d_says_reshape(fitted, kind):
    X, _ = _data()
    with pytest.raises(ValueError, match=r"expected a 2-D array.*X\.reshape\(1, -1\)"):
        fitted[kind].decision_function(X[0])


@pytest.mark.parametrize("k", [float("nan"), float("inf"), float("-inf")])
@pytest.mark.parametrize("cls", [rankcore.SGDAtK, rankcore.PerceptronAtK])
def test_linear_learners_non_finite_k(cls, k):
    X, y = _data()
    with pytest.raises(ValueError, match=r"k: expected a (whole )?count (>= 1|in \[1, \d+\]) "
                                         r"or a fraction in \(0, 1\)") as info:
        cls(k=k).fit(X, y)
    assert "convert" not in str(info.value)


@pytest.mark.parametrize("cls", [rankcore.SGDAtK, rankcore.PerceptronAtK])
def test_linear_learners_fractional_count(cls):
    X, y = _data()
    with pytest.raises(ValueError, match=r"whole count (>= 1|in \[1, \d+\]) or a fraction in \(0, 1\)"
                                         r".*got 1\.5") as info:
        cls(k=1.5).fit(X, y)
    assert "[1, 1]" not in str(info.value)


@pytest.mark.parametrize(("k", "reason"), [(float("nan"), "not a finite number"), (1.5, "not a whole count")])
def test_prec_at_k_metric_k_messages(k, reason):
    with pytest.raises(SpecError, match=r"k must be a whole count >= 1 or a fraction in \(0, 1\)") as info:
        rankcore.evaluate([0, 1, 1], [0.1, 0.2, 0.3], [f"prec@k:{k}"])
    assert reason in str(info.value)


def test_evaluate_n_jobs_is_named_n_jobs():
    with pytest.raises(ValueError, match=r"^n_jobs: expected None, a positive integer"):
        rankcore.evaluate([0, 1], [0.1, 0.2], ["auc"], n_jobs=0)


def test_family_plurals_in_messages():
    with pytest.raises(SpecError, match="registered losses: ") as info:
        rankcore.get_registry().resolve("loss", "nope")
    assert "losss" not in str(info.value)
    assert "losses" in repr(rankcore.get_registry())


@pytest.mark.parametrize("spec", ["x" * 1_000_000, "pow:" + "1" * 1_000_000, "pow:(" + "1" * 1_000_000,
                                  "pow:p=" + "9" * 1_000_000, "pow:" + "a" * 1_000_000 + "=1"],
                         ids=["name", "value", "malformed", "keyword", "unknown-keyword"])
def test_megabyte_spec_is_not_echoed_whole(spec):
    with pytest.raises(SpecError) as info:
        rankcore.get_registry().resolve("price", spec)
    message = str(info.value)
    assert len(message) < 2_000
    assert "characters]" in message and "..." in message


def test_megabyte_spec_from_the_cli_is_one_short_line(tmp_path, capsys):
    from rankcore.cli import main

    path = tmp_path / "d.csv"
    path.write_text("a,label\n1,0\n2,1\n")
    assert main(["fit", str(path), "--price", "pow:" + "1" * 1_000_000, "--out", str(tmp_path / "m.json")]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and len(err) < 2_000


def test_abbreviate_keeps_short_words():
    assert abbreviate("price 'pow:x': bad") == "price 'pow:x': bad"
    long = "y" * (MAX_ECHO + 1)
    assert abbreviate(f"a {long} b") == f"a {'y' * 60}... [{MAX_ECHO + 1} characters] b"


@pytest.mark.parametrize("kind", ["SGDAtK", "PerceptronAtK"])
def test_linear_learners_score_refuses_unseen_labels(fitted, kind):
    X, _ = _data()
    with pytest.raises(ValueError, match=r"y: labels \[7\] were not seen in fit"):
        fitted[kind].score(X[:10], np.full(10, 7))
    assert 0.0 <= fitted[kind].score(X[:10], np.r_[np.zeros(5), np.ones(5)]) <= 1.0


@pytest.mark.parametrize("kind", KINDS)
def test_predict_names_decision_function(fitted, kind):
    """A ranker has no predict (hasattr stays False); asking for it names where its scores are."""
    model = fitted[kind]
    assert not hasattr(model, "predict")
    with pytest.raises(AttributeError, match=r"has no predict: a ranker's scores are decision_function\(X\)"):
        model.predict
    with pytest.raises(AttributeError, match=r"object has no attribute 'not_an_attribute'"):
        model.not_an_attribute


@pytest.mark.parametrize("kind", KINDS)
def test_predict_proba_says_the_scores_are_not_probabilities(fitted, kind):
    """A LightGBM user's predict_proba: hasattr stays False (not a classifier), the error says what to use."""
    model = fitted[kind]
    assert not hasattr(model, "predict_proba")
    with pytest.raises(AttributeError, match=r"has no predict_proba: a ranker's scores, decision_function\(X\), "
                                             r"are not probabilities .*CalibratedClassifierCV"):
        model.predict_proba
