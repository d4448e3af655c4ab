"""Figures of rankings within queries: each point is ``per_query``'s mean, each difference ``compare``'s."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankcore import plotting
from rankcore.metrics import compare, per_query


def queries(seed, n_queries=25):
    """Shuffled rows of queries of 2..11 rows with string ids, grades 0..3 (some queries all 0), tied scores."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 12, size=n_queries)
    qid = np.repeat([f"q{i}" for i in range(n_queries)], sizes)
    y = rng.integers(0, 4, qid.size).astype(float)
    y[qid == "q0"] = 0.0                                     # a query without a relevant row
    s1 = np.round(y + rng.normal(size=qid.size))             # informative, many ties
    s2 = np.round(rng.normal(size=qid.size), 1)
    order = rng.permutation(qid.size)
    return qid[order], y[order], s1[order], s2[order]


@pytest.mark.parametrize("spec", ["ndcg@k:10", "ndcg@k:6,gain=linear,ties=first,empty=0", "err@k:4"])
def test_metric_at_k_points_are_per_query_means(spec):
    qid, y, s1, s2 = queries(0)
    figure = plotting.metric_at_k_data({"a": (y, s1, qid), "b": (y, s2, qid)}, metric=spec)
    (panel,) = figure.panels
    lines = {s.gid: s for s in panel.series}
    assert set(lines) == {"at-k:a", "at-k:b"}
    head, _, rest = spec.partition(":")
    largest_k = int(rest.split(",")[0])
    options = rest.partition(",")[2]
    for name, scores in (("a", s1), ("b", s2)):
        line = lines[f"at-k:{name}"]
        np.testing.assert_array_equal(line.x, np.arange(1, largest_k + 1))
        expected = [per_query(y, scores, f"{head}:{k}" + (f",{options}" if options else ""), qid=qid).mean
                    for k in range(1, largest_k + 1)]
        np.testing.assert_allclose(line.y, expected, rtol=0, atol=1e-15)


def test_metric_at_k_stops_at_the_largest_query_and_draws_one_panel_per_split():
    qid, y, s1, s2 = queries(1)
    tq, ty, t1, t2 = queries(2, n_queries=8)
    largest = max(np.unique(qid, return_counts=True)[1])
    figure = plotting.metric_at_k_data({"train": {"a": (y, s1, qid)}, "test": {"a": (ty, t1, tq)}},
                                       metric="ndcg@k:40")
    assert [p.title for p in figure.panels] == ["train: ndcg@k against k", "test: ndcg@k against k"]
    assert figure.panels[0].series[0].x[-1] == largest
    assert figure.panels[1].series[0].x[-1] == max(np.unique(tq, return_counts=True)[1])


def test_query_differences_are_compares_per_query_values():
    qid, y, s1, s2 = queries(3)
    figure = plotting.query_differences_data(y, {"a": s1, "b": s2}, qid=qid, n_boot=300, random_state=4)
    (panel,) = figure.panels                                 # "a" is the better model: b is compared to it
    assert (panel.title, panel.ylabel) == ("ndcg@k:10: b − a", "Δ ndcg@k:10")
    lines = {s.gid: s for s in panel.series if s.gid}
    v1 = per_query(y, s1, "ndcg@k:10", qid=qid).values
    v2 = per_query(y, s2, "ndcg@k:10", qid=qid).values
    both = ~np.isnan(v1) & ~np.isnan(v2)
    np.testing.assert_array_equal(lines["query-delta:b"].y, np.sort(v2[both] - v1[both]))
    paired = compare(y, s2, s1, "ndcg@k:10", qid=qid, n_boot=300, random_state=4)
    assert np.mean(lines["query-delta:b"].y) == pytest.approx(paired.difference, abs=1e-12)
    np.testing.assert_array_equal(lines["mean-delta:b"].y, [paired.difference] * 2)
    (band,) = panel.bands
    assert (band.gid, band.lower[0], band.upper[0]) == ("delta-band:b", paired.lower, paired.upper)
    better, worse = int((v2[both] > v1[both]).sum()), int((v2[both] < v1[both]).sum())
    assert lines["query-delta:b"].label == (f"each query: {better} better, {worse} worse, "
                                            f"{both.sum() - better - worse} equal")
    assert f"p = {paired.p_value:.3g}" in lines["mean-delta:b"].label


def test_query_differences_one_panel_per_model_against_the_baseline():
    qid, y, s1, s2 = queries(5)
    figure = plotting.query_differences_data(y, {"a": s1, "b": s2, "c": -s2}, qid=qid, metric="mrr",
                                             baseline="b", n_boot=200)
    assert [p.title for p in figure.panels] == ["mrr: a − b", "mrr: c − b"]
    long = plotting.query_differences_data(y, {"a" * 40: s1, "b" * 30: s2}, qid=qid, n_boot=200)
    assert long.panels[0].title == "b" * 30
    assert (figure.rows, figure.columns) == (1, 2)


def test_query_svgs_are_deterministic_and_carry_the_series():
    qid, y, s1, s2 = queries(6)
    curves = {"a": (y, s1, qid), "b": (y, s2, qid)}
    first = plotting.render_svg(plotting.metric_at_k_data(curves))
    assert first == plotting.render_svg(plotting.metric_at_k_data(curves))
    assert re.findall(r'data-series="([^"]+)"', first) == ["at-k:a", "at-k:b"]
    diff = plotting.render_svg(plotting.query_differences_data(y, {"a": s1, "b": s2}, qid=qid, n_boot=200))
    assert diff == plotting.render_svg(plotting.query_differences_data(y, {"a": s1, "b": s2}, qid=qid, n_boot=200))
    assert 'data-band="delta-band:b"' in diff and 'data-series="query-delta:b"' in diff


def test_rows_in_another_order_draw_the_same_figures():
    qid, y, s1, s2 = queries(7)
    order = np.random.default_rng(0).permutation(qid.size)
    at_k = [plotting.render_svg(plotting.metric_at_k_data({"a": (y[o], s1[o], qid[o])}))
            for o in (slice(None), order)]
    diffs = [plotting.render_svg(plotting.query_differences_data(y[o], {"a": s1[o], "b": s2[o]}, qid=qid[o],
                                                                n_boot=200)) for o in (slice(None), order)]
    assert at_k[0] == at_k[1] and diffs[0] == diffs[1]


@pytest.mark.parametrize("metric", ["map", "ndcg@k:0.5", "auc"])
def test_metric_at_k_needs_a_count_cutoff(metric):
    qid, y, s1, _ = queries(8)
    with pytest.raises(ValueError, match=r"metric: expected a metric with a count cut-off k.*got '"):
        plotting.metric_at_k_data({"a": (y, s1, qid)}, metric=metric)


def test_bad_input_is_named():
    qid, y, s1, s2 = queries(9)
    with pytest.raises(ValueError, match=r"curves: the value for 'a' must be a triple \(y, scores, qid\)"):
        plotting.metric_at_k_data({"a": (y, s1)})
    with pytest.raises(ValueError, match="qid: expected one query id per row"):
        plotting.metric_at_k_data({"a": (y, s1, qid[:-1])})
    with pytest.raises(ValueError, match="scores: expected a mapping of two or more"):
        plotting.query_differences_data(y, {"a": s1}, qid=qid)
    with pytest.raises(ValueError, match="baseline: expected one of the models a, b, got 'z'"):
        plotting.query_differences_data(y, {"a": s1, "b": s2}, qid=qid, baseline="z")


def test_matplotlib_draws_the_same_points():
    pytest.importorskip("matplotlib")
    qid, y, s1, s2 = queries(10)
    fig = plotting.metric_at_k_figure({"a": (y, s1, qid)}, metric="ndcg@k:5")
    (line,) = [ln for ln in fig.axes[0].get_lines() if ln.get_gid() == "at-k:a"]
    np.testing.assert_array_equal(line.get_ydata(), [per_query(y, s1, f"ndcg@k:{k}", qid=qid).mean
                                                     for k in range(1, 6)])
    fig = plotting.query_differences_figure(y, {"a": s1, "b": s2}, qid=qid, n_boot=200)
    assert {ln.get_gid() for ln in fig.axes[0].get_lines()} >= {"query-delta:b", "mean-delta:b"}


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 7), min_size=5, max_size=10), st.integers(0, 2 ** 32 - 1))
def test_the_mean_of_the_drawn_differences_is_compares_difference(sizes, seed):
    rng = np.random.default_rng(seed)
    sizes = [4] + sizes
    qid = np.repeat(np.arange(len(sizes)), sizes)
    y = rng.integers(0, 3, qid.size).astype(float)
    y[0] = 2.0
    s1, s2 = rng.integers(0, 3, qid.size).astype(float), rng.normal(size=qid.size)
    figure = plotting.query_differences_data(y, {"a": s1, "b": s2}, qid=qid, metric="ndcg@k:4,empty=0",
                                             baseline="b", n_boot=100, random_state=1)
    (panel,) = figure.panels
    drawn = next(s for s in panel.series if s.gid == "query-delta:a")
    assert np.all(np.diff(drawn.y) >= 0) and drawn.y.size == len(sizes)
    paired = compare(y, s1, s2, "ndcg@k:4,empty=0", qid=qid, n_boot=100, random_state=1)
    assert np.mean(drawn.y) == pytest.approx(paired.difference, abs=1e-12)
    assert panel.bands[0].lower[0] == paired.lower and panel.bands[0].upper[0] == paired.upper


def test_too_few_queries_for_a_paired_test_draw_the_differences_without_a_band():
    # 3 queries: compare refuses a paired test (no test reaches 5% on fewer than 6), the figure still draws each
    # query's difference and their mean, and says why there is no interval
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(3), 5)
    y, s1, s2 = rng.integers(0, 3, 15).astype(float), rng.normal(size=15), rng.normal(size=15)
    y[0] = 2.0
    with pytest.raises(ValueError, match="at least 6 queries"):
        compare(y, s1, s2, "ndcg@k:4,empty=0", qid=qid)
    (panel,) = plotting.query_differences_data(y, {"a": s1, "b": s2}, qid=qid, metric="ndcg@k:4,empty=0",
                                               baseline="b", n_boot=100).panels
    drawn = next(s for s in panel.series if s.gid == "query-delta:a")
    mean = next(s for s in panel.series if s.gid == "mean-delta:a")
    assert drawn.y.size == 3 and mean.y[0] == pytest.approx(np.mean(drawn.y), abs=1e-12)
    assert panel.bands == [] and "no interval over 3 queries" in mean.label


def test_panels_titled_by_the_model_alone_leave_the_baseline_named_in_the_figure():
    # a long model name dropped "<metric>: ... − <baseline>" from its panel: nothing said what it was compared to
    qid, y, s1, s2 = queries(5)
    long_names = {"push loss=logistic price=identity": s1, "push loss=exp price=pow:16 n_iter=100": s2}
    figure = plotting.query_differences_data(y, long_names, qid=qid, baseline="push loss=logistic price=identity",
                                             n_boot=100, title="data.csv, test queries")
    assert figure.panels[0].title == "push loss=exp price=pow:16 n_iter=100"
    assert figure.title == "data.csv, test queries; ndcg@k:10: each model − push loss=logistic price=identity"
    svg = plotting.render_svg(figure)
    assert "each model − push loss=logistic price=identity</text>" in svg
    short = plotting.query_differences_data(y, {"a": s1, "b": s2}, qid=qid, baseline="a", n_boot=100)
    assert (short.title, short.panels[0].title) == (None, "ndcg@k:10: b − a")


def test_metric_at_k_labels_say_the_metrics_settings():
    # ndcg@k with linear gains was titled "ndcg@k against k", as the default's exponential gains
    qid, y, s1, _ = queries(8)
    figure = plotting.metric_at_k_data({"a": (y, s1, qid)}, metric="ndcg@k:6,gain=linear")
    (panel,) = figure.panels
    assert (panel.title, panel.ylabel) == ("ndcg@k (gain=linear) against k", "ndcg@k (gain=linear), mean over queries")
    plain = plotting.metric_at_k_data({"a": (y, s1, qid)}, metric="ndcg@k:6").panels[0]
    assert (plain.title, plain.ylabel) == ("ndcg@k against k", "ndcg@k, mean over queries")
