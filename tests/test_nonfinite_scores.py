"""No public call returns NaN/inf scores silently."""

import numpy as np
import pytest

import rankcore
from rankcore import ExactBoost, KernelRanker, PerceptronAtK, PNormPush, RankBoost, SGDAtK
from rankcore.cli import main
from rankcore.validation import check_finite_scores


def _data(seed=0, n=120, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _plain(cls):
    """No warm start either (PerceptronAtK has none)."""
    return {"init": "zero"} if cls is SGDAtK else {}


@pytest.mark.parametrize("cls", [SGDAtK, PerceptronAtK])
def test_linear_learners_on_huge_features_raise_instead_of_nan_scores(cls):
    X, y = _data(n=200, d=5)
    # Without the internal standardization the scores <w, x> overflow: a clear error, not NaN.
    with pytest.raises(FloatingPointError, match=r"overflow float64 \(the largest \|x\| is .*e\+200\).*rescale"):
        cls(random_state=0, n_epochs=2, standardize=False, **_plain(cls)).fit(X * 1e200, y)
    model = cls(random_state=0, n_epochs=2, standardize=False, **_plain(cls)).fit(X * 1e100, y)   # representable
    assert np.isfinite(model.decision_function(X * 1e100)).all()
    # The default standardizes the features inside the model: huge features are fine.
    model = cls(random_state=0, n_epochs=2).fit(X * 1e200, y)
    assert np.isfinite(model.decision_function(X * 1e200)).all()


def _fitted(cls):
    X, y = _data()
    if cls is KernelRanker:
        return KernelRanker(kernel="linear", lam=0.1).fit(X, y), X
    if cls is ExactBoost:
        return ExactBoost(n_runs=2, n_rounds=5, random_state=0).fit(X, y), X
    return cls(n_iter=5, random_state=0).fit(X, y) if cls in (RankBoost, PNormPush) \
        else cls(random_state=0, n_epochs=2).fit(X, y), X


def _inflate(model):
    """Coefficients of 1e308 (as a model file may hold): finite, but the scores overflow."""
    if hasattr(model, "alphas_"):
        model.alphas_ = np.full_like(model.alphas_, 1e308)
    elif hasattr(model, "dual_coef_"):
        model.dual_coef_ = np.full_like(model.dual_coef_, 1e308)
    elif hasattr(model, "average_"):
        # the linear learners store the model in standardized units (coef_ = average_ / feature_scale_)
        model.average_ = np.full_like(model.average_, 1e307) * model.feature_scale_
        model.iterate_ = model.average_.copy()
        model.coef_ = model.average_ / model.feature_scale_
    else:
        model.coef_ = np.full_like(model.coef_, 1e308)


@pytest.mark.parametrize("cls", [RankBoost, PNormPush, KernelRanker, SGDAtK, PerceptronAtK])
def test_decision_function_refuses_to_return_non_finite_scores(cls):
    model, X = _fitted(cls)
    _inflate(model)
    with pytest.raises(FloatingPointError, match=f"{cls.__name__}.decision_function: .* overflowed"):
        model.decision_function(X * 10)


def test_staged_scores_are_checked_too():
    model, X = _fitted(RankBoost)
    _inflate(model)
    with pytest.raises(FloatingPointError, match="staged_decision_function"):
        list(model.staged_decision_function(X * 10))


def test_check_finite_scores_helper():
    ok = np.array([0.0, 1.0])
    assert check_finite_scores(ok, owner="m") is ok
    with pytest.raises(FloatingPointError, match=r"m: 2 of 3 scores .* largest \|x\| is 5"):
        check_finite_scores(np.array([np.nan, 1.0, np.inf]), owner="m", X=np.array([[5.0], [-1.0], [2.0]]))


def test_a_boosted_model_whose_scores_would_overflow_is_not_saved(tmp_path):
    """Stumps' values times coefficients of 1e308 add up past float64: the file would not load, so it is not
    written (the CLI's scoring of such a file is the linear models' case below)."""
    model, _ = _fitted(RankBoost)
    _inflate(model)
    with pytest.raises(ValueError, match="largest values times their coefficients add up past the largest float64"):
        rankcore.save_model(model, tmp_path / "m.json")
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("cls", [SGDAtK, KernelRanker])
def test_cli_score_of_a_model_whose_scores_overflow_exits_2_blaming_the_model(cls, tmp_path, capsys):
    model, X = _fitted(cls)
    _inflate(model)
    rankcore.save_model(model, tmp_path / "m.json")        # finite coefficients: the file is valid
    data = tmp_path / "d.csv"
    np.savetxt(data, np.column_stack([X * 10, np.arange(X.shape[0]) % 2]), delimiter=",",
               header="a,b,c,d,y", comments="")
    for command in (["score", str(tmp_path / "m.json"), str(data), "--label", "y"],
                    ["evaluate", str(tmp_path / "m.json"), str(data), "--label", "y", "--metrics", "auc"]):
        assert main(command) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "overflowed" in err, err
        assert "scores: expected finite" not in err
