"""Query ids given as text (a list, a pandas column, an object array of str) are grouped by hashing, with the
labels, codes and sizes of the row-by-row reading; Arrow nulls are said as missing ids; rankcore.dask's hint."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankcore.metrics import _queries, check_qid

pd = pytest.importorskip("pandas")

texts = st.lists(st.text(alphabet=st.sampled_from(["a", "b", "\x00", "é", "\ud800", "Z", "1", " "]), max_size=4),
                 min_size=1, max_size=40)


def row_by_row(values):
    """The queries as the row-by-row reading gives them: the distinct ids sorted, each row's index among them."""
    labels = sorted(set(values))
    where = {v: i for i, v in enumerate(labels)}
    codes = np.array([where[v] for v in values], dtype=np.int64)
    return labels, codes, np.bincount(codes, minlength=len(labels))


def assert_same(queries, values):
    labels, codes, sizes = row_by_row(values)
    assert queries.labels.tolist() == labels
    np.testing.assert_array_equal(queries.codes, codes)
    np.testing.assert_array_equal(queries.sizes, sizes)


@settings(max_examples=150, deadline=None)
@given(texts)
def test_text_ids_group_as_row_by_row(values):
    as_objects = np.empty(len(values), dtype=object)
    as_objects[:] = values
    for given_as in (values, as_objects, pd.Series(as_objects, dtype=object)):
        assert_same(check_qid(given_as, len(values)), values)


@settings(max_examples=60, deadline=None)
@given(texts)
def test_text_ids_equal_the_loop_over_rows(values):
    # the hashing path (pandas) against the loop over rows it skips, on the same object array
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    fast = check_qid(arr, len(values))
    original = _queries._text_ids
    _queries._text_ids = lambda arr: None
    try:
        slow = check_qid(arr, len(values))
    finally:
        _queries._text_ids = original
    assert fast.labels.dtype == slow.labels.dtype == object
    assert fast.labels.tolist() == slow.labels.tolist()
    np.testing.assert_array_equal(fast.codes, slow.codes)
    np.testing.assert_array_equal(fast.sizes, slow.sizes)


def test_a_trailing_nul_makes_another_query():
    # NumPy's text drops a trailing "\x00": "a" and "a\x00" were one query when given as a list or a column
    for given_as in (["a", "a\x00", "b"], pd.Series(["a", "a\x00", "b"], dtype=object)):
        queries = check_qid(given_as, 3)
        assert queries.labels.tolist() == ["a", "a\x00", "b"]
        np.testing.assert_array_equal(queries.sizes, [1, 1, 1])


def test_text_labels_keep_their_numpy_type():
    assert check_qid(["b", "a", "b"], 3).labels.dtype.kind == "U"
    assert check_qid(pd.Series(["b", "a", "b"]), 3).labels.dtype.kind == "U"
    assert check_qid(np.array(["b", "a"], dtype=object), 2).labels.dtype == object


@pytest.mark.parametrize("values, said", [
    (["a", None, "b"], "got None at row 1"),
    (np.array(["a", "b", float("nan")], dtype=object), "got nan at row 2"),
])
def test_missing_text_ids_are_refused_with_their_row(values, said):
    with pytest.raises(ValueError, match=said):
        check_qid(values, 3)


def test_text_beside_numbers_is_refused():
    with pytest.raises(TypeError, match="mix numbers and text"):
        check_qid(np.array(["a", 5, "a"], dtype=object), 3)


def test_tuples_and_large_integers_stay_exact():
    assert check_qid([("a", 1), ("a", 1), ("b", 0)], 3).labels.tolist() == [("a", 1), ("b", 0)]
    big = [2**60 + 1, 2**60, 0.5]
    assert check_qid(big, 3).n_queries == 3


def test_arrow_null_is_said_missing():
    pa = pytest.importorskip("pyarrow")
    for ids, row in ((pa.array([None, 1, 2]), 0), (pa.array(["a", None]), 1), (pa.chunked_array([[1, 2], [None]]), 2)):
        with pytest.raises(ValueError, match=rf"a missing \(null\) id at row {row}$"):
            check_qid(ids, len(ids))


def test_rankcore_dask_says_how_to_import_it():
    code = ("import rankcore\ntry:\n    rankcore.dask\nexcept AttributeError as e:\n    print(e)\n"
            "import rankcore.dask\nprint(rankcore.dask.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "import rankcore.dask" in out and out.strip().endswith("rankcore.dask")


def test_rankcore_dask_without_dask_says_the_extra(monkeypatch):
    import importlib.util

    import rankcore
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "dask" else real(name, *a))
    assert 'pip install "rankcore[dask]"' in rankcore._dask_hint()
