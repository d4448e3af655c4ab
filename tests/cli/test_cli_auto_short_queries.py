"""``rankcore auto --qid ... --metric ndcg@k:10`` on queries of 2 to 5 rows and one of 12: the folds without the long
query read their queries whole (as the default does), and only a k that no query of a file reaches is refused."""

import csv

import numpy as np
import pytest

import rankcore
from _cli_run import run_main
from _query_data import short_queries
from rankcore.auto import AutoRanker

CANDIDATES = "trees:n_iter=8,min_samples_leaf=3,stumps:n_iter=8"
ARGS = ("--qid", "query", "--label", "grade", "--candidates", CANDIDATES, "--progress", "none")
BASE = (*ARGS, "--cv", "3")


def _write(path, X, y, qid):
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["query", "grade"] + [f"x{j}" for j in range(X.shape[1])])
        for q, g, row in zip(qid, y, X):
            writer.writerow([f"q{q}", int(g), *map(repr, row.tolist())])


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("auto_short_queries")
    _write(d / "train.csv", *short_queries(0, 60, 12))
    _write(d / "short.csv", *short_queries(1, 20, 0))
    _write(d / "long.csv", *short_queries(2, 20, 11))
    return d


def _refused(status, err, *fragments):
    """A usage error after the data summary: exit status 2, the last line ``rankcore: error: ...`` with each
    fragment."""
    assert status == 2, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("rankcore: error: "), err
    for fragment in fragments:
        assert fragment in last, (fragment, last)


def test_the_named_metric_chooses_as_the_default_does(files, tmp_path):
    status, out, err = run_main("auto", files / "train.csv", *BASE, "--metric", "ndcg@k:10", "-o", tmp_path / "n.json")
    assert status == 0, err
    assert "choosing by ndcg@k:10" in err and "over 3 folds of 3-fold cross-validation over whole queries" in err
    named = rankcore.load_model(tmp_path / "n.json")
    status, _, err = run_main("auto", files / "train.csv", *BASE, "-o", tmp_path / "d.json")
    assert status == 0, err
    default = rankcore.load_model(tmp_path / "d.json")
    assert named.metric_ == default.metric_ == "ndcg@k:10"
    assert [r.fold_scores for r in named.leaderboard_.rows] == [r.fold_scores for r in default.leaderboard_.rows]
    assert named.best_candidate_ == default.best_candidate_


def test_the_command_line_fits_what_the_library_fits(files, tmp_path):
    status, _, err = run_main("auto", files / "train.csv", *BASE, "--metric", "map@k:10", "-o", tmp_path / "m.json")
    assert status == 0, err
    X, y, qid = short_queries(0, 60, 12)
    expected = AutoRanker(metric="map@k:10", cv=3, candidates=CANDIDATES.replace(",stumps", ";stumps").split(";"),
                          random_state=0).fit(X, y, qid=np.array([f"q{q}" for q in qid]))
    model = rankcore.load_model(tmp_path / "m.json")
    assert model.best_score_ == expected.best_score_
    assert [r.fold_scores for r in model.leaderboard_.rows] == [r.fold_scores for r in expected.leaderboard_.rows]


def test_a_k_beyond_every_query_of_the_file_is_refused(files, tmp_path):
    status, _, err = run_main("auto", files / "train.csv", *BASE, "--metric", "ndcg@k:13", "-o", tmp_path / "x.json")
    _refused(status, err, "k = 13 is larger than every query",
                   "the largest has 12 rows", "choose k <= 12")
    assert not (tmp_path / "x.json").exists()


def test_a_validation_file_is_judged_on_its_own(files, tmp_path):
    status, _, err = run_main("auto", files / "train.csv", *ARGS, "--metric", "ndcg@k:10", "--validation",
                              files / "short.csv", "-o", tmp_path / "s.json")
    _refused(status, err, "--validation", "short.csv",
                   "--metric ndcg@k:10: k = 10 is larger than every query of the file (the largest has 5 rows)")
    status, _, err = run_main("auto", files / "train.csv", *ARGS, "--metric", "ndcg@k:10", "--validation",
                              files / "long.csv", "--eval-metric", "prec@k:10", "-o", tmp_path / "l.json")
    assert status == 0, err
    model = rankcore.load_model(tmp_path / "l.json")
    assert set(model.evals_result_["validation"]) == {"ndcg@k:10", "prec@k:10"}
