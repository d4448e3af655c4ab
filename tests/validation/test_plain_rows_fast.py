"""A plain NumPy array of real numbers (a scoring service's rows) is read without the frame and text checks, and
read as before: the same array, the same refusals of everything else."""
import numpy as np
import pytest

from rankcore import _numbers
from rankcore._numbers import as_numeric_array
from rankcore.validation import check_matrix


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int64, np.uint8, np.bool_])
def test_a_plain_array_is_returned_as_it_is_without_the_frame_checks(dtype, monkeypatch):
    calls = []
    for name in ("as_pandas_frame", "refuse_text_columns", "nullable_as_nan"):
        real = getattr(_numbers, name)
        monkeypatch.setattr(_numbers, name, lambda *a, _real=real, **k: calls.append(1) or _real(*a, **k))
    arr = np.arange(6).reshape(2, 3).astype(dtype)
    assert as_numeric_array(arr, "X") is arr
    # before, each of the three ran on every call (each row of a scoring service)
    assert calls == []


def test_other_arrays_take_the_full_path_and_its_refusals():
    with pytest.raises(TypeError, match="complex"):
        as_numeric_array(np.ones((2, 2), dtype=complex), "X")
    with pytest.raises(TypeError, match="dates"):
        as_numeric_array(np.array(["2020-01-01"], dtype="datetime64[D]"), "X")
    with pytest.raises(TypeError, match="expected numbers"):
        as_numeric_array(np.array([["a", "b"]]), "X")
    assert as_numeric_array(np.array([[1, 2.5]], dtype=object), "X").dtype == np.float64
    masked = np.ma.masked_array([[1.0, 2.0]])
    assert type(as_numeric_array(masked, "X")) is np.ndarray     # a subclass: read by np.asarray, as before


def test_check_matrix_still_refuses_what_it_did():
    with pytest.raises(ValueError, match="X"):
        check_matrix(np.array([[1.0, np.nan]]))
    with pytest.raises(ValueError, match="2-D"):
        check_matrix(np.ones(3))
    np.testing.assert_array_equal(check_matrix(np.array([[1, 2]], dtype=np.int64)), [[1.0, 2.0]])
