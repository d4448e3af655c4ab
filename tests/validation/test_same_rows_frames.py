"""The recognition of a copy of the training rows (:mod:`rankcore._same_rows`) reads a pandas frame's column types
before its values and its numbers a block of rows at a time: a frame with a category or text column is never turned
into an array of Python objects (gigabytes for 10^6 rows of 50 columns), nor a frame of mixed number types copied
whole, to compare it."""

import tracemalloc

import numpy as np
import pandas as pd

from rankcore import _same_rows


def _peak(function, *args):
    tracemalloc.start()
    try:
        result = function(*args)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _mixed_frame(n, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(n, 8)), columns=[f"x{j}" for j in range(8)])
    frame["count"] = rng.integers(0, 9, size=n)             # int64 beside float64 and float32: mixed types
    frame["x0"] = frame["x0"].astype(np.float32)
    return frame, (rng.random(n) < 0.2).astype(int)


def test_a_frame_with_a_category_column_is_not_made_an_array_of_objects():
    """Before: ~20 MB traced (np.asarray of the frames, one Python object per value), to return None."""
    frame, y = _mixed_frame(40_000)
    frame["shop"] = pd.Categorical(np.where(y > 0, "a", "b"))
    other = frame.copy()
    result, peak = _peak(_same_rows.matching_rows, frame, y, other, y)
    assert result is None and peak < 1 << 20, peak


def test_a_frame_of_mixed_number_types_is_read_by_blocks_and_recognized_shuffled():
    """Before: both frames copied whole as float64 (2 x 16 MB here, 43 MB traced) at once; now a block of rows at a
    time (14 MB)."""
    frame, y = _mixed_frame(200_000)
    order = np.random.default_rng(1).permutation(len(y))
    shuffled, y_shuffled = frame.iloc[order].reset_index(drop=True), y[order]
    lined_up, peak = _peak(_same_rows.matching_rows, frame, y, shuffled, y_shuffled)
    assert lined_up is not None and np.array_equal(_same_rows.rows_in_order_of(order, lined_up), np.arange(len(y)))
    assert peak < 24 << 20, peak
    changed = shuffled.copy()
    changed.loc[7, "count"] += 1
    assert _same_rows.matching_rows(frame, y, changed, y_shuffled) is None


def test_frames_of_nullable_or_text_columns_are_left_unrecognized_without_error():
    frame, y = _mixed_frame(50)
    for column in (pd.array(np.arange(50), dtype="Int64"), np.array(["t"] * 50, dtype=object)):
        other = frame.assign(extra=column)
        assert _same_rows.matching_rows(other, y, other.copy(), y) is None


def test_labels_of_numbers_and_their_text_are_other_labels():
    """Before: y and y.astype(str) were "the same labels" (by their text), so a fit warned of a copy of the
    training data just before refusing the set's text labels."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    assert _same_rows.matching_rows(X, y, X.copy(), y.astype(str)) is None
    assert _same_rows.matching_rows(X, y.astype(str), X.copy(), y.astype(str).astype(object)) is not None
    assert _same_rows.matching_rows(X, y, X.copy(), y.astype(bool)) is not None


def test_a_set_of_the_training_shape_but_other_ranges_is_told_apart_before_any_hash(monkeypatch):
    """Before: both datasets hashed whatever their values (the dearest part, on every validation set of the training
    data's shape); now a column's range or the sorted labels tell most such sets apart at a fraction of the cost."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 4))
    y = (X[:, 0] > 0).astype(int)
    X[5, 2] = np.nan
    order = rng.permutation(60)
    shuffled = X[order].copy()
    shuffled[shuffled == 0] = -0.0

    def hashed(*args):
        raise AssertionError("hashed")

    monkeypatch.setattr(_same_rows, "_row_hashes", hashed)
    other = rng.normal(size=(60, 4))
    assert _same_rows.matching_rows(X, y, other, y) is None
    assert _same_rows.matching_rows(X, y, shuffled, y[order] + 1) is None
    frame = pd.DataFrame(X)
    assert _same_rows.matching_rows(frame, y, frame + 1.0, y) is None
    monkeypatch.undo()
    assert _same_rows.matching_rows(X, y, shuffled, y[order]) is not None
    assert _same_rows.matching_rows(frame, y, pd.DataFrame(shuffled), y[order]) is not None
