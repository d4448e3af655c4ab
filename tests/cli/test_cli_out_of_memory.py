"""A command that runs out of memory (a container's limit, ``ulimit -v``) says so in one line, as an input error
(exit 2, like a full disk), never as an internal error asking for a bug report."""

import numpy as np
import pytest

from _cli_run import run_main


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(40, 2)), 2)
    y = (X[:, 0] + rng.normal(size=40) > 0).astype(int)
    path = tmp_path / "d.csv"
    path.write_text("a,b,label\n" + "".join(f"{a},{b},{c}\n" for (a, b), c in zip(X, y)))
    return path


@pytest.mark.parametrize("message, shown", [
    ("Unable to allocate 14.9 GiB for an array with shape (100000, 20000) and data type float64",
     "out of memory: Unable to allocate 14.9 GiB for an array with shape (100000, 20000)"),
    ("", "out of memory; use fewer rows"),
], ids=["numpy", "bare"])
def test_out_of_memory_is_one_line_and_exit_2(data, tmp_path, monkeypatch, message, shown):
    from rankcore.push import PushBoost

    def fit(self, *args, **kwargs):
        raise MemoryError(message) if message else MemoryError()

    monkeypatch.setattr(PushBoost, "fit", fit)
    code, _, err = run_main("fit", str(data), "--n-iter", "3", "-o", str(tmp_path / "m.json"), "-q")
    assert code == 2, err
    assert err.startswith("rankcore: error: ") and shown in err and "internal error" not in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "m.json").exists()


def test_out_of_memory_with_debug_shows_the_traceback(data, tmp_path, monkeypatch):
    from rankcore.push import PushBoost

    def fit(self, *args, **kwargs):
        raise MemoryError("Unable to allocate 1 TiB")

    monkeypatch.setattr(PushBoost, "fit", fit)
    with pytest.raises(MemoryError):
        run_main("--debug", "fit", str(data), "--n-iter", "3", "-o", str(tmp_path / "m.json"), "-q")
