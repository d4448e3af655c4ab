"""Every option that takes a metric spec names itself, with the spec, when the registry cannot read it -- as
``--eval-metric 'nope': unknown metric 'nope'; ...`` always did.  Before, ``fit --monitor nope``, ``compare
--monitor nope`` and ``compare --metrics auc,nope`` said the registry's words alone, naming no option."""

import numpy as np
import pytest

from _cli_run import one_line_error, run_main


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """100 rows of three features and a 0/1 label."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 3))
    y = (X[:, 0] > 0).astype(int)
    path = tmp_path_factory.mktemp("metric_options") / "d.csv"
    lines = ["a,b,c,label"] + [",".join(map(repr, row)) + f",{label}" for row, label in zip(X.tolist(), y.tolist())]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("argv, says", [
    (("fit", "{data}", "-o", "{out}", "--monitor", "nope"), "--monitor 'nope': unknown metric 'nope'; registered "),
    (("compare", "{data}", "--no-plots", "--monitor", "nope"), "--monitor 'nope': unknown metric 'nope'; "),
    (("compare", "{data}", "--no-plots", "--metrics", "auc,nope"), "--metrics 'nope': unknown metric 'nope'; "),
    (("compare", "{data}", "--no-plots", "--monitor", "prec@k:x"), "--monitor 'prec@k:x': metric 'prec@k': k must "),
    (("auto", "{data}", "-o", "{out}", "--metric", "nope"), "--metric 'nope': unknown metric 'nope'; "),
])
def test_an_unreadable_metric_spec_names_its_option(data, tmp_path, argv, says):
    argv = [a.format(data=data, out=tmp_path / "m.json") for a in argv]
    status, _, err = run_main(*argv)
    one_line_error(status, err, f"rankcore: error: {says}")


def test_a_metric_that_is_not_a_number_is_still_said_as_before(data, tmp_path):
    status, _, err = run_main("fit", data, "-o", tmp_path / "m.json", "--monitor", "roc")
    one_line_error(status, err, "rankcore: error: --monitor: 'roc' is not a scalar metric")
