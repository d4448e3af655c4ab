"""Hostile model files (edited and re-signed) that loaded, then broke an export.

Found by ``tools/fuzz_model_files.py``, which loads and uses each mutated file in a subprocess.  Every other
edit it makes is refused on load with a ``ModelFormatError``, or loads to a model whose scores are finite (or
whose ``decision_function`` raises the documented ``FloatingPointError`` on overflow).
"""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from rankcore.persistence import model_from_dict
from rankcore.push import PushBoost

from _checkout_scripts import script_module_fixture
from _model_files import tampered

fuzz = script_module_fixture("tools/fuzz_model_files.py", "rankcore_tools_fuzz_model_files")

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _trees():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)
    return PushBoost(learner="trees:max_leaves=4,min_samples_leaf=3,subsample=1", n_iter=3, random_state=0).fit(X, y)


# Before the fix: each export built a name per declared column -- 2^31 strings -- and ran out of memory (run in a
# subprocess with its address space capped, so that the test process never tries).
_WIDE = textwrap.dedent("""
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    sys.path.insert(0, "tests")
    import numpy as np
    from rankcore.persistence import model_from_dict
    from rankcore.push import PushBoost
    from _model_files import tampered
    X = np.random.default_rng(0).normal(size=(40, 3))
    model = PushBoost(n_iter=3, random_state=0).fit(X, (X[:, 0] > 0).astype(int))
    loaded = model_from_dict(tampered(model, lambda s: s.update(n_features_in=2 ** 31 - 1)))
    try:
        getattr(loaded, sys.argv[1])()
    except ValueError as exc:
        print(exc)
    """)


@pytest.mark.parametrize("export", ["to_lightgbm", "to_xgboost_json", "to_xgboost_model"])
def test_an_export_refuses_a_file_declaring_billions_of_columns(export):
    done = subprocess.run([sys.executable, "-c", _WIDE, export], cwd=_ROOT, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": _ROOT})
    assert done.returncode == 0, done.stderr[-500:]
    assert "2147483647 columns (n_features_in_)" in done.stdout


def test_lightgbm_export_refuses_values_that_overflow_when_the_coefficient_is_folded_in():
    # α·value·cover overflowed: the file held internal_value=nan, silently
    loaded = model_from_dict(tampered(_trees(), lambda s: s["alphas"].__setitem__(0, 1e308)))
    with pytest.raises(ValueError, match=r"tree 0 would hold non-finite internal_values"):
        loaded.to_lightgbm()


def test_an_untouched_tree_model_still_exports():
    loaded = model_from_dict(tampered(_trees(), lambda s: None))
    assert "nan" not in loaded.to_lightgbm().split("feature_importances")[0]


def test_the_fuzzer_finds_no_defect_in_a_few_cases_of_two_kinds(fuzz, capsys):
    # the tool itself: a few random edits of a tree model and a kernel model, each run in a worker process
    assert fuzz.main(["--seed", "0", "--cases", "6", "--kinds", "PushBoost-leafwise,KernelRanker-tikhonov"]) == 0
    out = capsys.readouterr().out
    assert "PushBoost-leafwise {" in out and "DEFECT" not in out


def test_the_fuzzers_mutations_are_re_signed_and_reproducible(fuzz):
    from rankcore.persistence import _checksum, model_to_dict

    base = model_to_dict(_trees())
    first = [fuzz.mutate(np.random.default_rng(3), base) for _ in range(3)]
    again = [fuzz.mutate(np.random.default_rng(3), base) for _ in range(3)]
    assert first == again
    for data in first:
        payload = {k: v for k, v in data.items() if k != "sha256"}
        assert data["sha256"] == _checksum(payload)


toy = script_module_fixture("plugins/rankcore-toy-estimator/rankcore_toy_estimator/ranker.py", "rankcore_toy_ranker")


def test_the_toy_plugin_estimator_never_scores_inf_silently(toy):
    # its file may hold any finite weights: coef 1e308 made decision_function return inf
    X = np.random.default_rng(0).normal(size=(30, 2))
    model = toy.CentroidRanker().fit(X, (X[:, 0] > 0).astype(int))
    state = model._get_fitted_state()
    state["coef"] = np.full(2, 1e308)
    model._set_fitted_state(state)
    with pytest.raises(FloatingPointError, match="CentroidRanker.decision_function: .* overflowed"):
        model.decision_function(X)


def test_the_toy_plugin_estimator_refuses_a_boolean_width(toy):
    from rankcore.persistence import ModelFormatError

    X = np.random.default_rng(0).normal(size=(30, 1))
    model = toy.CentroidRanker().fit(X, (X[:, 0] > 0).astype(int))
    state = {**model._get_fitted_state(), "n_features_in": True}
    with pytest.raises(ModelFormatError, match="n_features_in must be a positive integer"):
        model._set_fitted_state(state)


@pytest.mark.parametrize("labels", [{"relevant_label": "a", "other_label": "a"}, {"other_label": "a"}],
                         ids=["the-same-label", "other-alone"])
def test_a_file_whose_two_data_labels_cannot_be_a_fits_is_refused(labels):
    # `rankcore fit` saves the data file's label fitted as 1 and the one fitted as 0: two different labels
    from rankcore.persistence import ModelFormatError

    X = np.random.default_rng(0).normal(size=(40, 2))
    model = PushBoost(n_iter=3, random_state=0).fit(X, (X[:, 0] > 0).astype(int))
    with pytest.raises(ModelFormatError, match="other_label must go with a different relevant_label"):
        model_from_dict(tampered(model, lambda s: s.update(labels)))


def test_two_different_data_labels_still_load():
    X = np.random.default_rng(0).normal(size=(40, 2))
    model = PushBoost(n_iter=3, random_state=0).fit(X, (X[:, 0] > 0).astype(int))
    loaded = model_from_dict(tampered(model, lambda s: s.update(relevant_label="1", other_label=1)))
    assert (loaded.relevant_label_, loaded.other_label_) == ("1", 1)
