"""Model files are validated like constructor arguments.

The checksum catches corruption, not an editor who recomputes it: these files
are re-signed after editing, so only validation stands between them and a
loaded model.
"""

import json
import re

import numpy as np
import pytest

import rankcore
from rankcore.persistence import ModelFormatError, load_model, model_from_dict, model_to_dict

from _model_files import KINDS, model_dict, resign, sample_matrix

_BAD_PARAMS = [
    ("n_jobs", 0),
    ("tol", -1),
    ("verbose", "loud"),
    ("random_state", "x"),
    ("random_state", -3),
    ("kernel", "os.system"),
    ("filter", "__import__('os')"),
    ("k", 1.5),
    ("n_iter", 0),
    ("n_runs", "2"),
]


def _cases():
    for kind in KINDS:
        params = model_dict(kind)["params"]
        for field, value in _BAD_PARAMS:
            if field in params:
                yield pytest.param(kind, field, value, id=f"{kind}-{field}={value!r}")


@pytest.mark.parametrize(("kind", "field", "value"), list(_cases()))
def test_invalid_parameter_in_file_is_refused_naming_it(kind, field, value):
    data = model_dict(kind)
    data["params"][field] = value
    with pytest.raises(ModelFormatError, match=field):
        model_from_dict(resign(data))


def test_every_listed_parameter_is_exercised():
    exercised = {case.values[1] for case in _cases()}
    assert {"n_jobs", "tol", "verbose", "random_state", "kernel"} <= exercised


_CLASSES_FIELD = {"PerceptronAtK": "classes_", "SGDAtK": "classes_"}


@pytest.mark.parametrize("classes", [[5, 5], [6, 5]], ids=["equal", "unsorted"])
@pytest.mark.parametrize("kind", KINDS)
def test_bad_classes_are_refused(kind, classes):
    data = model_dict(kind)
    field = _CLASSES_FIELD.get(kind, "classes")
    if field not in data["state"]:
        pytest.skip(f"{kind} keeps no classes")
    data["state"][field] = classes
    with pytest.raises(ModelFormatError, match="classes"):
        model_from_dict(resign(data))


@pytest.mark.parametrize("kind", KINDS)
def test_untouched_file_loads_and_scores_finite(kind):
    model = model_from_dict(resign(model_dict(kind)))
    assert np.isfinite(model.decision_function(sample_matrix())).all()


# Found by tests/test_fuzz.py: each was a TypeError or a multi-line message, not a ModelFormatError.


def _first_array(state):
    return next(key for key, value in state.items() if isinstance(value, dict) and "__ndarray__" in value)


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: d.update(estimator={"a": 1}),
        lambda d: d["state"][_first_array(d["state"])].update(dtype={"a": 1}),
        lambda d: d["state"][_first_array(d["state"])].update(shape=[True]),
        lambda d: d["params"].update(extra0=1),
    ],
    ids=["estimator-object", "dtype-object", "shape-bool", "unknown-param"],
)
def test_malformed_fields_are_one_line_format_errors(edit):
    data = model_dict("KernelRanker")
    edit(data)
    with pytest.raises(ModelFormatError) as info:
        model_from_dict(resign(data))
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("kind", ["SGDAtK", "PerceptronAtK"])
@pytest.mark.parametrize("key, value", [("loss_per_epoch_", np.inf), ("surrogate_per_epoch_", -np.inf),
                                        ("mistakes_per_epoch_", np.nan)])
def test_linear_learners_refuse_non_finite_epoch_records(kind, key, value):
    from rankcore.persistence import _encode

    data = model_dict(kind)
    n = data["state"]["n_iter_"]
    data["state"][key] = _encode(np.full(n, value), "x")
    with pytest.raises(ModelFormatError, match=f"{key} must hold finite numbers"):
        model_from_dict(resign(data))


@pytest.mark.parametrize("kind", ["SGDAtK", "PerceptronAtK"])
def test_linear_learners_with_a_pass_of_skipped_batches_save_and_load(kind):
    # five rows in batches of two: a pass can draw only one-class batches, and records NaN as its loss
    X = np.array([[0.13], [0.13], [-0.13], [-0.13], [0.13]])
    y = np.array([0, 0, 0, 0, 1])
    model = getattr(rankcore, kind)(batch_size=2, random_state=0).fit(X, y)
    assert np.isnan(model.loss_per_epoch_).any() and np.isfinite(model.mistakes_per_epoch_).all()
    loaded = model_from_dict(json.loads(json.dumps(model_to_dict(model))))
    np.testing.assert_array_equal(loaded.loss_per_epoch_, model.loss_per_epoch_)
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))


@pytest.mark.parametrize("command", ["score", "evaluate"])
def test_cli_deep_or_huge_model_file_is_exit_2(tmp_path, capsys, monkeypatch, command):
    from rankcore import persistence
    from rankcore.cli import main

    data = tmp_path / "d.csv"
    data.write_text("a,label\n1,0\n2,1\n")
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert main([command, str(deep), str(data)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "nested deeper than the limit" in err
    monkeypatch.setattr(persistence, "MAX_MODEL_BYTES", 10)
    assert main([command, str(deep), str(data)]) == 2
    assert "size limit of 10 bytes" in capsys.readouterr().err


def test_an_integer_of_thousands_of_digits_is_a_format_error_naming_the_file(tmp_path):
    # Python refuses to read such an integer (a ValueError about sys.set_int_max_str_digits, naming no file)
    path = tmp_path / "big.json"
    path.write_text('{"format": "rankcore-model", "params": {"n_iter": ' + "9" * 5000 + "}}")
    with pytest.raises(ModelFormatError, match=r"big\.json: an integer of thousands of digits"):
        load_model(path)


def test_the_estimators_own_checks_name_the_file_first(tmp_path):
    # `rankcore score` reads two files: the estimator's own message must say which one is at fault
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    data = model_to_dict(rankcore.boost(n_iter=3).fit(X, (X[:, 0] > 0).astype(int)))
    data["params"]["tol"] = -1.0
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(resign(data)))
    with pytest.raises(ModelFormatError, match=rf"^{re.escape(str(path))}: .*tol: expected a finite number >= 0"):
        load_model(path)


@pytest.mark.parametrize("version", [True, 1.0, "1"])
def test_a_format_version_that_is_not_the_integer_is_refused(tmp_path, version):
    X = np.random.default_rng(0).normal(size=(40, 2))
    data = model_to_dict(rankcore.boost(n_iter=3).fit(X, (X[:, 0] > 0).astype(int)))
    data["format_version"] = version
    with pytest.raises(ModelFormatError, match="model format version"):
        model_from_dict(resign(data))
