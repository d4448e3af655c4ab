"""``rankcore evaluate --qid``: a day without an incident is counted by prec@k and left out by auc/ndcg/map/mrr;
the command says so instead of printing means over different days side by side without a word."""

import csv
import json

import numpy as np
import pytest

import rankcore
from _cli_run import run_main


@pytest.fixture(scope="module")
def days(tmp_path_factory):
    d = tmp_path_factory.mktemp("days")
    rng = np.random.default_rng(2)
    day = np.repeat(np.arange(6), 30)
    x = rng.normal(size=day.size)
    y = (x + rng.normal(size=day.size) > 1.6).astype(int)
    y[day == 2] = 0                                     # a day without any incident
    y[(day != 2) & (np.arange(day.size) % 30 == 0)] = 1  # every other day has one at least
    with open(d / "alerts.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["day", "x", "z", "label"])
        for row in zip(day, x, rng.normal(size=day.size), y):
            writer.writerow([int(row[0]), repr(float(row[1])), repr(float(row[2])), int(row[3])])
    status, _, err = run_main("fit", d / "alerts.csv", "--drop", "day", "--n-iter", "5", "-o", d / "m.json", "-q")
    assert status == 0, err
    return d, day, y


@pytest.mark.parametrize("ci", [[], ["--ci", "0.9", "--n-boot", "200"]])
def test_evaluate_says_which_metrics_leave_out_days(days, ci):
    d, day, y = days
    status, out, err = run_main("evaluate", d / "m.json", d / "alerts.csv", "--qid", "day", "--metrics",
                                "prec@k:5,auc,map", "--table-format", "json", *ci)
    assert status == 0, err
    assert [row["metric"] for row in json.loads(out)] == ["prec@k:5", "auc", "map"]   # stdout stays the table
    assert "auc, map are means over 5 of the 6 queries" in err, err
    assert "prec@k:5" not in err                                      # it counts the empty day (as 0)


def test_evaluate_is_silent_when_every_metric_counts_every_query(days):
    d, *_ = days
    status, out, err = run_main("evaluate", d / "m.json", d / "alerts.csv", "--qid", "day", "--metrics", "prec@k:5")
    assert status == 0, err
    assert err == ""
    # the library agrees on what is counted: prec@k counts the empty day, auc leaves it out
    _, day, y = days
    scores = np.arange(day.size, dtype=float)
    assert rankcore.metrics.per_query(y, scores, "prec@k:5", qid=day).n_left_out == 0
    assert rankcore.metrics.per_query(y, scores, "auc", qid=day).n_left_out == 1
