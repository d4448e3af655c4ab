"""The objective figure's advice is judged on the held-out metric, not on the training objective."""

import contextlib
import io

import numpy as np
import pytest

from rankcore.cli import main
from rankcore.cli._advice import iterations_verdict


@pytest.mark.parametrize("values, says", [
    (np.r_[np.linspace(0.90, 0.95, 80), np.linspace(0.95, 0.97, 20)], "still improved in the last 20 of 100"),
    (np.r_[np.linspace(0.90, 0.97, 30), np.full(70, 0.97) + 1e-5 * np.sin(np.arange(70))], "gained less than"),
    (np.r_[0.98, np.linspace(0.97, 0.95, 99)], "fell from its best, 0.98 at iteration 1"),
])
def test_verdict_reads_the_last_fifth(values, says):
    assert says in iterations_verdict(values, greater_is_better=True, what="test auc")


def test_verdict_follows_the_metric_direction():
    falling = np.linspace(20, 10, 50)                                    # a lower-is-better metric improving
    assert "still improved" in iterations_verdict(falling, greater_is_better=False, what="test max_height")
    assert "still improved" not in iterations_verdict(falling, greater_is_better=True, what="test x")


def test_demo_advice_judges_iterations_on_test_auc_when_training_is_perfect(tmp_path, monkeypatch):
    """All 30 features: the training ranking is perfect early and the objective keeps falling; the advice
    must say whether the *test* AUC still moves, not ask for more iterations because the objective falls."""
    monkeypatch.chdir(tmp_path)
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        assert main(["demo", "--all-features", "--n-iter", "100", "--out-dir", "figures"]) == 0
    lines = err.getvalue().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("wrote figures/objective.svg"))
    assert "judge the number of iterations by the test auc" in lines[start]
    verdicts = lines[start + 1:start + 5]
    assert [v.split(": test auc")[0].strip() for v in verdicts] == ["push identity", "push pow:4", "push pow:16",
                                                           "push pow:64"]
    assert all("test auc" in v and ("would not help" in v or "may help" in v) for v in verdicts)
    assert "asks for more iterations" not in err.getvalue()
