"""AutoRanker's ``cv=(K, R)``: every repeat is used, each is drawn only when first used, and R is bounded."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

from rankcore.auto import AutoRanker
from rankcore.auto._folds import MAX_CV_REPEATS, check_cv, check_metric_on_units, plan_folds, plan_units
from rankcore.cli import main
from rankcore.registry import resolve


def _data(n=120, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, 4)
    y = (X[:, 0] + rng.randn(n) > 0.5).astype(int)
    return X, y


def _eager_folds(y, n_splits, n_repeats, seed):
    """Every repeat drawn up front, as a reference for the lazily drawn plan."""
    rng = np.random.default_rng(seed)
    folds = []
    for _ in range(n_repeats):
        splitter = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=int(rng.integers(2**31 - 1)))
        folds += [(np.sort(tr), np.sort(va)) for tr, va in splitter.split(np.zeros(y.shape[0]), y)]
    return folds


def test_a_pair_uses_every_repeat_without_a_budget():
    X, y = _data()
    model = AutoRanker(candidates=["linear:n_epochs=2", "trees:n_iter=3"], cv=(3, 2), blend=False,
                       random_state=0, n_jobs=1).fit(X, y)
    assert model.cv_description_ == "3-fold stratified cross-validation, 2 repeats"
    assert {r["name"]: r["n_folds"] for r in model.leaderboard_.records()} == {
        "linear:n_epochs=2": 6, "trees:n_iter=3": 6}


def test_auto_and_a_single_repeat_still_use_one_pass_of_folds():
    X, y = _data()
    for cv, described in (("auto", "5-fold stratified cross-validation"),
                          ((4, 1), "4-fold stratified cross-validation")):
        model = AutoRanker(candidates=["linear:n_epochs=2"], cv=cv, blend=False, random_state=0, n_jobs=1).fit(X, y)
        assert model.cv_description_ == described


@pytest.mark.parametrize("order", [[0, 1, 2, 3, 4, 5, 6, 7, 8], [7, 0, 8, 3]])
def test_lazily_drawn_folds_equal_the_folds_drawn_up_front(order):
    _, y = _data()
    plan = plan_folds(y, (3, 3), 11)
    expected = _eager_folds(y, 3, 3, 11)
    assert len(plan.folds) == 9
    for f in order:
        np.testing.assert_array_equal(plan.folds[f][0], expected[f][0])
        np.testing.assert_array_equal(plan.folds[f][1], expected[f][1])
    with pytest.raises(IndexError):
        plan.folds[9]


def test_planning_a_hundred_repeats_draws_only_the_first(monkeypatch):
    _, y = _data()
    calls = []
    original = StratifiedKFold.split

    def counted(self, *args, **kwargs):
        calls.append(self.random_state)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(StratifiedKFold, "split", counted)
    plan = plan_folds(y, (5, MAX_CV_REPEATS), 0)
    units = plan_units(plan, y, 0)
    check_metric_on_units(resolve("metric", "pauc:0.1"), y, plan, units)
    assert len(units) == 5 * MAX_CV_REPEATS
    assert len(calls) == 1                           # the first repeat only: sizes and labels are read there
    units.rows[5 * 40 + 2]                           # a unit of repeat 41 draws repeats 2 to 41
    assert len(calls) == 41


@pytest.mark.parametrize("cv", [(5, MAX_CV_REPEATS + 1), (5, 1_000_000), (5, 0)])
def test_the_number_of_repeats_is_bounded_by_name(cv):
    with pytest.raises(ValueError, match=rf"^cv: a pair must be \(n_splits >= 2, n_repeats from 1 to "
                                         rf"{MAX_CV_REPEATS}\), got"):
        check_cv(cv)
    X, y = _data()
    with pytest.raises(ValueError, match="cv: "):
        AutoRanker(candidates=["linear:n_epochs=2"], cv=cv).fit(X, y)


def test_the_command_line_refuses_a_million_repeats_at_once(tmp_path, capsys):
    X, y = _data()
    path = tmp_path / "d.csv"
    np.savetxt(path, np.c_[X, y], delimiter=",", header="a,b,c,d,label", comments="")
    status = main(["auto", str(path), "--cv", "5,1000000", "--candidates", "linear:n_epochs=2", "-q",
                   "--out", str(tmp_path / "m.json")])
    assert status == 2
    assert f"from 1 to {MAX_CV_REPEATS}" in capsys.readouterr().err
