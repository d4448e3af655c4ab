"""The cap ``max_delta_step`` is named only where the fit without it would have gone on, from the same scores.

A capped tree's own account -- its leaves without the clamp, −Σ G²/(H + λ) -- is not the tree the fit without the
cap takes: the uncapped gains choose other splits, and a greedy search need not reach the larger decrement.  On
this data a capped leaf-wise or depth-wise tree's uncapped derivative is beyond ``tol`` while the uncapped fit's
first tree is within it: the uncapped fit stops there too, so the capped fit converged, and no warning may tell the
user to raise the cap.  The stop rule asks the layout for the uncapped fit's tree (the same draw) before it names
the cap.
"""

import contextlib
import warnings

import numpy as np
import pytest

import rankcore
import rankcore.push._driver as driver
from rankcore.learners.trees._layout import TreeLayout


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=300) > 0.5).astype(int)
    return X, y


def _fit(spec, X, y, tol, n_iter=2, **fit):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = rankcore.boost(learner=spec, random_state=0, n_iter=n_iter, tol=tol).fit(X, y, **fit)
    return model, [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


def _case(growth, q, t, monkeypatch):
    """The cap at the ``q``-th percentile of the first uncapped tree's |leaf values|, and a tol a fraction ``t`` of
    the way from the capped tree's |derivative| to its own uncapped one."""
    X, y = _data()
    spec = f"trees:min_samples_leaf=5,growth={growth},max_depth=3"
    first = rankcore.boost(learner=spec, random_state=0, n_iter=1, tol=0.0).fit(X, y).rankers_[0]
    leaves = np.abs(first.value[first.left < 0] if hasattr(first, "left") else first.value)
    cap = float(np.percentile(leaves[leaves != 0], q))
    seen = []
    spied = driver._stalled_by_learner
    with monkeypatch.context() as patch:
        patch.setattr(driver, "_stalled_by_learner", lambda backend, layout, result, iteration, ranker, *args: (
            seen.append((args[0], ranker.uncapped_derivative)), spied(backend, layout, result, iteration, ranker,
                                                                      *args)))
        _fit(f"{spec},max_delta_step={cap!r}", X, y, 1e9)
    (derivative, uncapped), = seen
    assert 0 < abs(derivative) < abs(uncapped)
    return X, y, spec, cap, abs(derivative) + t * (abs(uncapped) - abs(derivative))


@pytest.mark.parametrize("growth", ["leafwise", "depthwise"])
def test_a_cap_is_not_blamed_where_the_fit_without_it_stops_too(growth, monkeypatch):
    X, y, spec, cap, tol = _case(growth, 80, 0.9, monkeypatch)
    capped_spec = f"{spec},max_delta_step={cap!r}"
    free, free_messages = _fit(spec, X, y, tol)
    assert free.stop_reason_ == "converged" and free.n_iter_ == 0          # the uncapped fit stops here
    capped, messages = _fit(capped_spec, X, y, tol)
    assert capped.stop_reason_ == "converged" and capped.n_iter_ == 0
    assert not any("max_delta_step" in m for m in messages) and messages == free_messages
    # the tree's own account alone (the rule before) blamed the cap: the case tests the question asked
    with monkeypatch.context() as patch:
        patch.setattr(TreeLayout, "without_stalling_setting", None)
        blamed, messages = _fit(capped_spec, X, y, tol)
    assert blamed.stop_reason_ == "no_split" and "raise max_delta_step" in messages[0]


@pytest.mark.parametrize("growth", ["leafwise", "depthwise", "oblivious"])
def test_a_cap_is_named_where_the_fit_without_it_goes_on(growth, monkeypatch):
    X, y, spec, cap, tol = _case(growth, 60, 0.5, monkeypatch)
    free, _ = _fit(spec, X, y, tol)
    assert free.n_iter_ >= 1                                              # the uncapped fit takes the tree
    capped, messages = _fit(f"{spec},max_delta_step={cap!r}", X, y, tol)
    assert capped.stop_reason_ == "no_split" and capped.n_iter_ == 0
    assert len(messages) == 1 and f"the cap max_delta_step={cap!r} clamped" in messages[0]


def test_the_question_leaves_the_fit_as_it_was(monkeypatch):
    """The uncapped search replays the tree's draw (the generator is not read) and the layout keeps its cap, its
    grower and its account as they were."""
    X, y, spec, cap, tol = _case("leafwise", 60, 0.5, monkeypatch)
    asked = []
    lift = TreeLayout.without_stalling_setting

    def spied(self):
        before = (self._rng.bit_generator.state, self.max_delta_step, self._grower, self.last_no_split)
        with lift(self):
            assert self.max_delta_step == 0.0
            yield
        after = (self._rng.bit_generator.state, self.max_delta_step, self._grower, self.last_no_split)
        asked.append(before == after)

    monkeypatch.setattr(TreeLayout, "without_stalling_setting", contextlib.contextmanager(spied))
    capped, _ = _fit(f"{spec},max_delta_step={cap!r}", X, y, tol)
    assert capped.stop_reason_ == "no_split" and asked == [True]
