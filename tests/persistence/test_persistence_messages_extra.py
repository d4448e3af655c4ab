"""Messages of model files that cannot be read or written: what to do next."""

import numpy as np
import pytest

import rankcore
from rankcore.persistence import ModelFormatError, model_from_dict, model_to_dict


def test_a_newer_format_says_to_upgrade():
    model = rankcore.boost(n_iter=2).fit(np.random.default_rng(0).random((20, 2)), np.arange(20) % 2)
    data = model_to_dict(model)
    data["format_version"], data["rankcore_version"] = 3, "9.1.0"
    with pytest.raises(ModelFormatError, match=rf"format version 3 is not supported: the file was written by "
                                               rf"rankcore '9.1.0', this is rankcore '{rankcore.__version__}', "
                                               r"which reads format versions 1, 2; upgrade rankcore"):
        model_from_dict(data)
    data["format_version"] = 0
    with pytest.raises(ModelFormatError, match=r"format version 0 is not supported \(expected one of 1, 2\)$"):
        model_from_dict(data)


def _fitted(learner="stumps"):
    rng = np.random.default_rng(0)
    return rankcore.boost(learner=learner, n_iter=2).fit(rng.random((60, 2)), np.arange(60) % 2)


def test_markers_in_params_make_format_2_and_other_files_stay_format_1():
    # a component object in params is written {"__component__": ...}: a reader of format 1 got it as a dict and
    # failed on the parameter; format 2 makes it refuse the file as newer and ask for an upgrade
    model = _fitted(rankcore.resolve("learner", "trees:max_leaves=4,min_samples_leaf=2"))
    marked = model_to_dict(model)
    assert "__component__" in marked["params"]["learner"] and marked["format_version"] == 2
    assert model_from_dict(marked).get_params()["learner"].spec == model.get_params()["learner"].spec
    plain = model_to_dict(_fitted("trees:max_leaves=4,min_samples_leaf=2"))
    assert plain["format_version"] == 1               # as every file before: an older rankcore reads it
    model_from_dict(plain)


def test_a_marked_file_of_format_1_still_loads():
    # files written before the bump hold markers under format 1: this reader reads both
    from rankcore import persistence

    model = _fitted(rankcore.resolve("learner", "trees:max_leaves=4,min_samples_leaf=2"))
    data = model_to_dict(model)
    data["format_version"] = 1
    data["sha256"] = persistence._checksum({k: v for k, v in data.items() if k != "sha256"})
    assert model_from_dict(data).get_params()["learner"].spec == model.get_params()["learner"].spec


def test_a_reader_of_format_1_only_asks_to_upgrade_for_a_format_2_file(monkeypatch):
    # (Before: "format version 2 is not supported (expected one of 1)", without the upgrade: "newer" was read
    # against the version written, not against the versions read.)
    from rankcore import persistence

    data = model_to_dict(_fitted(rankcore.resolve("learner", "trees:max_leaves=4,min_samples_leaf=2")))
    assert data["format_version"] == 2
    monkeypatch.setattr(persistence, "READ_VERSIONS", (1,))
    with pytest.raises(ModelFormatError, match=r"format version 2 is not supported: the file was written by "
                                               r"rankcore .*which reads format versions 1; upgrade rankcore"):
        model_from_dict(data)
