"""Watching a push fit as a LightGBM user does: the verbose table, callbacks that fail, continuations, and at its
edges: a stream that cannot write a line, a continuation's callbacks copied."""

import copy
import io
import pickle
import re

import numpy as np
import pytest

import rankcore
from rankcore._callbacks import CountedCallbacks
from rankcore.push._progress import say

STUMPS = dict(learner="stumps", random_state=0, n_jobs=1)


def _data(seed=0, n=200):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    return X, (X[:, 0] + rng.normal(size=n) > 0.3).astype(int)


def test_a_failing_callback_is_named_and_its_error_kept():
    X, y = _data()

    def watcher(info):
        if info.iteration == 3:
            raise KeyError("lost the log file")

    with pytest.raises(KeyError, match="lost the log file") as caught:
        rankcore.boost(n_iter=6, **STUMPS).fit(X, y, callbacks=[lambda info: None, watcher])
    assert caught.value.__notes__ == ["raised by callbacks[1] (test_a_failing_callback_is_named_and_its_error_kept."
                                      "<locals>.watcher) after iteration 3; the fit was abandoned"]


@pytest.mark.parametrize("make", [lambda: rankcore.ExactBoost(n_runs=2, n_rounds=6, random_state=0),
                                  lambda: rankcore.SGDAtK(n_epochs=6, random_state=0)], ids=["exactboost", "sgd"])
def test_every_iterative_estimator_names_a_failing_callback(make):
    X, y = _data(1)

    class Budget:
        def __call__(self, info):
            if info.iteration == 2:
                raise RuntimeError("over budget")

    with pytest.raises(RuntimeError, match="over budget") as caught:
        make().fit(X, y, callbacks=Budget())
    assert caught.value.__notes__ == ["raised by callbacks[0] (test_every_iterative_estimator_names_a_failing_"
                                      "callback.<locals>.Budget) after iteration 2; the fit was abandoned"]


def test_a_continuations_callback_failure_counts_from_the_init_models_first():
    X, y = _data(2)
    first = rankcore.boost(n_iter=3, **STUMPS).fit(X, y)

    def fails(info):
        if info.iteration == 5:
            raise ValueError("stop here")

    with pytest.raises(ValueError, match="stop here") as caught:
        rankcore.boost(n_iter=4, **STUMPS).fit(X, y, init_model=first, callbacks=fails)
    assert "(test_a_continuations_callback_failure_counts_from_the_init_models_first.<locals>.fails) after " \
           "iteration 5;" in caught.value.__notes__[0]


def test_a_continuations_verbose_lines_count_as_its_callbacks_and_best_iteration(capsys):
    X, y = _data(3)
    first = rankcore.boost(n_iter=3, **STUMPS).fit(X, y)
    seen = []
    more = rankcore.boost(n_iter=4, verbose=2, **STUMPS).fit(X, y, init_model=first, eval_set=(X[:60], y[:60]),
                                                             callbacks=lambda info: seen.append(info.iteration))
    lines = capsys.readouterr().out.splitlines()
    shown = [int(line.split()[0]) for line in lines[1:-1]]
    assert shown == seen == [4, 5, 6, 7]
    assert more.best_iteration_ in shown
    assert re.match(r"stopped \(n_iter\) with 7 weak rankers \(3 of the init model\) in ", lines[-1])
    # a fit without an init model is numbered from 1, as before
    rankcore.boost(n_iter=2, verbose=2, **STUMPS).fit(X, y)
    lines = capsys.readouterr().out.splitlines()
    assert [int(line.split()[0]) for line in lines[1:-1]] == [1, 2]
    assert lines[-1].startswith("stopped (n_iter) with 2 weak rankers in ")


def test_the_verbose_table_shows_every_eval_set_as_lightgbm_logs_them(capsys):
    X, y = _data(4)
    Xa, ya = _data(5, n=80)
    model = rankcore.boost(n_iter=3, verbose=2, **STUMPS).fit(X, y, eval_set=[(X, y), (Xa, ya)],
                                                              eval_names=["train", "valid"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["iter", "objective", "alpha", "train", "auc", "valid", "auc", "elapsed"]
    shown = np.array([[float(v) for v in line.split()[3:5]] for line in lines[1:4]])
    np.testing.assert_allclose(shown[:, 0], model.evals_result_["train"]["auc"], atol=5e-7)
    np.testing.assert_allclose(shown[:, 1], model.evals_result_["valid"]["auc"], atol=5e-7)


def test_a_long_metric_spec_is_shown_whole_not_cut_into_another(capsys):
    X, y = _data(6)
    model = rankcore.boost(n_iter=2, verbose=2, scoring="prec@k:0.35", **STUMPS).fit(X, y, eval_set=(X, y))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[3:5] == ["val", "prec@k:0.35"]         # was "prec@k:0.3", another metric
    assert float(lines[2].split()[3]) == pytest.approx(model.validation_scores_[-1], abs=5e-7)


def test_the_last_line_says_where_early_stopping_stopped_and_what_it_kept(capsys):
    X, y = _data(7, n=400)
    Xa, ya = _data(8, n=150)
    seen = []
    model = rankcore.boost(n_iter=200, early_stopping=True, n_iter_no_change=3, verbose=1, **STUMPS).fit(
        X, y, eval_set=(Xa, ya), callbacks=lambda info: seen.append(info.iteration))
    assert model.stop_reason_ == "early_stopping" and model.n_iter_ == model.best_iteration_ < len(seen)
    last = capsys.readouterr().out.splitlines()[-1]
    assert re.fullmatch(rf"stopped \(early_stopping\) after iteration {len(seen)} in \d+\.\d\ds, keeping the best "
                        rf"{model.best_iteration_} weak rankers", last)


class _ClosedPipe:
    """stdout of ``python fit.py | head`` once head has exited: every write fails."""

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_stdout_does_not_end_a_verbose_fit(monkeypatch):
    X, y = _data(9)
    quiet = rankcore.boost(n_iter=5, **STUMPS).fit(X, y)
    monkeypatch.setattr("sys.stdout", _ClosedPipe())
    loud = rankcore.boost(n_iter=5, verbose=2, **STUMPS).fit(X, y, eval_set=(X, y))
    np.testing.assert_array_equal(loud.decision_function(X), quiet.decision_function(X))


def test_the_refit_after_cross_validation_says_what_early_stopping_chose(capsys):
    X, y = _data(10, n=300)
    model = rankcore.boost(n_iter=40, early_stopping=True, verbose=2, **STUMPS).fit(X, y)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (f"early stopping chose {model.best_iteration_} of 40 iterations (5-fold cross-validation, "
                        f"auc); the refit on every row:")
    assert len(lines) == 1 + 1 + model.n_iter_ + 1          # the line, the header, an iteration each, the last


def test_best_score_is_every_sets_score_at_best_iteration_as_lightgbms():
    X, y = _data(11, n=300)
    Xa, ya = _data(12, n=120)
    model = rankcore.boost(n_iter=60, early_stopping=True, n_iter_no_change=4, **STUMPS).fit(
        X, y, eval_set=[(X, y), (Xa, ya)], eval_names=["train", "valid"], eval_metric=["prec@k:10"])
    assert model.best_score_ == {name: {metric: curve[model.best_iteration_ - 1] for metric, curve in sets.items()}
                                 for name, sets in model.evals_result_.items()}
    assert model.best_score_["valid"]["auc"] == model.validation_scores_.max() == model.validation_scores_[-1]
    # without early stopping: the best iteration's scores, not the last one's
    whole = rankcore.boost(n_iter=30, early_stopping=False, **STUMPS).fit(X, y, eval_set=(Xa, ya))
    assert whole.best_score_["validation_0"]["auc"] == whole.validation_scores_[whole.best_iteration_ - 1]
    # a continuation's curves start after its init model's iterations, best_iteration_ counts them
    first = rankcore.boost(n_iter=2, **STUMPS).fit(X, y)
    more = rankcore.boost(n_iter=8, **STUMPS).fit(X, y, eval_set=(Xa, ya), init_model=first)
    assert more.best_iteration_ > more.init_iterations_ == 2
    assert more.best_score_["validation_0"]["auc"] == \
        more.evals_result_["validation_0"]["auc"][more.best_iteration_ - more.init_iterations_ - 1]
    with pytest.raises(AttributeError, match=r"^PushBoost has no best_score_: it is recorded by a fit given eval_set"):
        rankcore.boost(n_iter=3, **STUMPS).fit(X, y).best_score_


def _ascii_stream():
    return io.TextIOWrapper(io.BytesIO(), encoding="ascii", write_through=True)


def _written(stream) -> str:
    return stream.buffer.getvalue().decode("ascii")


def test_a_set_name_the_stream_cannot_encode_keeps_the_table_header(monkeypatch):
    # the header holds the eval_names: on an ASCII stdout it was dropped whole, silently, as if the pipe had closed
    out = _ascii_stream()
    monkeypatch.setattr("sys.stdout", out)
    X, y = _data()
    rankcore.boost(n_iter=3, verbose=2, **STUMPS).fit(X, y, eval_set=[(X, y), (X, y)],
                                                      eval_names=["validación", "train"])
    lines = _written(out).splitlines()
    assert lines[0].split()[:4] == ["iter", "objective", "alpha", "validaci\\xf3n"]
    assert len(lines) == 5                                  # the header, three iterations, the last line


def test_say_drops_a_line_only_when_the_stream_is_gone():
    closed = io.StringIO()
    closed.close()
    say("dropped", closed)                                  # a closed stream: the fit goes on

    class Full(io.StringIO):
        def write(self, text):
            raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):     # a real failure is not hidden
        say("lost", Full())

    class Broken(io.StringIO):
        def write(self, text):
            raise ValueError("not a closed file")

    with pytest.raises(ValueError, match="not a closed file"):
        say("lost", Broken())


@pytest.mark.parametrize("copier", [copy.copy, copy.deepcopy, lambda c: pickle.loads(pickle.dumps(c))],
                         ids=["copy", "deepcopy", "pickle"])
def test_a_continuations_callbacks_copy_with_their_count(copier):
    counted = CountedCallbacks((len, abs), 7)
    again = copier(counted)
    assert type(again) is CountedCallbacks and again.first == 7 and tuple(again) == (len, abs)


def test_a_verbose_line_is_one_write_so_threads_do_not_cut_into_it(monkeypatch):
    # print wrote the text, then the newline: two fits printing in two threads could interleave mid-line
    writes = []

    class Recorder(io.StringIO):
        def write(self, text):
            writes.append(text)
            return len(text)

    monkeypatch.setattr("sys.stdout", Recorder())
    X, y = _data()
    rankcore.boost(n_iter=3, verbose=2, **STUMPS).fit(X, y, eval_set=(X, y))
    assert len(writes) == 5 and all(w.endswith("\n") and w.count("\n") == 1 for w in writes)


def test_the_verbose_table_of_a_refit_after_early_stopping_ends_as_stop_reason_says(capsys):
    # early_stopping=True without eval_set: the refit runs the chosen count; its last line said "stopped (n_iter)"
    # while stop_reason_ was "early_stopping"
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 4))
    y = (X[:, 0] + 2 * rng.normal(size=600) > 0).astype(int)
    model = rankcore.boost(n_iter=100, early_stopping=True, verbose=1, **STUMPS).fit(X, y)
    assert model.stop_reason_ == "early_stopping" and model.n_iter_ < 100
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith(f"stopped (early_stopping) with {model.n_iter_} weak rankers in "), last


def test_best_score_of_a_continuation_no_iteration_bettered_is_its_init_models_score(tmp_path):
    # before: an AttributeError, though the fit scored the eval_set from the init model's scores before iterating
    from sklearn.metrics import roc_auc_score

    X, y = _data(3)
    first = rankcore.boost(n_iter=30, **STUMPS).fit(X, y)
    # fitted on the labels reversed: every new iteration worsens the eval_set's AUC, the init model's stays best
    more = rankcore.boost(n_iter=5, **STUMPS).fit(X, 1 - y, init_model=first, eval_set=(X[:60], y[:60]),
                                                  eval_metric=["ndcg@k:5"])
    assert more.best_iteration_ == more.init_iterations_ == 30
    start = first.decision_function(X[:60])
    assert y[:60][np.argsort(-start)[:5]].all()        # the init model's top 5 are all relevant: NDCG@5 = 1
    assert more.best_score_["validation_0"]["ndcg@k:5"] == 1.0
    assert more.best_score_["validation_0"]["auc"] == pytest.approx(roc_auc_score(y[:60], start), abs=1e-12)
    assert list(more.best_score_["validation_0"]) == ["auc", "ndcg@k:5"]
    rankcore.save_model(more, tmp_path / "m.json")
    assert rankcore.load_model(tmp_path / "m.json").best_score_ == more.best_score_
    # a file of an earlier rankcore (no start's scores): said, not a KeyError or a wrong score
    del more.evals_start_
    with pytest.raises(AttributeError, match=r"does not hold the scores of its start \(evals_start_"):
        more.best_score_


@pytest.mark.parametrize("make", [lambda: rankcore.boost(verbose=-1, **STUMPS),
                                  lambda: rankcore.AutoRanker(verbose=-1)])
def test_lightgbms_silent_verbose_is_refused_saying_which_value_is_silent_here(make):
    # before: "verbose: expected an integer >= 0, got -1", which left a LightGBM user to guess the silent value
    X, y = _data()
    with pytest.raises(ValueError, match=r"^verbose: expected an integer >= 0 \(0 is silent here, as LightGBM's "
                                         r"verbose=-1\), got -1$"):
        make().fit(X, y)
