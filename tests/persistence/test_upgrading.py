"""Files and pickles from other rankcore versions: what loads, and what a refusal says to do."""


import numpy as np
import pytest

import rankcore
from rankcore import _model_versions, persistence
from rankcore.persistence import ModelFormatError, model_from_dict, model_to_dict


def _model_dict():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 3)), rng.integers(0, 2, 40)
    return model_to_dict(rankcore.PushBoost(n_iter=3, random_state=0).fit(X, y))


def _written(data, version, **changes):
    """``data`` as the rankcore ``version`` would have written it with ``changes`` (checksum recomputed)."""
    data = {k: v for k, v in data.items() if k != "sha256"}
    data.update(changes, rankcore_version=version)
    data["sha256"] = persistence._checksum(data)
    return data


def test_a_removed_parameter_is_named_with_what_to_do():
    # before: "invalid parameters: Invalid parameter 'n_iters' for estimator PushBoost(...)", nothing of versions
    data = _model_dict()
    old = _written(data, "0.0.1", params={**data["params"], "n_iters": 3})
    with pytest.raises(ModelFormatError, match=r"PushBoost has no parameter 'n_iters'.*removed or renamed since; "
                                               r"'n_iters' may now be 'n_iter'; refit the model"):
        model_from_dict(old, source="old.json")


@pytest.mark.parametrize("version", [rankcore.__version__, rankcore.__version__ + "+local",
                                     rankcore.__version__ + ".dev3"])
def test_a_parameter_unknown_to_the_release_that_wrote_the_file_is_not_said_removed_since(version):
    # this release cannot have removed a parameter since it wrote the file: a development build or an edit named it
    data = _model_dict()
    edited = _written(data, version, params={**data["params"], "n_iters": 3})
    with pytest.raises(ModelFormatError, match=r"says it was written by this release .*never had it") as refused:
        model_from_dict(edited, source="edited.json")
    assert "removed or renamed since" not in str(refused.value)


def test_several_removed_parameters_are_spoken_of_as_several():
    data = _model_dict()
    old = _written(data, "0.0.1", params={**data["params"], "n_iters": 3, "knob": 1})
    with pytest.raises(ModelFormatError, match=r"no parameter 'knob', 'n_iters' .*had them, and they were removed"):
        model_from_dict(old, source="old.json")


def test_a_parameter_of_a_newer_rankcore_asks_for_an_upgrade():
    data = _model_dict()
    newer = _written(data, "999.0", params={**data["params"], "new_knob": 1})
    with pytest.raises(ModelFormatError, match=r"no parameter 'new_knob'.*written by rankcore '999.0', a newer "
                                               r"one; upgrade rankcore to load it"):
        model_from_dict(newer, source="new.json")


def test_a_state_field_of_a_newer_rankcore_asks_for_an_upgrade():
    data = _model_dict()
    newer = _written(data, "999.0", state={**data["state"], "new_field": 1})
    with pytest.raises(ModelFormatError, match=r"unexpected or missing fields \['new_field'\] \(the file was "
                                               r"written by rankcore '999.0', newer than this .*upgrade rankcore"):
        model_from_dict(newer, source="new.json")
    # the same field from this rankcore's version (a hand-edited file) says nothing of upgrading
    same = _written(data, rankcore.__version__, state={**data["state"], "new_field": 1})
    with pytest.raises(ModelFormatError) as refused:
        model_from_dict(same, source="edited.json")
    assert "upgrade" not in str(refused.value)


@pytest.mark.parametrize("version, newer", [("999.0", True), ("999.0rc1", True), ("0.1.1", True), ("0.0.1", False),
                                            ("0.1.0.dev3", False), ("0.1.0", False), ("nonsense", False)])
def test_written_by_newer_compares_releases(version, newer):
    assert _model_versions.newer_than(version, "0.1.0") is newer


@pytest.mark.parametrize("written, this, newer", [
    ("0.1.0", "0.1.0.dev3", True), ("0.1.0rc1", "0.1.0.dev3", True), ("0.1.0.dev4", "0.1.0.dev3", True),
    ("0.1.0.dev3", "0.1.0.dev3", False), ("0.1.0.dev2", "0.1.0.dev3", False), ("0.1.0a1", "0.1.0rc1", False),
    ("0.1.0", "0.1.0rc1", True), ("0.1.0.post1", "0.1.0", True), ("0.1.0.post1.dev1", "0.1.0", True),
    ("0.1.0.post1.dev1", "0.1.0.post1", False), ("0.1", "0.1.0", False), ("0.1.0+g1234abc", "0.1.0", False),
    ("0.1.1.dev1", "0.1.0", True)])
def test_written_by_newer_follows_pep_440_order(written, this, newer):
    """Before: a development build 0.1.0.dev3 read a file of its final release 0.1.0 as not newer (same numbers)."""
    assert _model_versions.newer_than(written, this) is newer


def test_a_development_build_reading_its_final_releases_file_asks_for_an_upgrade():
    data = _model_dict()
    final = _written(data, "0.1.0", params={**data["params"], "new_knob": 1})
    with pytest.raises(ModelFormatError, match=r"written by rankcore '0.1.0', a newer one; upgrade rankcore"):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rankcore, "__version__", "0.1.0.dev3")
            model_from_dict(final, source="final.json")


def test_a_file_of_this_rankcore_still_loads_after_the_checks():
    data = _model_dict()
    assert model_from_dict(_written(data, "0.0.1")).n_iter == 3
