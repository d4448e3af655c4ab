"""Messages of model files that cannot be read or written: what to do next."""

import numpy as np
import pytest

import rankcore
from rankcore.persistence import ModelFormatError, model_from_dict, model_to_dict


def test_a_newer_format_says_to_upgrade():
    model = rankcore.boost(n_iter=2).fit(np.random.default_rng(0).random((20, 2)), np.arange(20) % 2)
    data = model_to_dict(model)
    data["format_version"] = 2
    with pytest.raises(ModelFormatError, match=r"format version 2 is not supported \(expected 1\); the file was "
                                               r"written by a newer rankcore .*: upgrade rankcore"):
        model_from_dict(data)
    data["format_version"] = 0
    with pytest.raises(ModelFormatError, match=r"format version 0 is not supported \(expected 1\)$"):
        model_from_dict(data)
