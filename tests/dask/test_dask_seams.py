"""rankcore.dask works from the components' public declarations only.

* A toy learner and a toy metric written outside the package against the
  public API (``tests/_toy_plugins.py``), registered as a plugin, run on a
  real 2-worker LocalCluster unmodified and equal their in-memory results.
* The learners' distributed preparation reads the rows through a
  ``RowSource``; on Dask and in memory the source answers the same, and every
  built-in learner prepares the same layout from it as from the matrix.
* The package imports no private module of another rankcore package and
  dispatches on no concrete component class (a source scan).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest

import rankcore
from rankcore.learners import InMemoryRows

from _dask_cluster import dask_client  # noqa: F401  (the shared LocalCluster; skips without the [dask] extra)

DASK_DIR = Path(rankcore.__file__).resolve().parent / "dask"
CHUNKS = (100, 37, 200, 163, 100)


def _data(n=600, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 3] = np.round(X[:, 3], 1)
    y = (rng.random(n) < 0.2).astype(int)
    X[y == 1, :2] += 0.7
    order = np.argsort(y, kind="stable")               # the first chunk holds negatives only
    return X[order], y[order]


# --------------------------------------------------------------------------
# Source scan: public seams only
# --------------------------------------------------------------------------

def _dask_imports():
    """(file, line, imported module path) of every import in rankcore/dask that leaves the package."""
    found = []
    for path in sorted(DASK_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level >= 2:                              # from ..x.y import z
                    module = "rankcore." + (node.module or "")
                elif node.level == 0 and (node.module or "").startswith("rankcore"):
                    module = node.module
                else:
                    continue
                if module.startswith("rankcore.dask"):
                    continue
                found.append((path.name, node.lineno, module, [a.name for a in node.names]))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("rankcore") and not alias.name.startswith("rankcore.dask"):
                        found.append((path.name, node.lineno, alias.name, []))
    return found


def test_dask_imports_no_private_module_of_another_package():
    """``rankcore.x._y`` is private to ``rankcore.x``; rankcore.dask may use rankcore's own (``rankcore._y``)."""
    private = [(f, line, module) for f, line, module, _ in _dask_imports()
               if any(part.startswith("_") for part in module.split(".")[2:])]
    assert private == []
    assert _dask_imports(), "the scan found no import at all: it is looking in the wrong place"


def test_dask_dispatches_on_no_concrete_component_class():
    """No ``type(x) is C`` / ``type(x) in (...)``; isinstance only on data containers and builtins."""
    allowed = {"bool", "int", "float", "str", "tuple", "list", "dict", "np.integer", "np.ndarray",
               "dd.DataFrame", "dd.Series", "da.Array", "Client", "Component"}
    bad = []
    for path in sorted(DASK_DIR.glob("*.py")):
        text = path.read_text()
        bad += [(path.name, m.group(0)) for m in re.finditer(r"type\([^()]*\)\s+(is|in|==)\b", text)]
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance":
                classes = node.args[1]
                names = classes.elts if isinstance(classes, ast.Tuple) else [classes]
                bad += [(path.name, ast.unparse(c)) for c in names if ast.unparse(c) not in allowed]
    assert bad == []


# --------------------------------------------------------------------------
# RowSource: the built-in learners prepare the same layout from it as from X
# --------------------------------------------------------------------------

def _weights(n, seed):
    w = np.random.default_rng(seed).uniform(0.5, 2.0, size=n)
    w[::7] = 0.0                                         # rows of zero weight are ignored by every rule
    return w


@pytest.mark.parametrize("spec", ["stumps:max_bins=16", "stumps:subsample=250", "thresholds:q=5", "features",
                                  "trees:max_leaves=4"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_learner_prepare_distributed_equals_prepare(spec, weighted):
    X, y = _data(seed=1)
    w = _weights(X.shape[0], 2) if weighted else None
    learner = rankcore.resolve("learner", spec)
    direct = learner.prepare(X, sample_weight=w, random_state=7)
    through = learner.prepare_distributed(InMemoryRows(X, w), random_state=7)
    assert type(through) is type(direct)
    for name, value in vars(direct).items():
        if name.startswith("_"):                         # scratch buffers
            continue
        if isinstance(value, list) and value and isinstance(value[0], np.ndarray):       # bin edges
            assert all(np.array_equal(a, b) for a, b in zip(value, getattr(through, name))), name
        elif isinstance(value, np.ndarray):
            np.testing.assert_array_equal(getattr(through, name), value, err_msg=name)


def test_learner_default_prepare_distributed_gathers_the_rows():
    from _toy_plugins import ThirdsSteps

    X, _ = _data(seed=3)
    w = _weights(X.shape[0], 4)
    layout = ThirdsSteps().prepare_distributed(InMemoryRows(X, w))
    assert layout.rankers == ThirdsSteps().prepare(X[w > 0]).rankers


def test_declared_capabilities_of_the_built_ins():
    """What the Dask backend reads instead of classes."""
    X, y = _data(seed=5)
    y8 = y.astype(np.int8)
    assert rankcore.resolve("learner", "stumps").prepare(X).threshold_histograms
    assert not rankcore.resolve("learner", "features").prepare(X).threshold_histograms
    assert not rankcore.resolve("learner", "trees").prepare(X).threshold_histograms
    assert rankcore.resolve("objective", "push:exp,pow:4").bind(y8).has_abs_sum_summary
    assert not rankcore.resolve("objective", "push:exp,exp:0.3").bind(y8).has_abs_sum_summary
    assert rankcore.resolve("objective", "push:hinge,pow:2").sum_over_negatives
    forms = {spec: rankcore.resolve("metric", spec).distributed_form()
             for spec in ("auc", "pauc:0.1", "tpauc:0.5,0.5", "ks", "prec@k:5", "rmax", "max_height", "pnorm:4")}
    assert forms == {"auc": "roc", "pauc:0.1": "roc", "tpauc:0.5,0.5": "roc", "ks": "roc", "prec@k:5": "thresholds",
                     "rmax": "thresholds", "max_height": "thresholds", "pnorm:4": None}


# --------------------------------------------------------------------------
# On a real cluster
# --------------------------------------------------------------------------

@pytest.fixture
def toy_plugin(dask_client):
    """The toy plugin registered in this process and on every worker, as an installed plugin would be."""
    from _dask_cluster import register_everywhere, unregister_everywhere

    register_everywhere(dask_client, "_toy_plugins", "Plugin", "toy-plugin")
    yield dask_client
    unregister_everywhere(dask_client, "toy-plugin")


def _dask(X, y, w=None):
    da = pytest.importorskip("dask.array")

    return (da.from_array(X, chunks=(CHUNKS, -1)), da.from_array(y, chunks=(CHUNKS,)),
            None if w is None else da.from_array(w, chunks=(CHUNKS,)))


@pytest.mark.parametrize("params, path", [(dict(loss="exp", price="pow:4"), "separable"),
                                          (dict(loss="hinge", price="pow:2"), "pairwise")], ids=["exp", "hinge"])
def test_dask_toy_learner_plugin_equals_its_in_memory_fit(toy_plugin, params, path):
    from rankcore.dask import DaskPushBoost

    X, y = _data(seed=8)
    Xd, yd, _ = _dask(X, y)
    n_iter = 5 if path == "pairwise" else 10
    model = DaskPushBoost(placement="distributed", learner="toy-thirds", n_iter=n_iter, **params).fit(Xd, yd)
    local = rankcore.PushBoost(learner="toy-thirds", n_iter=n_iter, **params).fit(X, y)
    assert model.fit_info_["path"] == path
    assert model.rankers_ == local.rankers_ and len(set(model.rankers_)) > 1
    np.testing.assert_allclose(model.alphas_, local.alphas_, rtol=1e-9)
    np.testing.assert_allclose(model.decision_function(Xd).compute(), local.decision_function(X),
                               rtol=1e-12, atol=1e-12)


def test_dask_toy_learner_with_weights_equals_in_memory(toy_plugin):
    from rankcore.dask import DaskPushBoost

    X, y = _data(seed=9)
    w = _weights(X.shape[0], 10)
    Xd, yd, wd = _dask(X, y, w)
    model = DaskPushBoost(placement="distributed", learner="toy-thirds", n_iter=8).fit(Xd, yd, sample_weight=wd)
    local = rankcore.PushBoost(learner="toy-thirds", n_iter=8).fit(X, y, sample_weight=w)
    assert model.rankers_ == local.rankers_
    np.testing.assert_allclose(model.alphas_, local.alphas_, rtol=1e-9)


def test_dask_toy_metric_through_evaluate_and_score(toy_plugin):
    import dask.array as da

    from rankcore.dask import DaskPushBoost, evaluate

    X, y = _data(seed=11)
    rng = np.random.default_rng(12)
    s = rng.normal(size=y.shape[0]) + y
    got = evaluate(da.from_array(y, chunks=(CHUNKS,)), da.from_array(s, chunks=(CHUNKS,)), ["toy-gap", "auc"],
                   tol=0.0)
    want = rankcore.evaluate(y, s, ["toy-gap", "auc"])
    assert got["toy-gap"] == pytest.approx(want["toy-gap"], rel=1e-12)
    assert got.exact["toy-gap"] and got["auc"] == pytest.approx(want["auc"], rel=1e-12)
    Xd, yd, _ = _dask(X, y)
    model = DaskPushBoost(placement="distributed", n_iter=4, scoring="toy-gap").fit(Xd, yd)
    assert model.score(Xd, yd) == pytest.approx(model.to_local().score(X, y), rel=1e-12)


def test_dask_metric_without_a_distributed_form_is_refused_naming_the_declared_ones(dask_client):
    import dask.array as da

    from rankcore.dask import evaluate

    y, s = np.array([0, 1, 0, 1]), np.array([0.1, 0.4, 0.35, 0.8])
    with pytest.raises(ValueError, match=r"'pnorm:4' is not available on distributed scores.*auc, ks, max_height"):
        evaluate(da.from_array(y, chunks=2), da.from_array(s, chunks=2), ["pnorm:4"])


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_dask_row_source_answers_as_in_memory(dask_client, weighted):
    from rankcore.dask._inputs import as_row_chunks
    from rankcore.dask._prepare import DaskRows, summarize
    from rankcore.learners._rows import count_above_block

    X, y = _data(seed=13)
    w = _weights(X.shape[0], 14) if weighted else None
    Xd, _, wd = _dask(X, y, w)
    data = as_row_chunks(Xd, None, wd)
    rows = DaskRows(dask_client, data, summarize(dask_client, data, task=None))
    local = InMemoryRows(X, w)
    assert (rows.n_rows, rows.n_live, rows.n_features, rows.weighted) == \
        (local.n_rows, local.n_live, local.n_features, local.weighted)
    for a, b in zip(rows.ranges(), local.ranges()):
        np.testing.assert_array_equal(a, b)
    for got, want in zip(rows.sample(150, 5), local.sample(150, 5)):
        np.testing.assert_array_equal(got, want)
    for got, want in zip(rows.quantiles(6), local.quantiles(6)):
        np.testing.assert_array_equal(got, want)
    cuts = [np.linspace(-1, 1, 5)] * X.shape[1]
    for got, want in zip(rows.count_above(cuts), count_above_block(X, w, cuts)):
        np.testing.assert_array_equal(got, want)
    gathered = rows.gather()
    np.testing.assert_array_equal(gathered[0], X)
    assert (gathered[1] is None) == (w is None)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_the_sample_drawn_with_the_summary_is_the_in_memory_sample(dask_client, weighted):
    """``summarize(sample=...)``: unweighted, the sample comes with the summary pass; the same rows either way."""
    from rankcore.dask import _prepare
    from rankcore.dask._inputs import as_row_chunks
    from rankcore.dask._prepare import DaskRows, summarize

    X, y = _data(seed=21)
    X = X.astype(np.float32)
    w = _weights(X.shape[0], 22) if weighted else None
    Xd, _, wd = _dask(X, y, w)
    data = as_row_chunks(Xd, None, wd)
    summary = summarize(dask_client, data, task=None, sample=(150, 5))
    assert ("sample" in summary.extra) == (not weighted)        # weighted: the live rows are not known before
    rows = DaskRows(dask_client, data, summary)
    passes = []
    real = _prepare.sample

    def counted(*args):
        passes.append(args[-2:])
        return real(*args)

    _prepare.sample, saved = counted, _prepare.sample
    try:
        for request in [(150, 5), (150, 6), (40, 5), (150, None)]:
            got, want = rows.sample(*request), InMemoryRows(X, w).sample(*request)
            assert got[0].dtype == np.float32 and got[0].shape == want[0].shape
            for a, b in zip(got, want):
                if request[1] is not None:          # random_state=None: a fresh draw each time
                    np.testing.assert_array_equal(a, b)
    finally:
        _prepare.sample = saved
    # only the prefetched request is served without a pass of its own
    assert passes == ([(150, 6), (40, 5), (150, None)] if not weighted else
                      [(150, 5), (150, 6), (40, 5), (150, None)])


class _RecordingRows(InMemoryRows):
    def __init__(self, X):
        super().__init__(X)
        self.requests = []

    def sample(self, subsample, random_state=None):
        self.requests.append(subsample)
        return super().sample(subsample, random_state)


@pytest.mark.parametrize("spec", ["trees", "trees:bin_subsample=300", "stumps", "stumps:subsample=50", "thresholds"])
def test_a_learner_declares_the_sample_its_distributed_preparation_draws_first(spec):
    from rankcore.registry import resolve

    learner = resolve("learner", spec)
    X, _ = _data(seed=3)
    rows = _RecordingRows(X)
    learner.prepare_distributed(rows, random_state=0)
    declared = learner.distributed_sample()
    assert declared == (rows.requests[0] if rows.requests else None)
    if learner.uses_thresholds:
        assert learner.distributed_sample(thresholds=[np.zeros(1)] * X.shape[1]) is None
