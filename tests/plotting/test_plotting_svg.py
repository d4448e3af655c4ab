"""rankcore's own SVG figures: valid, deterministic, the data's points, and no matplotlib needed."""

import os
import sys
import xml.dom.minidom

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rankcore import plotting
from rankcore._svg import nice_ticks, render_svg, tick_labels
from rankcore.metrics import rmax, roc_curve
from _roc_zoom import assert_zoomed_roc


def tied_data(seed, n=120, levels=7):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    return y, rng.integers(0, levels, n).astype(float) + y, rng.normal(size=n)


def parse(text):
    return xml.dom.minidom.parseString(text).documentElement


def polylines(root):
    return {p.getAttribute("data-series"): p for p in root.getElementsByTagName("polyline")
            if p.getAttribute("data-series")}


def points_of(polyline):
    return np.array([[float(v) for v in p.split(",")] for p in polyline.getAttribute("points").split()])


def texts(root, cls=None):
    return [t.firstChild.data for t in root.getElementsByTagName("text")
            if t.firstChild is not None and (cls is None or t.getAttribute("class") == cls)]


@given(st.floats(-1e7, 1e7), st.floats(1e-6, 1e7), st.integers(2, 12), st.booleans())
def test_nice_ticks_are_round_evenly_spaced_and_inside(lo, span, count, integer):
    hi = lo + span
    if integer and span < 1:
        hi = lo + 1.0
    ticks, step = nice_ticks(lo, hi, count, integer=integer)
    assert all(lo - 1e-9 * abs(lo) - 1e-12 <= t <= hi + 1e-9 * abs(hi) + 1e-12 for t in ticks)
    assert len(ticks) <= 2 * count + 2
    mantissa = step / 10 ** np.floor(np.log10(step))
    assert any(np.isclose(mantissa, m) for m in (1, 2, 2.5, 5, 10))
    if integer:
        assert step >= 1 and step == int(step)
    if len(ticks) > 1:
        np.testing.assert_allclose(np.diff(ticks), step, rtol=1e-6, atol=1e-12 * max(abs(lo), abs(hi)))
    labels = tick_labels(ticks, step)
    assert len(set(labels)) == len(labels), labels  # distinct ticks get distinct labels


def test_nice_ticks_rejects_an_empty_range():
    with pytest.raises(ValueError, match="lo < hi"):
        nice_ticks(1.0, 1.0, 5)


def test_tick_labels_use_just_enough_digits():
    assert tick_labels([0.0, 0.25, 0.5], 0.25) == ["0.00", "0.25", "0.50"]
    assert tick_labels([0.0, 50.0, 100.0], 50.0) == ["0", "50", "100"]
    assert tick_labels([2e6, 4e6], 2e6) == ["2e+06", "4e+06"]


def test_roc_svg_draws_the_roc_curve_points():
    y, s1, s2 = tied_data(0)
    data = plotting.roc_data({"tied": (y, s1), "normal": (y, s2)}, max_fp=6, title="two models")
    # the data layer holds exactly the metric's points
    for panel, max_fp in zip(data.panels, (None, 6)):
        lines = {s.gid: s for s in panel.series if not s.reference}
        for name, scores in (("tied", s1), ("normal", s2)):
            assert_zoomed_roc(lines[f"roc:{name}"].x, lines[f"roc:{name}"].y, y, scores, max_fp)
    root = parse(render_svg(data))
    assert root.tagName == "svg"
    panels = root.getElementsByTagName("g")
    full = [g for g in panels if g.getAttribute("data-panel") == "0"][0]
    (frame,) = [r for r in full.getElementsByTagName("rect") if r.getAttribute("class") == "frame"]
    left, top = float(frame.getAttribute("x")), float(frame.getAttribute("y"))
    right, bottom = left + float(frame.getAttribute("width")), top + float(frame.getAttribute("height"))
    tied = points_of(polylines(full)["roc:tied"])
    # starts at (0, 0) in the frame's lower left corner; ROC curves go right and up (y grows downwards)
    assert abs(tied[0, 0] - left) < 0.06 and abs(tied[0, 1] - bottom) < 0.06
    assert (np.diff(tied[:, 0]) >= 0).all() and (np.diff(tied[:, 1]) <= 0).all()
    assert (tied[:, 0] <= right).all() and (tied[:, 1] >= top).all()
    assert len(tied) <= len(roc_curve(y, s1).fp)
    # titles, labels and the leftmost panel's legend with R_max
    assert "two models" in texts(root, "suptitle")
    assert texts(root, "title") == ["ROC curve (counts)", "leftmost portion (at most 6 false positives)"]
    assert f"tied (rmax {rmax(y, s1)})" in texts(root)
    assert "false positives (count)" in texts(root, "xlabel")
    xticks = texts(root, "xtick")
    assert all(t == str(int(t)) for t in xticks)  # counts: integer ticks only


def test_svg_is_deterministic_and_escapes_text():
    y, s1, _ = tied_data(1)
    data = plotting.roc_data({"a <b> & 'c'": (y, s1)})
    first, second = render_svg(data), render_svg(plotting.roc_data({"a <b> & 'c'": (y, s1)}))
    assert first == second
    root = parse(first)  # parses: the label was escaped
    assert "a <b> & 'c'" in texts(root)


def test_svg_thins_a_long_curve_without_changing_its_ends():
    rng = np.random.default_rng(2)
    n = 200_000
    y = rng.integers(0, 2, n)
    scores = rng.normal(size=n) + y
    data = plotting.roc_data({"m": (y, scores)}, max_fp=50)
    root = parse(render_svg(data))
    full = [g for g in root.getElementsByTagName("g") if g.getAttribute("data-panel") == "0"][0]
    pts = points_of(polylines(full)["roc:m"])
    assert len(pts) < 20_000 < len(roc_curve(y, scores).fp)
    assert (np.diff(pts[:, 0]) >= 0).all()


def test_precision_and_objective_svgs():
    y, s1, s2 = tied_data(3)
    data = plotting.precision_at_k_data({"train": {"a": (y, s1)}, "test": {"a": (y, s2)}}, max_k=30)
    root = parse(render_svg(data))
    assert texts(root, "title") == ["train: precision@k", "test: precision@k"]
    k, values = plotting.precision_at_k_curve(y, s1, 30)
    np.testing.assert_array_equal(data.panels[0].series[1].y, values)
    objective = plotting.objective_data({"a": [3.0, 2.0, 1.5], "flat": [1.0], "b": [np.nan, 2.0, 1.0],
                                         "c": [1.0, 0.5], "d": [4.0, 1.0]}, xlabel={"b": "epoch"})
    assert (objective.rows, objective.columns) == (3, 2)
    root = parse(render_svg(objective))
    assert set(polylines(root)) == {f"objective:{name}" for name in ("a", "flat", "b", "c", "d")}
    assert "epoch" in texts(root, "xlabel")
    np.testing.assert_array_equal(objective.panels[2].series[0].y, [2.0, 1.0])  # the NaN is left out


def test_svg_needs_no_matplotlib(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    y, s1, _ = tied_data(4)
    data = plotting.roc_data({"a": (y, s1)})
    path = plotting.save_figure(data, tmp_path / "roc.svg")
    assert parse(open(path).read()).tagName == "svg"
    assert plotting.figure_bytes(data, "svg") == open(path, "rb").read()
    with pytest.raises(plotting.PlottingUnavailable, match=r'pip install "rankcore\[plot\]"'):
        plotting.save_figure(data, tmp_path / "roc.png")
    with pytest.raises(TypeError, match="FigureData"):
        plotting.render_svg("not a figure")


def test_coinciding_curves_are_named_together_and_drawn_widest_first():
    y, s1, s2 = tied_data(5)
    data = plotting.roc_data({"A": (y, s1), "B": (y, s1.copy()), "C": (y, s2)}, max_fp=10)
    full, left = data.panels
    labels = [s.label for s in full.series if not s.reference]
    assert labels == ["A", "B (= A)", "C"]
    assert [s.label for s in left.series][1].startswith("B (rmax ") and left.series[1].label.endswith("(= A)")
    widths = [s.width for s in full.series if not s.reference]
    assert widths[0] > widths[1] > widths[2]          # the later curves lie on top of the earlier, wider ones
    root = parse(render_svg(data))
    dashes = {line.getAttribute("data-series"): line.getAttribute("stroke-dasharray")
              for line in root.getElementsByTagName("polyline") if line.getAttribute("data-series")}
    assert len({dashes["roc:A"], dashes["roc:B"], dashes["roc:C"]}) == 3


def test_the_zoomed_panel_cuts_a_crossing_tie_on_its_border():
    # a tie group's diagonal crossing max_fp was left out of the panel: a constant model drew one point at (0, 0)
    rng = np.random.default_rng(0)
    y = (rng.random(400) < 0.3).astype(int)
    data = plotting.roc_data({"constant": (y, np.zeros(400)), "coarse": (y, np.round(rng.normal(size=400) + y))},
                             max_fp=20)
    zoom = {s.gid: s for s in data.panels[1].series if not s.reference}
    n_pos, n_neg = int(y.sum()), int(400 - y.sum())
    np.testing.assert_allclose(zoom["roc:constant"].x, [0.0, 20.0])
    np.testing.assert_allclose(zoom["roc:constant"].y, [0.0, 20.0 * n_pos / n_neg], rtol=1e-12)
    assert zoom["roc:coarse"].x[-1] == 20.0


def test_many_models_keep_their_lines_thin_and_names_any_characters():
    # lines stay thin with 40 models, and a control character or a lone surrogate in a name leaves the SVG readable
    import xml.etree.ElementTree as ET

    rng = np.random.default_rng(0)
    y = (rng.random(100) < 0.3).astype(int)
    curves = {f"m{i}": (y, rng.normal(size=100)) for i in range(40)}
    widths = [s.width for s in plotting.roc_data(curves).panels[0].series if not s.reference]
    assert max(widths) - min(widths) <= 4.5 + 1e-12 and widths == sorted(widths, reverse=True)
    few = [s.width for s in plotting.roc_data(dict(list(curves.items())[:3])).panels[0].series if not s.reference]
    np.testing.assert_allclose(np.diff(few), -0.9)                    # a few models: the full step
    for name in ("esc\x1bx", "nul\x00", "sur\udcff", "fffe\ufffe"):
        svg = render_svg(plotting.roc_data({name: curves["m0"]}, title=name))
        ET.fromstring(svg.encode("utf-8"))


@pytest.mark.parametrize("value", [2.5, True, float("nan"), -1, "3"])
def test_figure_counts_are_whole_numbers_named_when_not(value):
    rng = np.random.default_rng(0)
    y = (rng.random(60) < 0.3).astype(int)
    curves = {"m": (y, rng.normal(size=60))}
    with pytest.raises(ValueError, match=r"^max_fp: expected a whole number >= 0"):
        plotting.roc_data(curves, max_fp=value)
    with pytest.raises(ValueError, match=r"^max_k: expected a whole number >= 1"):
        plotting.precision_at_k_data(curves, max_k=value)
    with pytest.raises(ValueError, match=r"^max_k: expected a whole number >= 1"):
        plotting.precision_at_k_curve(y, curves["m"][1], value)


def test_the_zoom_stops_at_the_negatives():
    y = np.array([1, 0, 1, 0, 0, 1, 1, 0])
    data = plotting.roc_data({"m": (y, np.arange(8.0))}, max_fp=10**6)
    assert data.panels[1].xlim == (0, 4) and "at most 4 false positives" in data.panels[1].title


def test_a_series_of_one_point_is_drawn_as_a_dot():
    # an objective of one value (a fit that completed no iteration) drew an empty panel
    import xml.etree.ElementTree as ET

    svg = render_svg(plotting.objective_data({"push": [3.0]}))
    circles = [e for e in ET.fromstring(svg.encode("utf-8")).iter() if e.tag.endswith("circle")]
    assert len(circles) == 1


def test_save_figure_takes_any_case_and_bytes_paths_and_names_a_wrong_figure(tmp_path):
    rng = np.random.default_rng(0)
    y = (rng.random(40) < 0.3).astype(int)
    data = plotting.roc_data({"m": (y, rng.normal(size=40))})
    written = plotting.save_figure(data, os.fsencode(tmp_path / "a.svg"), format="SVG")
    assert written.endswith("a.svg") and (tmp_path / "a.svg").read_bytes() == plotting.figure_bytes(data, "svg")
    with pytest.raises(TypeError, match=r"^fig: expected a rankcore.plotting.FigureData or a matplotlib Figure"):
        plotting.figure_bytes(None, "svg")


def test_an_objective_of_subnormal_values_is_drawn():
    # a span of subnormals stepped no tick (log10 of 0: a math domain error)
    import xml.etree.ElementTree as ET

    for values in ([5e-324, 1e-323], [0.0, 1e-310]):
        ET.fromstring(render_svg(plotting.objective_data({"push": values})).encode("utf-8"))


def test_an_objective_near_the_largest_double_is_drawn_on_finite_ticks():
    # the margins and the span overflowed to ±inf (a ValueError from the ticks), and next to the largest
    # double the ticks' loop bound rounded to inf and never ended
    import xml.etree.ElementTree as ET

    for values in ([1e308, -1e308, 0.0], [-1.79e308, 1.79e308], [1.7e308, 1.79e308]):
        root = ET.fromstring(render_svg(plotting.objective_data({"push": values})).encode("utf-8"))
        ticks = [float(t.text) for t in root.iter("{http://www.w3.org/2000/svg}text")
                 if t.get("class") == "ytick"]
        assert 3 <= len(ticks) <= 16 and all(np.isfinite(ticks)) and ticks == sorted(ticks)
        line = next(root.iter("{http://www.w3.org/2000/svg}polyline")).get("points").split()
        heights = [float(point.split(",")[1]) for point in line]
        assert len(heights) == len(values) and all(np.isfinite(heights))
        assert np.argsort(heights).tolist() == np.argsort(-np.asarray(values)).tolist()   # higher value, higher up


def test_nice_ticks_span_the_whole_double_range():
    ticks, step = nice_ticks(-np.finfo(float).max, np.finfo(float).max, 5)
    assert ticks[0] >= -np.finfo(float).max and ticks[-1] <= np.finfo(float).max and 0.0 in ticks
    assert all(np.isclose(b - a, step) for a, b in zip(ticks[:-1], ticks[1:]))


def test_an_objective_history_given_as_a_tuple_of_two_numbers_is_two_values():
    # a tuple of two numbers is a history of two values; a tuple of two arrays is (iterations, values)
    series = plotting.objective_data({"push": (1.0, 0.5)}).panels[0].series[0]
    assert series.x.tolist() == [0.0, 1.0] and series.y.tolist() == [1.0, 0.5]
    series = plotting.objective_data({"push": ([1, 2], [0.7, 0.6])}).panels[0].series[0]
    assert series.x.tolist() == [1.0, 2.0] and series.y.tolist() == [0.7, 0.6]


def test_roc_bands_match_the_figures_rows_and_replace_their_own():
    rng = np.random.default_rng(0)
    y = (rng.random(80) < 0.3).astype(int)
    curves = {"m": (y, rng.normal(size=80))}
    figure = plotting.roc_data(curves, max_fp=6)
    plotting.add_roc_bands(figure, curves, n_boot=100)
    plotting.add_roc_bands(figure, curves, n_boot=100, level=0.9)      # again: the bands anew, one suffix
    zoom = figure.panels[1]
    assert len(zoom.bands) == 1 and zoom.title.endswith("(at most 6 false positives), 90% bootstrap band")
    with pytest.raises(ValueError, match=r"^curves: 2 row\(s\) of curves, but the figure has 1"):
        plotting.add_roc_bands(figure, {"train": curves, "test": curves}, n_boot=100)   # rows of another figure


def test_precision_at_k_is_drawn_for_labels_of_one_class_and_the_roc_refusal_names_the_curve():
    # precision_at_k_curve reads labels of one class (0 or 1 at every k), but its figure refused them, saying
    # "this metric needs both classes"
    s = np.arange(6.0)
    panel = plotting.precision_at_k_data({"none": (np.zeros(6), s), "all": (np.ones(6), s)}, max_k=4).panels[0]
    lines = {line.gid: line.y for line in panel.series if line.gid}
    np.testing.assert_array_equal(lines["prec@k:none"], np.zeros(4))
    np.testing.assert_array_equal(lines["prec@k:all"], np.ones(4))
    with pytest.raises(ValueError, match="an ROC curve needs both classes"):
        plotting.roc_data({"none": (np.zeros(6), s)})


def test_an_objective_of_few_iterations_has_whole_iteration_ticks():
    # three iterations were ticked 0.0, 0.5, ..., 2.0: "iteration 1.5" does not exist
    import re

    svg = render_svg(plotting.objective_data({"a": [3.0, 2.0, 1.5]}))
    assert re.findall(r'class="xtick">([^<]*)', svg) == ["0", "1", "2"]
    epochs = render_svg(plotting.objective_data({"a": (np.array([0.5, 1.5]), np.array([1.0, 2.0]))}))
    assert "0.75" in re.findall(r'class="xtick">([^<]*)', epochs)          # x not whole: ticks as they fall
