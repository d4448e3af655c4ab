"""Labels given in Python to a model the command line fitted with ``--positive``: refused exactly when they could be
the data file's labels and would rank otherwise read as the model's codes."""

import numpy as np
import pytest

import rankcore
from rankcore import ArgumentRefusal

STUMPS = dict(learner="stumps", price="pow:4", random_state=0, early_stopping=False)


def _data(seed=0, n=200):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    coded = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)     # 1: the relevant rows
    return X, coded, rng


def _as_fitted_by_the_command_line(relevant, other, tmp_path, X, coded, cls=None):
    """A model of ``coded`` recording the file labels ``relevant`` / ``other`` (None: more than two), saved and
    loaded as a command-line model is."""
    model = (cls(random_state=0) if cls else rankcore.PushBoost(n_iter=4, **STUMPS)).fit(X, coded)
    model.relevant_label_, model.other_label_ = relevant, other
    rankcore.save_model(model, tmp_path / "m.json")
    return rankcore.load_model(tmp_path / "m.json")


@pytest.mark.parametrize("cls", [None, rankcore.SGDAtK])
def test_the_files_labels_of_a_three_label_file_are_refused_not_read_as_codes(tmp_path, cls):
    # `rankcore fit --positive 2` on a {0, 1, 2} file: 1 for the file's 2, 0 for its 0 and 1 (other_label_ None);
    # the file's own 0/1 rows read as codes would rank its irrelevant 1s first without a word
    X, coded, rng = _data()
    file_labels = np.where(coded == 1, 2, rng.integers(0, 2, coded.size))
    model = _as_fitted_by_the_command_line(2, None, tmp_path, X, coded, cls)
    rows = file_labels < 2                          # the file's rows without its relevant label
    with pytest.raises(ArgumentRefusal, match=r"y: .* coded 1 for 2 \(relevant_label_, ranked first\)"):
        model.score(X[rows], file_labels[rows])
    # continued on them in Python: the same refusal, before any weak ranker is added
    if cls is None:
        more = rankcore.PushBoost(n_iter=2, **STUMPS)
        with pytest.raises(ValueError, match="init_model.* coded 1 for 2"):
            more.fit(X[rows], file_labels[rows], init_model=model)


def test_codes_that_cannot_be_the_files_labels_are_not_refused(tmp_path):
    # `rankcore fit --positive 2` on a {1, 2} file: the codes 0/1 cannot be its labels (it has no 0), so a coded y
    # is read as what it is; the file's own labels, or a y of its 1s only, could be either and stay refused
    X, coded, _ = _data(1)
    model = _as_fitted_by_the_command_line(2, 1, tmp_path, X, coded)
    in_python = rankcore.PushBoost(n_iter=4, **STUMPS).fit(X, coded)
    assert model.score(X, coded) == in_python.score(X, coded)
    continued = rankcore.PushBoost(n_iter=2, **STUMPS).fit(X, coded, init_model=model)
    assert continued.n_iter_ == 6
    for y in (coded + 1, np.ones_like(coded)):
        with pytest.raises(ArgumentRefusal, match=r"y: .* coded 1 for 2"):
            model.score(X, y)


def test_a_file_of_text_labels_or_coded_as_its_codes_is_never_refused(tmp_path):
    X, coded, _ = _data(2)
    for relevant, other in (("active", None), ("active", "inactive"), (1, 0), (1, None), (True, False)):
        model = _as_fitted_by_the_command_line(relevant, other, tmp_path, X, coded)
        assert model.score(X, coded) > 0.5
