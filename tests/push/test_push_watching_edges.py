"""Watching a fit, at its edges: a stream that cannot write a line, and a continuation's callbacks copied."""

import copy
import io
import pickle

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
