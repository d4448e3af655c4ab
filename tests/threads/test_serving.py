"""A scoring service: one process holding models, loading and scoring from a pool of threads, changes nothing the
process's other threads share (warning filters, BLAS thread counts)."""

import warnings

import numpy as np
import pytest

import rankcore
from rankcore import registry as registry_module


def _data(n=120, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, (X[:, 0] + rng.normal(size=n) > 0.5).astype(int)


def test_load_model_leaves_the_process_warning_filters_alone(tmp_path, monkeypatch):
    # catch_warnings() around the registry's lookup swapped the process's filters, which every thread shares: a
    # request warning meanwhile was silenced, and two overlapping loads could leave "ignore RuntimeWarning" set
    X, y = _data()
    path = tmp_path / "model.json"
    rankcore.save_model(rankcore.boost(learner="stumps", n_iter=3).fit(X, y), path)
    outside = list(warnings.filters)
    seen = []
    original = registry_module.registry

    def spy(*args, **kwargs):
        seen.append(list(warnings.filters))
        return original(*args, **kwargs)

    monkeypatch.setattr(registry_module, "registry", spy)
    rankcore.load_model(path)
    assert seen and all(filters == outside for filters in seen)
    assert list(warnings.filters) == outside


def test_registry_quiet_lists_the_problems_without_warning(monkeypatch):
    built = registry_module._build_registry

    def with_a_problem(*args):
        reg = built(*args)
        reg.problems.append(registry_module.PluginProblem("broken-dist", "broken", "failed to import: boom"))
        return reg

    monkeypatch.setattr(registry_module, "_build_registry", with_a_problem)
    monkeypatch.setitem(registry_module._state, "registry", None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reg = registry_module.registry(quiet=True)
        assert not [w for w in caught if "broken" in str(w.message)]
        assert any(p.distribution == "broken-dist" for p in reg.problems)
        monkeypatch.setitem(registry_module._state, "registry", None)
        registry_module.registry()
        assert [w for w in caught if "broken" in str(w.message)]       # said by a call that is not quiet
    monkeypatch.setitem(registry_module._state, "registry", None)


def test_a_request_of_a_few_rows_does_not_read_the_host_load(quiet_two_cpus, monkeypatch):
    # each reading may sleep a millisecond up to four times on a busy host: a one-row request paid it every
    # IDLE_SAMPLE_SECONDS for threads its kernel (serial below 1024 row-by-tree visits) could not use
    from rankcore import _cpus

    X, y = _data(n=300)
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=20, random_state=0).fit(X, y)
    stumps = rankcore.boost(learner="stumps", n_iter=20, random_state=0).fit(X, y)
    expected = model.decision_function(X[:3])
    readings = []
    monkeypatch.setattr(_cpus, "idle_cpus", lambda: readings.append(1) or 2)
    assert np.array_equal(model.decision_function(X[:3]), expected)
    stumps.decision_function(X[:3])
    model.apply(X[:3])
    assert readings == []
    model.decision_function(np.repeat(X, 4, axis=0))          # 1,200 rows by 20 trees: a parallel pass
    assert readings == [1]


def test_a_request_of_a_few_rows_still_checks_n_jobs():
    X, y = _data()
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=5, random_state=0).fit(X, y)
    model.n_jobs = 0
    with pytest.raises(ValueError, match="n_jobs"):
        model.decision_function(X[:1])
