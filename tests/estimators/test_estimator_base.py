"""The one estimator architecture (rankcore.base.Ranker): declared parameters, one validation, declared
fitted state, training curves and callbacks, and the messages that name what the user set."""

import inspect
import threading

import numpy as np
import pytest
from sklearn.base import clone

import rankcore
from rankcore.base import IterationInfo, Ranker, TrainingCurve
from rankcore.spec import ParameterError

ITERATIVE = {
    "PushBoost": lambda: rankcore.PushBoost(n_iter=6, n_jobs=1),
    "RankBoost": lambda: rankcore.RankBoost(n_iter=6, n_jobs=1),
    "PNormPush": lambda: rankcore.PNormPush(p=8, n_iter=6, n_jobs=1),
    "ExactBoost": lambda: rankcore.ExactBoost(n_runs=2, n_rounds=6, random_state=0, n_jobs=1),
    "PerceptronAtK": lambda: rankcore.PerceptronAtK(k=5, n_epochs=6, random_state=0),
    "SGDAtK": lambda: rankcore.SGDAtK(k=5, n_epochs=6, random_state=0),
}


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] - 0.5 * X[:, 1] + 0.5 * rng.normal(size=n) > 0.3).astype(int)
    return X, y


# --------------------------------------------------------------------------
# Declared parameters
# --------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [rankcore.PushBoost, rankcore.PNormPush, rankcore.RankBoost, rankcore.ExactBoost,
                                 rankcore.PerceptronAtK, rankcore.SGDAtK, rankcore.KernelRanker],
                         ids=lambda c: c.__name__)
def test_constructor_signature_and_docs_come_from_the_declaration(cls):
    assert issubclass(cls, Ranker)
    signature = inspect.signature(cls)
    assert [p.name for p in signature.parameters.values()] == [p.name for p in cls.parameters]
    assert all(p.kind is p.KEYWORD_ONLY for p in signature.parameters.values())
    assert all(signature.parameters[p.name].default is p.default or signature.parameters[p.name].default == p.default
               for p in cls.parameters)
    doc = cls.__doc__
    assert doc.count("Parameters\n") == 1
    for param in cls.parameters:
        assert f"\n    {param.name} : " in doc, f"{cls.__name__} docs miss {param.name}"
    with pytest.raises(TypeError, match="unexpected keyword argument 'nosuch'"):
        cls(nosuch=1)
    with pytest.raises(TypeError):
        cls(1)


def test_dask_twins_declare_client_first_and_the_in_memory_patience():
    pytest.importorskip("distributed")
    from rankcore.dask import DaskExactBoost, DaskPushBoost

    params = inspect.signature(DaskPushBoost).parameters
    assert list(params)[0] == "client" and params["n_iter_no_change"].default is None
    assert list(inspect.signature(DaskExactBoost).parameters)[:2] == ["client", "batches_per_worker_thread"]
    assert "client : distributed.Client or None" in DaskPushBoost.__doc__


@pytest.mark.parametrize("make, message", [
    (lambda: rankcore.PushBoost(n_iter=0), r"^n_iter: expected an integer in \[1, 2147483647\], got 0$"),
    (lambda: rankcore.PushBoost(tol=float("nan")), r"^tol: expected a finite number >= 0, got nan$"),
    (lambda: rankcore.ExactBoost(n_runs="2"), r"^n_runs: expected an integer in \[1, 2147483647\], got '2'$"),
    (lambda: rankcore.SGDAtK(radius=0.0), r"^radius: expected a finite number > 0, got 0.0$"),
    (lambda: rankcore.KernelRanker(refit="yes"), r"^refit: expected True or False, got 'yes'$"),
    (lambda: rankcore.PerceptronAtK(random_state=np.random.default_rng(0)), r"^random_state: expected None, an "
     r"integer in \[0, 2\*\*32 - 1\] or a numpy RandomState, got Generator"),
])
def test_one_validation_style_names_the_parameter(make, message):
    X, y = _data()
    with pytest.raises(ParameterError, match=message) as info:
        make().fit(X, y)
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)


def test_exactboost_head_beyond_its_range_is_refused_naming_head():
    """head=1e308 raised OverflowError naming nothing."""
    X, y = _data()
    with pytest.raises(ValueError, match=r"^head: expected 'auto', None or a number in \[1, 1e\+06\]"):
        rankcore.ExactBoost(metric="prec@k:5", head=1e308, n_runs=2, n_rounds=2).fit(X, y)
    rankcore.ExactBoost(metric="prec@k:5", head=1e6, n_runs=2, n_rounds=2, random_state=0).fit(X, y)


@pytest.mark.parametrize("random_state", ["x", -1, 1.5, True, 2**32, 10**308])
def test_gbdt_adapters_name_random_state(random_state):
    """The adapters' random_state is checked like an estimator's and named."""
    from rankcore.gbdt import lightgbm_objective, xgboost_objective

    for make in (lightgbm_objective, xgboost_objective):
        with pytest.raises(ValueError, match=r"^random_state: expected None, an integer in \[0, 2\*\*32 - 1\] or a "
                           r"numpy Generator"):
            make("prec@k-avg:0.1", random_state=random_state)


_SEEDED = {"PushBoost": dict(n_iter=3), "ExactBoost": dict(n_runs=2, n_rounds=2), "PerceptronAtK": dict(n_epochs=2),
           "SGDAtK": dict(n_epochs=2), "KernelRanker": {}, "AutoRanker": dict(candidates=["stumps:n_iter=3"], cv=2)}


@pytest.mark.parametrize("name", sorted(_SEEDED))
@pytest.mark.parametrize("seed", [2**32, 2**63, 10**308])
def test_a_seed_beyond_2_32_is_refused_naming_random_state(name, seed):
    """Seeds of 2**32 and beyond: NumPy's RandomState (Perceptron@k, SGD@k, AutoRanker's candidates) raised its own
    "Seed must be between 0 and 2**32 - 1" naming nothing, while the other estimators took them; now every
    estimator takes the seeds [0, 2**32 - 1], as scikit-learn and --random-state do."""
    X, y = _data()
    with pytest.raises(ParameterError, match=r"^random_state: expected None, an integer in \[0, 2\*\*32 - 1\]"):
        getattr(rankcore, name)(random_state=seed, **_SEEDED[name]).fit(X, y)
    getattr(rankcore, name)(random_state=2**32 - 1, **_SEEDED[name]).fit(X, y)


def test_price_typo_names_the_parameter_and_suggests_the_name():
    """Not "objective 'push': price must be price spec", but the parameter set and a guess."""
    X, y = _data()
    with pytest.raises(ValueError, match=r"^price='pwo:16': unknown price 'pwo'; did you mean 'pow'\?") as info:
        rankcore.PushBoost(price="pwo:16").fit(X, y)
    assert "objective 'push'" not in str(info.value)
    with pytest.raises(ValueError, match=r"^learner='stumpz': unknown learner 'stumpz'; did you mean 'stumps'\?"):
        rankcore.RankBoost(learner="stumpz").fit(X, y)
    with pytest.raises(ValueError, match=r"unknown metric 'acu'; did you mean 'auc'\?"):
        rankcore.ExactBoost(metric="acu").fit(X, y)
    with pytest.raises(ValueError, match=r"^p=2000000.0: price 'pow': p must be a number >= 1 and <= 1e\+06"):
        rankcore.PNormPush(p=2e6).fit(X, y)


def test_cli_price_typo_suggests_the_name(tmp_path, capsys):
    from rankcore.cli import main

    X, y = _data()
    path = tmp_path / "d.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header="a,b,c,d,y", comments="")
    assert main(["fit", str(path), "--label", "y", "--price", "pwo:16", "--out", str(tmp_path / "m.json")]) == 2
    err = capsys.readouterr().err
    assert "--price 'pwo:16': unknown price 'pwo'; did you mean 'pow'?" in err
    assert main(["fit", str(path), "--label", "y", "--model", "exactbost", "--out", str(tmp_path / "m.json")]) == 2
    assert "unknown model 'exactbost'; did you mean 'exactboost'?" in capsys.readouterr().err
    assert main(["fit", str(path), "--label", "y", "--model", "exactboost:head=1e308",
                 "--out", str(tmp_path / "m.json")]) == 2
    assert "head: expected 'auto', None or a number in [1, 1e+06]" in capsys.readouterr().err


def test_estimators_resolve_from_specs_and_round_trip():
    model = rankcore.resolve("estimator", "ExactBoost:n_runs=3,metric=prec@k:5")
    assert isinstance(model, rankcore.ExactBoost) and model.n_runs == 3 and model.metric == "prec@k:5"
    assert rankcore.resolve("estimator", model.spec).get_params() == model.get_params()
    assert rankcore.resolve("estimator", "sgd@k").spec == "SGDAtK"
    with pytest.raises(rankcore.SpecError, match="unknown parameter"):
        rankcore.resolve("estimator", "PushBoost:nosuch=1")
    with pytest.raises(rankcore.SpecError, match=r"n_iter: expected an integer in \[1, 2147483647\]"):
        rankcore.resolve("estimator", "PushBoost:n_iter=0")


# --------------------------------------------------------------------------
# Training curves and callbacks
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(ITERATIVE))
def test_every_iterative_estimator_has_a_curve_and_callbacks(name):
    X, y = _data()
    seen = []
    model = ITERATIVE[name]().fit(X, y, callbacks=seen.append, eval_set=(X[:60], y[:60]))
    curve = model.training_curve_
    assert isinstance(curve, TrainingCurve) and curve.validation is not None
    assert curve.iterations.shape == curve.objective.shape == curve.validation.shape
    assert [info.iteration for info in seen] == list(range(1, len(seen) + 1)) and len(seen) >= 5
    assert all(isinstance(info, IterationInfo) and info.validation_score is not None for info in seen)
    last = seen[-1]
    assert last.objective == pytest.approx(curve.objective[list(curve.iterations).index(last.iteration)])
    assert last.validation_score == pytest.approx(curve.validation[list(curve.iterations).index(last.iteration)])
    stopped = ITERATIVE[name]().fit(X, y, callbacks=lambda info: info.iteration == 2)
    assert stopped.training_curve_.objective.shape[0] <= curve.objective.shape[0]


def test_exactboost_stopped_by_a_callback_is_the_fit_with_fewer_rounds():
    X, y = _data()
    stopped = rankcore.ExactBoost(metric="prec@k:10", n_runs=3, n_rounds=6, random_state=0,
                                  n_jobs=1).fit(X, y, callbacks=lambda info: info.iteration == 3)
    short = rankcore.ExactBoost(metric="prec@k:10", n_runs=3, n_rounds=3, random_state=0, n_jobs=1).fit(X, y)
    np.testing.assert_array_equal(stopped.decision_function(X), short.decision_function(X))
    np.testing.assert_array_equal(stopped.stumps_, short.stumps_)
    from rankcore.persistence import model_from_dict, model_to_dict      # it saves and loads like any other

    np.testing.assert_array_equal(model_from_dict(model_to_dict(stopped)).decision_function(X),
                                  stopped.decision_function(X))


def test_kernel_ranker_is_not_iterative():
    X, y = _data()
    with pytest.raises(AttributeError, match="not iterative"):
        rankcore.KernelRanker(lam=0.1).fit(X, y).training_curve_


# --------------------------------------------------------------------------
# Declared fitted state: the publish of a fit
# --------------------------------------------------------------------------


def test_a_refit_leaves_no_attribute_of_the_previous_fit():
    X, y = _data()
    model = rankcore.PushBoost(n_iter=5, n_jobs=1).fit(X, y, eval_set=(X, y))
    assert hasattr(model, "validation_scores_")
    model.fit(X, y)
    assert not hasattr(model, "validation_scores_") and not hasattr(model, "best_iteration_")
    graded = rankcore.PushBoost(objective="mp-squared", n_iter=3, n_jobs=1)
    graded.classes_ = np.array([0, 1])         # as if left from an earlier bipartite fit
    graded.fit(X, X[:, 0])
    assert not hasattr(graded, "classes_")


def test_a_fit_publishes_only_declared_attributes():
    class Sloppy(Ranker):
        """A ranker that forgets to declare an attribute."""

        name = "Sloppy"
        parameters = ()
        fitted = (rankcore.base.Fitted("coef_"),)

    from rankcore._threadsafe import fits_on_a_copy

    def fit(self, X, y):
        self.coef_ = 1.0
        self.extra_ = 2.0
        self._scratch = 3.0
        return self

    Sloppy.fit = fits_on_a_copy(fit)
    with pytest.raises(TypeError, match=r"Sloppy.fit set extra_, which Sloppy.fitted does not declare"):
        Sloppy().fit(None, None)

    def tidy(self, X, y):
        self.coef_ = 1.0
        self._scratch = 3.0
        return self

    Sloppy.fit = fits_on_a_copy(tidy)
    model = Sloppy().fit(None, None)
    assert model.coef_ == 1.0 and not hasattr(model, "_scratch")


def test_concurrent_fits_publish_one_whole_model():
    X, y = _data(400)
    model = rankcore.PushBoost(n_iter=10, n_jobs=1)
    first = clone(model).fit(X, y).alphas_
    second = clone(model).fit(X[::-1], y[::-1]).alphas_
    threads = [threading.Thread(target=model.fit, args=args) for args in ((X, y), (X[::-1], y[::-1]))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert any(np.array_equal(model.alphas_, a) for a in (first, second))


def test_a_fitted_estimator_with_a_parameter_without_text_survives_dir_and_hasattr():
    # hasattr, dir(), inspect.getmembers and the notebook's display read every attribute: spec's TypeError
    # broke them all; it is an AttributeError too
    X = np.random.default_rng(0).normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    model = rankcore.KernelRanker(lam=[0.1, 0.01]).fit(X, y)
    assert not hasattr(model, "spec")
    assert "decision_function" in dict(inspect.getmembers(model))
    with pytest.raises(TypeError, match=r"KernelRanker.spec: lam=.* has no text form"):
        model.spec
    model._repr_mimebundle_()


@pytest.mark.parametrize("make", [lambda: rankcore.boost(n_iter=10, random_state=0),
                                  lambda: rankcore.ExactBoost(n_runs=2, n_rounds=10, random_state=0),
                                  lambda: rankcore.SGDAtK(n_epochs=10, random_state=0)],
                         ids=["push", "exactboost", "sgd"])
def test_every_callback_sees_the_iteration_that_stops_the_fit(make):
    # the callbacks after the stopper were skipped for the last iteration, which the model keeps
    X = np.random.default_rng(0).normal(size=(80, 3))
    y = (X[:, 0] > 0).astype(int)
    seen = []
    make().fit(X, y, callbacks=[lambda info: info.iteration == 3, lambda info: seen.append(info.iteration)])
    assert seen == [1, 2, 3]


def test_exactboost_checks_its_eval_set_against_the_metric_before_any_run():
    X = np.random.default_rng(0).normal(size=(100, 3))
    y = (X[:, 0] > 0).astype(int)
    calls = []
    with pytest.raises(ValueError, match=r"eval_set: metric 'prec@k:50': k: expected a count in \[1, 30\]"):
        rankcore.ExactBoost(metric="prec@k:50", n_runs=2, n_rounds=5, random_state=0).fit(
            X, y, eval_set=(X[:30], y[:30]), callbacks=lambda info: calls.append(info))
    assert calls == []                     # refused before the first round
