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


@pytest.mark.parametrize("data", [(np.zeros((4, 2)), [0, 1, 0, 1]), (np.zeros((4, 2)),)])
def test_boost_called_with_data_says_fit(data):
    """``rankcore.boost(X, y)``, a student's first try, says that boost returns an estimator to fit."""
    with pytest.raises(TypeError, match=r"rankcore\.boost takes no data.*rankcore\.boost\(\.\.\.\)\.fit\(X, y\)"):
        rankcore.boost(*data)


@pytest.mark.parametrize("component", ["exp", "Exponential()", "Exponential"])
def test_boost_called_with_a_positional_component_says_name_it(component):
    """A loss given by position -- its name, an instance or the class of a plugin's component -- is told to be named."""
    from rankcore.losses import Exponential

    given = {"exp": "exp", "Exponential()": Exponential(), "Exponential": Exponential}[component]
    with pytest.raises(TypeError, match=r"keyword arguments only.*rankcore\.boost\(loss=\"exp\""):
        rankcore.boost(given)


def test_boost_called_with_a_dict_of_parameters_says_unpack_it():
    with pytest.raises(TypeError, match=r"keyword arguments only.*rankcore\.boost\(\*\*params\)"):
        rankcore.boost({"loss": "exp", "n_iter": 5})
    assert rankcore.boost(**{"loss": "exp", "n_iter": 5}).n_iter == 5


def test_boost_keeps_its_keyword_signature():
    import inspect

    parameters = inspect.signature(rankcore.boost).parameters
    assert list(parameters)[:5] == ["loss", "price", "objective", "learner", "n_iter"]
    assert all(p.kind is not p.POSITIONAL_OR_KEYWORD for p in parameters.values())


@pytest.mark.parametrize("as_given", [np.array, list, lambda v: __import__("pandas").Series(v, name="label")])
@pytest.mark.parametrize("call", ["auc", "evaluate", "metric"])
def test_metric_on_text_labels_says_how_to_mark_the_relevant_rows(as_given, call):
    """A fit takes "yes"/"no"; a metric needs 0/1 and says how to get them, not "pd.to_numeric" (which fails)."""
    import rankcore.metrics as metrics

    y, scores = as_given(["yes", "no", "yes", "no"]), np.array([3.0, 2.0, 1.0, 0.0])
    run = {"auc": lambda: metrics.auc(y, scores), "evaluate": lambda: metrics.evaluate(y, scores, ["auc", "ks"]),
           "metric": lambda: metrics.AUC()(y, scores)}[call]
    with pytest.raises(TypeError, match=r"y: expected 0/1 numbers \(1 = relevant\), got text labels \('no', 'yes'\)"
                                        r".*\(y == 'yes'\)\.astype\(int\)") as info:
        run()
    assert info.value.parameter == "y" and "to_numeric" not in str(info.value)


def test_metric_on_many_text_values_keeps_the_plain_refusal():
    import rankcore.metrics as metrics

    with pytest.raises(TypeError, match=r"y: expected numbers") as info:
        metrics.auc(np.array(["a", "b", "c"]), np.array([1.0, 2.0, 3.0]))
    assert "astype(int)" not in str(info.value)


def test_metric_on_labels_that_spell_numbers_keeps_the_plain_refusal():
    """"0"/"1" are numbers read as text: the plain refusal (convert them with pd.to_numeric) is the right advice."""
    import rankcore.metrics as metrics

    with pytest.raises(TypeError, match=r"y: expected numbers") as info:
        metrics.auc(np.array(["1", "0", "1"]), np.array([1.0, 2.0, 3.0]))
    assert "astype(int)" not in str(info.value)


@pytest.mark.parametrize("y", [np.array(["yes", b"no", "yes", b"no"], dtype=object),
                               np.array([1, "no", 1, "no"], dtype=object)])
def test_metric_on_text_mixed_with_other_values_keeps_the_plain_refusal(y):
    """str with bytes cannot be sorted, and 1 with "no" has no one comparison marking the relevant rows."""
    import rankcore.metrics as metrics

    with pytest.raises(TypeError, match=r"y: expected numbers") as info:
        metrics.auc(y, np.array([3.0, 2.0, 1.0, 0.0]))
    assert "astype(int)" not in str(info.value) and info.value.parameter == "y"


@pytest.mark.parametrize("missing", [None, np.nan])
def test_metric_on_text_labels_with_missing_ones_says_to_drop_them(missing):
    """``(y == "yes").astype(int)`` would read a row without a label as irrelevant, silently."""
    import rankcore.metrics as metrics

    y = np.array(["yes", missing, "yes", "no"], dtype=object)
    with pytest.raises(TypeError, match=r"\(y == 'yes'\)\.astype\(int\).*first drop the 1 row without a label"):
        metrics.auc(y, np.array([3.0, 2.0, 1.0, 0.0]))


def test_metric_on_one_text_value_does_not_speak_of_two_labels():
    import rankcore.metrics as metrics

    with pytest.raises(TypeError, match=r"got text labels \('yes'\); .*\(y == 'yes'\)\.astype\(int\)") as info:
        metrics.auc(np.array(["yes"] * 3), np.array([1.0, 2.0, 3.0]))
    assert "two labels" not in str(info.value)


@pytest.mark.parametrize("texts", [["yes"] * 3, ["yes", None, "yes"]])
def test_metric_on_one_text_value_says_up_front_that_its_advice_gives_one_class(texts):
    """Before: only "(y == 'yes').astype(int)", whose all-ones labels then met the one-class refusal."""
    import rankcore.metrics as metrics

    with pytest.raises(TypeError, match=r"\(y == 'yes'\)\.astype\(int\); but every labelled row here is 'yes', so "
                                        r"that marks them all relevant, .* needs rows of both kinds: pass the rows "
                                        r"that are not 'yes' too"):
        metrics.auc(np.array(texts, dtype=object), np.array([1.0, 2.0, 3.0]))
    with pytest.raises(TypeError) as info:          # two texts: nothing of the kind
        metrics.auc(np.array(["yes", "no", "yes"]), np.array([1.0, 2.0, 3.0]))
    assert "both kinds" not in str(info.value)


@pytest.mark.parametrize("call", ["ndcg", "map", "misrank", "evaluate"])
def test_graded_metric_on_text_labels_says_how_to_mark_the_relevant_rows(call):
    """Per-query and graded metrics refuse "yes"/"no" with the same advice as the 0/1 ones."""
    import rankcore.metrics as metrics

    y, scores, qid = np.array(["yes", "no"] * 4), np.arange(8.0), np.repeat([0, 1], 4)
    run = {"ndcg": lambda: metrics.NDCG(k=2)(y, scores, qid=qid),
           "map": lambda: metrics.MeanAveragePrecision()(y, scores, qid=qid),
           "misrank": lambda: metrics.misrank(y, scores),
           "evaluate": lambda: metrics.evaluate(y, scores, ["ndcg@k:2"], qid=qid)}[call]
    with pytest.raises(TypeError, match=r"y: expected numbers \(grades, or 0/1 with 1 = relevant\), got text labels "
                                        r"\('no', 'yes'\); .*\(y == 'yes'\)\.astype\(int\)") as info:
        run()
    assert info.value.parameter == "y" and "to_numeric" not in str(info.value)


def test_text_labels_hint_leaves_a_piece_of_the_labels_to_the_plain_refusal():
    """A Dask chunk ("y (chunk 2)") may hold one of two texts: naming it the relevant one could be wrong."""
    from rankcore._numbers import text_labels_hint

    assert text_labels_hint(np.array(["yes", "no"]), "y (chunk 2)") is None
    assert "(y == 'yes').astype(int)" in text_labels_hint(np.array(["yes", "no"]), "y")


@pytest.mark.parametrize("name, example", [("labels[0]", "labels[0]"), ("eval_set y", "y")])
def test_text_labels_hint_is_given_for_names_that_are_not_identifiers(name, example):
    """Before: any name that was no identifier lost the advice, taken for a piece of the labels ("y (chunk 2)");
    a name that is no expression is written ``y`` in the example, which is code."""
    from rankcore.validation import check_binary_labels

    with pytest.raises(TypeError) as info:
        check_binary_labels(np.array(["yes", "no"]), name=name)
    assert str(info.value).startswith(f"{name}: expected 0/1 numbers")
    assert f"({example} == 'yes').astype(int)" in str(info.value)


@pytest.mark.parametrize("dtype", [None, object])
def test_text_labels_hint_reads_many_labels_with_missing_ones(dtype):
    """The advice counts the labels in blocks (hashed in C): the missing one counted, and many texts refused plainly.
    (Its speed is measured, not asserted: no wall-clock bound in tests.)"""
    from rankcore._numbers import text_labels_hint

    y = np.array(["yes", "no"] * 100_000, dtype=dtype)
    if dtype is object:
        y[7] = None
    hint = text_labels_hint(y, "y")
    assert "('no', 'yes')" in hint and ("1 row without a label" in hint) == (dtype is object)
    many = np.array([f"t{i}" for i in range(1_000)] * 200, dtype=dtype)
    assert text_labels_hint(many, "y") is None
