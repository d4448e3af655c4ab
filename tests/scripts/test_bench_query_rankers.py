"""``benchmarks/bench_query_rankers.py --cost`` at its smallest settings: a table, never a crash."""

import sys

import pytest

from _checkout_scripts import ROOT, script_module_fixture

sys.path.insert(0, str(ROOT / "benchmarks"))        # the script imports its helpers from its own folder

pytest.importorskip("lightgbm")

bench = script_module_fixture("benchmarks/bench_query_rankers.py", "rankcore_bench_query_rankers")


def test_cost_with_fewer_rows_than_the_longest_query_leaves_those_lengths_out(bench, capsys):
    # 150 rows hold one query of 100 rows and none of 1,000 or 10,000: those lengths are said to be left out
    assert bench.main(["--cost", "--cost-rows", "150"]) == 0
    out, err = capsys.readouterr()
    rows = [line for line in out.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| query length |") and rows[1].startswith("| 100 |") and len(rows) == 2
    assert "left out: queries of 1,000 rows (more than --cost-rows 150)" in err
    assert "left out: queries of 10,000 rows" in err


def test_cost_rows_below_the_shortest_query_is_a_usage_error(bench, capsys):
    with pytest.raises(SystemExit) as exit_info:
        bench.main(["--cost", "--cost-rows", "50"])
    assert exit_info.value.code == 2
    assert "--cost-rows: expected at least 100 rows" in capsys.readouterr().err
