"""confidence_interval, compare and evaluate(ci=...): results, paths, determinism, bad input, dropped replicates."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import rankcore
from rankcore.metrics import (
    ConfidenceInterval,
    DroppedReplicatesWarning,
    PairedComparison,
    compare,
    confidence_interval,
)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    y = (rng.random(400) < 0.3).astype(np.int8)
    y[:4] = (0, 0, 1, 1)
    s1 = np.round(y + rng.normal(size=400), 1)
    s2 = np.round(0.6 * y + rng.normal(size=400), 1)
    return y, s1, s2


class PlainAUC(rankcore.Metric):
    """The AUC without a resampling form: the bootstrap rebuilds each replicate's rows."""

    name = "test-plain-auc"
    bounded = True

    def compute(self, y, scores):
        return rankcore.metrics.auc(y, scores)


class PythonFormAUC(PlainAUC):
    """The AUC with a resampling form written in Python (no kernel)."""

    name = "test-python-form-auc"
    weighted_groups = True

    def from_weighted_groups(self, pos_weight, neg_weight):
        p, n = np.asarray(pos_weight), np.asarray(neg_weight)
        below = n.sum() - np.cumsum(n)           # negatives below each group
        return float((p * (below + 0.5 * n)).sum() / (p.sum() * n.sum()))


# ---------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------


def test_auto_method_is_delong_for_auc_and_bootstrap_otherwise(data):
    y, s1, _ = data
    auc = confidence_interval(y, s1, "auc")
    assert isinstance(auc, ConfidenceInterval) and auc.method == "delong" and auc.n_boot is None
    assert auc.estimate == rankcore.metrics.auc(y, s1)
    assert auc.lower < auc.estimate < auc.upper and auc.interval == (auc.lower, auc.upper)
    for spec in ("pauc:0.1", "pauc:0.1,mcclish", "prec@k:20", "rmax", "ks", "tpauc:0.5,0.5", "pnorm:8"):
        ci = confidence_interval(y, s1, spec, n_boot=300, random_state=0)
        assert ci.method == "bootstrap" and ci.n_boot == 300 and ci.n_dropped == 0 and ci.stratified
        assert ci.estimate == pytest.approx(rankcore.evaluate(y, s1, [spec])[spec], abs=1e-15)
        assert ci.lower <= ci.upper and ci.standard_error > 0


def test_repr_is_readable(data):
    y, s1, s2 = data
    text = repr(confidence_interval(y, s1, "pauc:0.1", n_boot=200, random_state=0))
    assert text.startswith("ConfidenceInterval(pauc:0.1 0.0") and "95% CI [" in text and "200 replicates" in text
    text = repr(compare(y, s1, s2, "auc", level=0.9))
    assert text.startswith("PairedComparison(auc 0.") and "90% CI [" in text and "p = " in text and "delong" in text


def test_docstring_examples_print_what_they_show():
    import doctest

    import rankcore.metrics._intervals as module

    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0


def test_replicates_on_request_and_seeded(data, exact_threads):
    exact_threads(2)                # n_jobs=None: 8 threads, against n_jobs=1
    y, s1, _ = data
    a = confidence_interval(y, s1, "prec@k:0.1", n_boot=200, random_state=3, return_replicates=True)
    b = confidence_interval(y, s1, "prec@k:0.1", n_boot=200, random_state=3, return_replicates=True, n_jobs=1)
    c = confidence_interval(y, s1, "prec@k:0.1", n_boot=200, random_state=4)
    assert a.replicates.shape == (200,) and c.replicates is None
    np.testing.assert_array_equal(a.replicates, b.replicates)       # threads change nothing
    assert (a.lower, a.upper) != (c.lower, c.upper) or a.standard_error != c.standard_error
    assert np.quantile(a.replicates, 0.025) == a.lower


def test_random_state_kinds_are_accepted(data):
    y, s1, _ = data
    for state in (None, 7, np.random.RandomState(7), np.random.default_rng(7)):
        assert confidence_interval(y, s1, "ks", n_boot=100, random_state=state).n_boot == 100
    with pytest.raises(ValueError, match="random_state"):
        confidence_interval(y, s1, "ks", n_boot=100, random_state=-1)


@pytest.mark.parametrize("paired", [False, True], ids=["single", "paired"])
def test_kernel_python_form_and_row_paths_give_the_same_interval(data, paired):
    """The three resampling paths draw the same replicates: the path is a matter of speed only."""
    y, s1, s2 = data
    results = []
    for metric in ("auc", PythonFormAUC(), PlainAUC()):
        if paired:
            r = compare(y, s1, s2, metric, method="bootstrap", n_boot=150, random_state=5, return_replicates=True)
        else:
            r = confidence_interval(y, s1, metric, method="bootstrap", n_boot=150, random_state=5,
                                    return_replicates=True)
        results.append(r.replicates)
    if not paired:
        np.testing.assert_allclose(results[1], results[0], rtol=1e-12)
    np.testing.assert_allclose(results[2], results[0], rtol=1e-12)


def test_graded_metric_is_resampled_by_rows():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 4, 120).astype(float)
    s = y + rng.normal(size=120)
    ci = confidence_interval(y, s, "misrank", n_boot=120, random_state=0)
    assert ci.lower <= ci.estimate <= ci.upper
    assert confidence_interval(y, s, "misrank", n_boot=120, random_state=0, stratified=False).n_boot == 120
    with pytest.raises(ValueError, match="stratified=False"):
        confidence_interval(np.r_[y, 9.0], np.r_[s, 1.0], "misrank", n_boot=120)


def test_compare_delong_and_bootstrap(data):
    y, s1, s2 = data
    d = compare(y, s1, s2, "auc")
    assert isinstance(d, PairedComparison) and d.method == "delong"
    assert d.difference == pytest.approx(d.estimates[0] - d.estimates[1])
    assert d.lower < d.difference < d.upper and 0 < d.p_value < 1
    b = compare(y, s1, s2, "auc", method="bootstrap", n_boot=400, random_state=0)
    assert b.p_value == pytest.approx(d.p_value, abs=0.05)
    assert b.standard_error == pytest.approx(d.standard_error, rel=0.2)
    same = compare(y, s1, s1, "pauc:0.2", n_boot=100, random_state=0)
    assert (same.difference, same.lower, same.upper, same.p_value) == (0.0, 0.0, 0.0, 1.0)
    assert compare(y, s1, s1, "auc").p_value == 1.0


def test_evaluate_with_ci_keeps_its_plain_form_without(data):
    y, s1, _ = data
    plain = rankcore.evaluate(y, s1, ["auc", "pauc:0.1", "roc:3"])
    assert isinstance(plain["auc"], float)
    with_ci = rankcore.evaluate(y, s1, ["auc", "pauc:0.1", "roc:3"], ci=0.9, n_boot=200, random_state=1)
    assert with_ci["auc"].method == "delong" and with_ci["auc"].level == 0.9
    assert with_ci["pauc:0.1"].estimate == plain["pauc:0.1"]
    alone = confidence_interval(y, s1, "pauc:0.1", level=0.9, n_boot=200, random_state=1)
    assert (with_ci["pauc:0.1"].lower, with_ci["pauc:0.1"].upper) == (alone.lower, alone.upper)
    np.testing.assert_array_equal(with_ci["roc:3"].tp, plain["roc:3"].tp)
    with pytest.raises(ValueError, match="level"):
        rankcore.evaluate(y, s1, "auc", ci=95)


def test_delong_interval_covers_about_level_of_the_time():
    """A small coverage simulation (normal scores, true AUC Φ(1/√2))."""
    from scipy.stats import norm

    truth = norm.cdf(1 / np.sqrt(2))
    rng = np.random.default_rng(9)
    hits = 0
    for _ in range(300):
        y = np.r_[np.ones(60), np.zeros(90)]
        ci = confidence_interval(y, y + rng.normal(size=150), "auc")
        hits += ci.lower <= truth <= ci.upper
    assert 0.90 <= hits / 300 <= 0.99


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs, match", [
    ({"level": 0.0}, "level: expected a confidence level in"),
    ({"level": 1.0}, "level"),
    ({"level": 95}, "level"),
    ({"level": True}, "level"),
    ({"n_boot": 99}, "n_boot: expected at least 100"),
    ({"n_boot": 2**62}, "n_boot: expected at most 1,000,000 bootstrap replicates"),
    ({"n_boot": 1_000_001}, "n_boot: expected at most 1,000,000"),
    ({"method": "percentile"}, "method: expected one of"),
    ({"metric": "pauc:0.1", "method": "delong"}, "method: 'delong'"),
    ({"metric": "roc"}, "metric: 'roc' is not a single number"),
    ({"n_jobs": 0}, "n_jobs"),
])
def test_bad_parameters_name_the_argument(data, kwargs, match):
    y, s1, _ = data
    kwargs = {"metric": "auc", **kwargs}
    with pytest.raises(ValueError, match=match):
        confidence_interval(y, s1, **kwargs)


def test_n_boot_must_be_an_integer(data):
    y, s1, _ = data
    with pytest.raises(TypeError, match="n_boot"):
        confidence_interval(y, s1, "pauc:0.1", n_boot=2000.0)


@pytest.mark.parametrize("y, match", [
    ([0, 0, 0, 0, 0], "got 0 positive and 5 negative rows"),
    ([1, 0, 0, 0, 0], "at least two rows of each class"),
    ([1, 1, 1, 1, 0], "got 4 positive and 1 negative"),
])
def test_too_few_rows_of_a_class(y, match):
    for metric in ("auc", "pauc:0.5", "prec@k:2"):
        with pytest.raises(ValueError, match=f"y: .*{match}"):
            confidence_interval(y, [0.1, 0.2, 0.3, 0.4, 0.5], metric, n_boot=100)


def test_scorings_of_different_lengths_and_non_finite_scores(data):
    y, s1, s2 = data
    with pytest.raises(ValueError, match="scores2 has 399"):
        compare(y, s1, s2[:-1], "auc")
    with pytest.raises(ValueError, match="scores has 399"):
        confidence_interval(y, s1[:-1], "auc")
    bad = s2.copy()
    bad[5] = np.nan
    with pytest.raises(ValueError, match="scores2"):
        compare(y, s1, bad, "pauc:0.1")
    bad[5] = np.inf
    with pytest.raises(ValueError, match="scores"):
        confidence_interval(y, bad, "auc")


def test_dropped_replicates_are_counted_and_warned():
    """Pooled resampling of 2 positives in 20 rows draws none in about 12 % of the replicates."""
    y = np.r_[1, 1, np.zeros(18)]
    s = np.arange(20.0)
    with pytest.warns(DroppedReplicatesWarning, match=r"undefined on \d+ of 1000"):
        ci = confidence_interval(y, s, "auc", method="bootstrap", stratified=False, n_boot=1000,
                                 random_state=0, return_replicates=True)
    assert ci.n_dropped == np.isnan(ci.replicates).sum() > 50
    assert f"{ci.n_dropped} dropped" in repr(ci)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert confidence_interval(y, s, "auc", method="bootstrap", n_boot=200, random_state=0).n_dropped == 0



def test_dropped_replicates_warning_of_compare_points_at_the_caller():
    """The paired bootstrap's warning is attributed to the code that called ``compare``."""
    y = np.r_[1, 1, np.zeros(18)]
    s = np.arange(20.0)
    with pytest.warns(DroppedReplicatesWarning) as record:
        compare(y, s, s[::-1].copy(), "auc", method="bootstrap", stratified=False, n_boot=1000, random_state=0)
    assert [Path(w.filename).name for w in record] == [Path(__file__).name]

class DistinctPositivesAtK(rankcore.Metric):
    """A plugin-style metric undefined when fewer than k distinct positives were drawn."""

    name = "test-distinct-at-k"
    parameters = (rankcore.Parameter("k", int),)

    def compute(self, y, scores):
        distinct = np.unique(scores[y == 1])
        if distinct.shape[0] < self.k:
            raise ValueError(f"k = {self.k} is larger than the {distinct.shape[0]} positives")
        return float(distinct[-self.k:].mean())


def test_plugin_metric_undefined_on_some_replicates():
    rng = np.random.default_rng(4)
    y = np.r_[np.ones(6), np.zeros(40)]
    s = rng.normal(size=46)
    metric = DistinctPositivesAtK(k=5)
    with pytest.warns(DroppedReplicatesWarning) as record:
        ci = confidence_interval(y, s, metric, n_boot=2000, random_state=1)
    assert 0 < ci.n_dropped < 2000 and str(ci.n_dropped) in str(record[0].message)
    with pytest.raises(ValueError, match="n_boot: metric 'test-distinct-at-k:6' is undefined on 199 of 200"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            confidence_interval(y, s, DistinctPositivesAtK(k=6), n_boot=200, random_state=1)


def test_metrics_doc_example_prints_what_it_shows(capsys):
    """docs/metrics_intervals.md, "Confidence intervals and paired tests": the printed output is the one shown."""
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "metrics_intervals.md").read_text(encoding="utf-8")
    section = page.split("# Confidence intervals and paired tests", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    shown = re.search(r"```text\n(.*?)```", section, re.S).group(1)
    exec(compile(code, "metrics_intervals.md", "exec"), {})
    assert capsys.readouterr().out == shown


@pytest.mark.parametrize("stratified", ["no", "", 1, 0, None, np.array([True])])
def test_stratified_must_be_a_bool(data, stratified):
    y, s1, s2 = data
    with pytest.raises(TypeError, match="stratified: expected True or False, got "):
        confidence_interval(y, s1, "prec@k:5", stratified=stratified)
    with pytest.raises(TypeError, match="stratified: expected True or False"):
        compare(y, s1, s2, "prec@k:5", stratified=stratified)


def test_stratified_takes_numpy_bools(data):
    y, s1, _ = data
    a = confidence_interval(y, s1, "prec@k:5", n_boot=200, stratified=np.False_, random_state=0)
    b = confidence_interval(y, s1, "prec@k:5", n_boot=200, stratified=False, random_state=0)
    assert (a.lower, a.upper, a.stratified) == (b.lower, b.upper, False)
