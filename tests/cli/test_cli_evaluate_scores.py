"""``rankcore evaluate DATA --scores COLUMN[,COLUMN...]``: columns of scores a file already holds (another system's
run), judged without a model, checked against hand-computed values and the library; two columns are compared."""

import json
import math

import numpy as np
import pytest

import rankcore
from rankcore.metrics import compare, confidence_interval

from _cli_run import one_line_error, run_main

# two queries, not sorted, not contiguous; a column of document ids (text) that is no feature of anything
RUN = """qid,doc,label,bm25,neural
q2,d1,2,1.0,0.3
q1,a,1,0.5,0.9
q1,b,0,0.7,0.1
q2,d2,0,2.0,0.8
q1,c,0,0.2,0.2
q2,d3,1,0.5,0.9
"""


def _log(n):
    return 1 / math.log2(n + 1)


# by hand: bm25 puts b (0) then a (1) first in q1, and d2 (0), d1 (2), d3 (1) in q2; neural puts a, and d3, d2, d1
EXPECTED = {
    "bm25": {"map": (1 / 2 + (1 / 2 + 2 / 3) / 2) / 2, "mrr": 0.5,
             "ndcg@3": (_log(2) + (3 * _log(2) + _log(3)) / (3 + _log(2))) / 2},
    "neural": {"map": (1 + (1 + 2 / 3) / 2) / 2, "mrr": 1.0,
               "ndcg@3": (1 + (1 + 3 * _log(3)) / (3 + _log(2))) / 2},
}


@pytest.fixture
def run_csv(tmp_path):
    path = tmp_path / "run.csv"
    path.write_text(RUN)
    return path


def _table(out):
    return json.loads(out)


def test_one_column_matches_the_hand_computed_values(run_csv):
    status, out, err = run_main("evaluate", run_csv, "--scores", "neural", "--qid", "qid",
                                "--metrics", "ndcg@3,map,mrr", "--table-format", "json")
    assert status == 0, err
    got = {row["metric"]: row["value"] for row in _table(out)}
    assert got == pytest.approx(EXPECTED["neural"], abs=1e-12)


def test_two_columns_give_each_value_and_the_paired_difference(run_csv):
    # two queries: each value and the difference of the means, but no interval or p-value (a paired test over so
    # few queries gave p = 0), said in a warning
    status, out, err = run_main("evaluate", run_csv, "--scores", "bm25,neural", "--qid", "qid",
                                "--metrics", "ndcg@3,map,mrr", "--table-format", "json", "--n-boot", "500")
    assert status == 0, err
    assert "no interval or p-value" in err and "at least 6 queries" in err
    found = _table(out)
    values = {(row["scores"], row["metric"]): row["value"] for row in found["metrics"]}
    for name, expected in EXPECTED.items():
        for spec, value in expected.items():
            assert values[name, spec] == pytest.approx(value, abs=1e-12)
    for row in found["differences"]:
        assert (row["scores"], row["against"]) == ("neural", "bm25")
        assert row["delta"] == pytest.approx(EXPECTED["neural"][row["metric"]] - EXPECTED["bm25"][row["metric"]])
        assert [row["lower"], row["upper"], row["p"]] == [None, None, None]


def test_two_columns_over_enough_queries_give_the_library_comparison(tmp_path):
    rng = np.random.default_rng(1)
    qid = np.repeat(np.arange(8), 5)
    y = rng.integers(0, 3, qid.size)
    a, b = (y + rng.normal(size=qid.size)).round(3), rng.normal(size=qid.size).round(3)
    path = tmp_path / "eight.csv"
    path.write_text("qid,label,a,b\n" + "".join(f"{q},{g},{float(u)!r},{float(v)!r}\n"
                                                for q, g, u, v in zip(qid, y, a, b)))
    status, out, err = run_main("evaluate", path, "--scores", "a,b", "--qid", "qid", "--metrics", "ndcg@3",
                                "--table-format", "json", "--n-boot", "300")
    assert status == 0, err
    (row,) = _table(out)["differences"]
    d = compare(y, b, a, "ndcg@3", qid=qid, n_boot=300, random_state=0)
    assert [row["delta"], row["lower"], row["upper"], row["p"]] == pytest.approx(
        [d.difference, d.lower, d.upper, d.p_value])


def test_ci_is_the_library_interval_over_queries(tmp_path):
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(30), 6)
    y = rng.integers(0, 3, qid.size)
    s = (y + rng.normal(size=qid.size)).round(3)
    path = tmp_path / "many.csv"
    path.write_text("query,grade,system\n" + "".join(f"{q},{g},{float(v)!r}\n" for q, g, v in zip(qid, y, s)))
    status, out, err = run_main("evaluate", path, "--scores", "system", "--qid", "query", "--label", "grade",
                                "--metrics", "ndcg@5", "--ci", "0.9", "--n-boot", "300", "--table-format", "json")
    assert status == 0, err
    (row,) = _table(out)
    ci = confidence_interval(y, s, "ndcg@5", qid=qid, level=0.9, n_boot=300, random_state=0)
    assert [row["value"], row["lower"], row["upper"]] == pytest.approx([ci.estimate, ci.lower, ci.upper])


def test_without_query_ids_the_rows_are_one_list(run_csv):
    status, out, err = run_main("evaluate", run_csv, "--scores", "bm25", "--positive", "2", "--metrics", "auc",
                                "--table-format", "json")
    assert status == 0, err
    y = np.array([1, 0, 0, 0, 0, 0])
    assert _table(out)[0]["value"] == pytest.approx(rankcore.evaluate(y, [1.0, 0.5, 0.7, 2.0, 0.2, 0.5], "auc")["auc"])


def test_text_output_titles_the_differences(run_csv):
    status, out, err = run_main("evaluate", run_csv, "--scores", "bm25,neural", "--qid", "qid", "--metrics", "mrr",
                                "--n-boot", "200")
    assert status == 0, err
    assert "paired differences" in out and "neural" in out.splitlines()[-1]


def test_standard_input(run_csv):
    status, out, err = run_main("evaluate", "-", "--scores", "neural", "--qid", "qid", "--metrics", "mrr",
                                "--table-format", "json", stdin=run_csv.read_bytes())
    assert status == 0, err
    assert _table(out)[0]["value"] == 1.0


@pytest.mark.parametrize("value, said", [("", "missing score"), ("NaN", "missing score"),
                                         ("inf", "expected a finite number, got 'inf'"),
                                         ("high", "expected a number, got 'high'")])
def test_a_bad_score_is_refused_at_its_line_and_column(tmp_path, value, said):
    path = tmp_path / "bad.csv"
    path.write_text(RUN.replace("q1,b,0,0.7,0.1", f"q1,b,0,0.7,{value}"))
    status, out, err = run_main("evaluate", path, "--scores", "bm25,neural", "--qid", "qid")
    one_line_error(status, err, "line 4", "column 'neural'", said)
    assert out == ""


@pytest.mark.parametrize("argv, said", [
    (["--scores", "rank"], "has no column 'rank' (columns: qid, doc, label, bm25, neural)"),
    (["--scores", "label"], "'label' is the label"),
    (["--scores", "qid", "--qid", "qid"], "'qid' is the query ids"),
    (["--scores", "bm25,bm25"], "names the column 'bm25' twice"),
    (["--scores", "bm25", "--init-score", "neural"], "--init-score"),
    ([], "or DATA --scores COLUMN"),
])
def test_refusals(run_csv, argv, said):
    one_line_error(*run_main("evaluate", run_csv, *argv)[::2], said)


def test_a_model_and_scores_together_are_refused(run_csv):
    one_line_error(*run_main("evaluate", "model.json", run_csv, "--scores", "bm25")[::2], "without a model")


def test_scores_name_csv_columns(tmp_path):
    path = tmp_path / "run.npy"
    np.save(path, np.zeros((3, 2)))
    one_line_error(*run_main("evaluate", path, "--scores", "bm25")[::2], "CSV file")


def test_a_comparison_that_cannot_be_made_says_so_without_ci(tmp_path):
    # one query: each column's mrr is defined, their paired interval is not; the refusal, asked for by the second
    # column and not by --ci, names the comparison and how to get the values (it read as an interval's refusal)
    path = tmp_path / "one.csv"
    path.write_text("qid,label,bm25,neural\nq1,1,0.5,0.1\nq1,0,0.2,0.3\nq1,0,0.9,0.2\n")
    status, out, err = run_main("evaluate", path, "--scores", "bm25,neural", "--qid", "qid", "--metrics", "mrr")
    one_line_error(status, err, "--scores: comparing 'neural' with 'bm25' on mrr", "--scores one column at a time")
    assert out == ""
    status, out, err = run_main("evaluate", path, "--scores", "neural", "--qid", "qid", "--metrics", "mrr",
                                "--table-format", "json")
    assert status == 0, err
    assert _table(out) == [{"metric": "mrr", "value": pytest.approx(1 / 3)}]


def test_a_drop_naming_no_column_is_refused_as_with_a_model(run_csv):
    # a typo in --drop was accepted silently with --scores (every unread column is left out anyway)
    one_line_error(*run_main("evaluate", run_csv, "--scores", "bm25", "--qid", "qid", "--drop", "dco")[::2],
                   "no column 'dco' to drop")
    status, out, err = run_main("evaluate", run_csv, "--scores", "bm25", "--qid", "qid", "--drop", "doc",
                                "--metrics", "mrr", "--table-format", "json")
    assert status == 0, err
    assert _table(out)[0]["value"] == pytest.approx(EXPECTED["bm25"]["mrr"])


def test_scores_repeated_adds_columns(run_csv):
    # --scores bm25 --scores neural judged neural alone, silently (argparse kept the last); it is the comparison
    argv = ["--qid", "qid", "--metrics", "mrr", "--table-format", "json", "--n-boot", "200"]
    status, out, err = run_main("evaluate", run_csv, "--scores", "bm25", "--scores", "neural", *argv)
    assert status == 0, err
    assert out == run_main("evaluate", run_csv, "--scores", "bm25,neural", *argv)[1]
    assert [row["scores"] for row in _table(out)["metrics"]] == ["bm25", "neural"]
    one_line_error(*run_main("evaluate", run_csv, "--scores", "bm25", "--scores", "bm25")[::2],
                   "names the column 'bm25' twice")


def test_integers_beyond_2_53_are_refused_not_tied(tmp_path):
    # nanosecond timestamps as scores: 2**53 + 1 read as 2**53 tied the two rows, and mrr judged a tie (0.75) where
    # the file ranks the relevant row first (1.0); integers float64 holds exactly, and large floats, are read as ever
    path = tmp_path / "big.csv"
    path.write_text("qid,label,t\nq1,1,9007199254740993\nq1,0,9007199254740992\nq2,0,1\nq2,1,2\n")
    one_line_error(*run_main("evaluate", path, "--scores", "t", "--qid", "qid", "--metrics", "mrr")[::2],
                   "line 2, column 't' (--scores): the integer 9007199254740993 is beyond 2**53")
    path.write_text("qid,label,t\nq1,1,9007199254740994\nq1,0,9007199254740992\nq2,0,1e300\nq2,1,2e300\n")
    status, out, err = run_main("evaluate", path, "--scores", "t", "--qid", "qid", "--metrics", "mrr",
                                "--table-format", "json")
    assert status == 0, err
    assert _table(out)[0]["value"] == 1.0


def test_a_k_beyond_every_query_says_the_convention_to_pass(run_csv):
    # the command line gives the library's advice: the spec that scores the short queries as LightGBM does
    status, _, err = run_main("evaluate", run_csv, "--scores", "bm25,neural", "--qid", "qid", "--metrics", "ndcg@10")
    assert status == 2
    assert "choose k <= 3, or pass 'ndcg@k:10,convention=lightgbm'" in err
    status, out, err = run_main("evaluate", run_csv, "--scores", "bm25", "--qid", "qid", "--metrics",
                                "ndcg@k:10,convention=lightgbm", "--table-format", "json")
    assert status == 0, err


def test_csv_output_of_two_columns_is_one_parseable_csv(run_csv):
    # the metrics, a blank line, "# paired differences (delta: ...), 95% interval, p-value" (three fields) and a
    # second header: csv readers took the title and the second header for rows of the first table
    import csv
    import io

    status, out, err = run_main("evaluate", run_csv, "--scores", "bm25,neural", "--qid", "qid", "--metrics",
                                "mrr", "--table-format", "csv")
    assert status == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["table"], r["scores"]) for r in rows] == [("metrics", "bm25"), ("metrics", "neural"),
                                                        ("differences", "neural")]
    assert float(rows[1]["value"]) == EXPECTED["neural"]["mrr"] and rows[2]["against"] == "bm25"
    assert float(rows[2]["delta"]) == pytest.approx(0.5) and rows[2]["p"] == ""


def test_id_warns_of_a_document_repeated_in_its_query(run_csv, tmp_path):
    # a run listing document a twice in q1 was judged silently, the repeat counted as a second document
    path = tmp_path / "twice.csv"
    path.write_text(RUN + "q1,a,0,0.1,0.05\n")
    status, _, err = run_main("evaluate", path, "--scores", "bm25", "--qid", "qid", "--id", "doc", "--metrics", "mrr")
    assert status == 0, err
    assert "--id doc: 1 row(s) repeat a document already listed in their query, first 'a' in query q1" in err
    assert f"{path}, line 3 and line 8" in err
    status, _, err = run_main("evaluate", run_csv, "--scores", "bm25", "--qid", "qid", "--id", "doc", "--metrics",
                              "mrr")
    assert status == 0 and "repeat" not in err                 # d1 in q2 and a in q1: no repeat
    one_line_error(*run_main("evaluate", run_csv, "--scores", "bm25", "--qid", "qid", "--id", "dco")[::2],
                   "--id: " + str(run_csv) + " has no column 'dco'")
