"""rankcore.plotting: the plotted points are the metrics' points, files are valid and deterministic."""

import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("matplotlib")

from rankcore import plotting  # noqa: E402
from rankcore.metrics import prec_at_k, rmax, roc_curve  # noqa: E402
from _roc_zoom import assert_zoomed_roc

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def tied_data(seed, n=120, levels=7):
    """Labels and two scorings with many ties (few distinct values)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s1 = rng.integers(0, levels, n).astype(float) + y  # informative, tied
    s2 = rng.normal(size=n)
    return y, s1, s2


def lines_by_gid(ax, prefix):
    return {line.get_gid()[len(prefix):]: line for line in ax.get_lines() if (line.get_gid() or "").startswith(prefix)}


def test_roc_figure_points_equal_roc_curve():
    y, s1, s2 = tied_data(0)
    fig = plotting.roc_figure({"tied": (y, s1), "normal": (y, s2)}, max_fp=6)
    full, left = fig.axes
    for ax, max_fp in ((full, None), (left, 6)):
        lines = lines_by_gid(ax, "roc:")
        assert set(lines) == {"tied", "normal"}
        for name, scores in (("tied", s1), ("normal", s2)):
            assert_zoomed_roc(lines[name].get_xdata(), lines[name].get_ydata(), y, scores, max_fp)
    # the leftmost portion's legend states R_max, the last point with no false positive
    labels = [t.get_text() for t in left.get_legend().get_texts()]
    assert labels == [f"tied (rmax {rmax(y, s1)})", f"normal (rmax {rmax(y, s2)})"]
    assert left.get_xlim() == (0.0, 6.0)


def test_roc_figure_one_row_per_split_with_default_width():
    y, s1, s2 = tied_data(1)
    yt, t1, t2 = tied_data(2, n=60)
    fig = plotting.roc_figure({"train": {"a": (y, s1), "b": (y, s2)}, "test": {"a": (yt, t1), "b": (yt, t2)}})
    assert len(fig.axes) == 4
    test_left = fig.axes[3]
    width = plotting.default_max_fp(int((yt == 0).sum()))
    assert test_left.get_xlim() == (0.0, float(width))
    np.testing.assert_array_equal(lines_by_gid(test_left, "roc:")["b"].get_ydata(), roc_curve(yt, t2, max_fp=width).tp)
    assert "test" in test_left.get_title()


def test_roc_figure_rejects_bad_input():
    with pytest.raises(ValueError, match="non-empty mapping"):
        plotting.roc_figure({})
    with pytest.raises(ValueError, match="pair"):
        plotting.roc_figure({"a": [1, 2, 3]})
    with pytest.raises(ValueError, match="y"):
        plotting.roc_figure({"a": ([0, 2, 1], [0.1, 0.2, 0.3])})


@given(st.integers(0, 10_000), st.integers(2, 60), st.integers(1, 6))
def test_precision_at_k_curve_equals_prec_at_k_for_every_k(seed, n, levels):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    scores = rng.integers(0, levels, n).astype(float)  # heavy ties
    k, values = plotting.precision_at_k_curve(y, scores)
    np.testing.assert_array_equal(k, np.arange(1, n + 1))
    expected = [prec_at_k(y, scores, int(kk)) for kk in k]
    np.testing.assert_allclose(values, expected, rtol=0, atol=1e-12)


def test_precision_at_k_figure_plots_the_curve():
    y, s1, _ = tied_data(3)
    fig = plotting.precision_at_k_figure({"m": (y, s1)}, max_k=40)
    line = lines_by_gid(fig.axes[0], "prec@k:")["m"]
    k, values = plotting.precision_at_k_curve(y, s1, 40)
    np.testing.assert_array_equal(line.get_xdata(), k)
    np.testing.assert_array_equal(line.get_ydata(), values)


def test_objective_figure_one_panel_per_model():
    fig = plotting.objective_figure({"a": [3.0, 2.0, 1.5], "b": (np.array([1, 2]), np.array([0.4, 0.3]))},
                                    xlabel={"b": "epoch"})
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == 2
    a = lines_by_gid(visible[0], "objective:")["a"]
    np.testing.assert_array_equal(a.get_xdata(), [0, 1, 2])
    np.testing.assert_array_equal(a.get_ydata(), [3.0, 2.0, 1.5])
    assert visible[1].get_xlabel() == "epoch"
    with pytest.raises(ValueError, match="differ in length"):
        plotting.objective_figure({"a": ([1, 2, 3], [1.0])})


@pytest.mark.parametrize("fmt", ["png", "svg", "pdf"])
def test_saved_files_are_valid_and_byte_identical(tmp_path, fmt):
    y, s1, s2 = tied_data(4)
    curves = {"train": {"a": (y, s1), "b": (y, s2)}}
    first = plotting.save_figure(plotting.roc_figure(curves, title="t"), tmp_path / f"one.{fmt}")
    fig = plotting.roc_figure(curves, title="t")
    plotting.save_figure(fig, tmp_path / f"two.png")  # an earlier save in another format changes nothing
    second = plotting.save_figure(fig, tmp_path / f"two.{fmt}")
    data = open(first, "rb").read()
    assert data == open(second, "rb").read()
    if fmt == "png":
        assert data.startswith(PNG_MAGIC)
        import matplotlib.image

        image = matplotlib.image.imread(first)
        assert image.shape[0] > 100 and image.shape[1] > 100
    elif fmt == "svg":
        import xml.dom.minidom

        text = data.decode("utf-8")
        assert xml.dom.minidom.parseString(text).documentElement.tagName == "svg"
        assert "<dc:date>" not in text
    else:
        assert data.startswith(b"%PDF") and b"CreationDate" not in data


def test_save_figure_rejects_unknown_formats(tmp_path):
    fig = plotting.objective_figure({"a": [1.0]})
    with pytest.raises(ValueError, match=".png, .svg or .pdf"):
        plotting.save_figure(fig, tmp_path / "x.gif")


def test_missing_matplotlib_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    with pytest.raises(plotting.PlottingUnavailable, match=r'pip install "rankcore\[plot\]"'):
        plotting.roc_figure({"a": ([0, 1], [0.1, 0.2])})
    assert issubclass(plotting.PlottingUnavailable, ImportError)


def test_matplotlib_legends_and_titles_show_every_name_as_written():
    # a name starting with "_" was left out of the legend, and text between two "$" was drawn as mathematics
    y, s1, s2 = tied_data(3)
    names = ["_base", "cost $5 to $10"]
    fig = plotting.roc_figure({names[0]: (y, s1), names[1]: (y, s2)}, title="gain at $1 and $2")
    full, left = fig.axes
    assert [t.get_text() for t in full.get_legend().get_texts()] == names
    texts = [*full.get_legend().get_texts(), *left.get_legend().get_texts(), full.title, full.xaxis.label,
             full.yaxis.label, fig._suptitle]
    assert not any(t.get_parse_math() for t in texts)
    assert [line.get_label() for line in full.get_legend().get_lines()] == names


def test_plot_roc_on_an_axes_of_ones_own_keeps_its_legend_entries():
    from matplotlib.figure import Figure

    y, s1, s2 = tied_data(4)
    ax = Figure().add_subplot()
    ax.plot([0, 10], [0, 10], label="my reference")
    plotting.plot_roc(ax, {"_base": (y, s1), "b": (y, s2)})
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["my reference", "_base", "b"]


def test_plot_roc_twice_on_one_axes_and_an_empty_name_keep_every_name_as_written():
    # the second call's legend was rebuilt from matplotlib's search, which drops the first call's "_base"; an empty
    # name was drawn as matplotlib's own label "_child1" (the SVG writes it empty)
    from matplotlib.figure import Figure

    y, s1, s2 = tied_data(4)
    ax = Figure().add_subplot()
    ax.plot([0, 10], [0, 10], label="my reference")
    plotting.plot_roc(ax, {"_base": (y, s1), "$x$": (y, s2)})
    plotting.plot_roc(ax, {"second": (y, s1)})
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["my reference", "_base", "$x$", "second"]
    fig = plotting.roc_figure({"": (y, s1), "b": (y, s2)})
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["", "b"]


def test_an_objective_of_one_iteration_has_one_whole_tick_in_matplotlib_as_in_the_svg():
    # with fewer than two whole numbers in view matplotlib's integer locator fell back to "-0.06 ... 0.06"
    import re

    from rankcore._figures import render_svg

    data = plotting.objective_data({"a": [3.0]})
    ax = plotting.objective_figure({"a": [3.0]}).axes[0]
    low, high = ax.get_xlim()
    assert [t for t in ax.get_xticks() if low <= t <= high] == [0.0]
    assert re.findall(r'class="xtick">([^<]*)', render_svg(data)) == ["0"]
