"""A clean LIBSVM text read in one compiled pass; anything else is left to the line-by-line parser, which names it.

:func:`scan_clean` reads rows of the strict form ``label [qid:n] index:value
... [# comment]`` -- ASCII, numbers as ``[+-]digits[.digits][e[+-]digits]``,
indices increasing, a ``qid:`` on every row or none, finite values, lines
ending in ``\\n`` or ``\\r\\n`` -- and returns exactly what the checking parser
(:func:`rankcore.cli.datasets._libsvm._parse_checking`) returns for them: the
numbers go through ``PyOS_string_to_double``, the conversion of Python's own
``float()``, so every value is the same double.  At the first byte outside
that form it returns None, and the caller parses the file again line by line,
which reads what Python reads (``1_0``, ``+1:`` indices, other whitespace) or
raises the error that names the line.  The reference is that parser: the tests
compare the two on random files with every fault.

Time O(bytes) with the GIL held (one pass to size the arrays, one to fill
them); memory the file's bytes plus 16 bytes per stored value (int32 row and column indices, while they fit: up
to 2**31 - 1 values) and 24 per row.
"""

import numpy as np

cimport numpy as cnp
from cpython.object cimport PyObject
from libc.stdint cimport int32_t, int64_t

cnp.import_array()

cdef extern from "Python.h":
    double PyOS_string_to_double(const char *s, char **endptr, PyObject *overflow_exception) except? -1.0

cdef extern from "math.h":
    bint isfinite(double x) nogil


cdef inline bint _digit(unsigned char c) noexcept nogil:
    return 48 <= c <= 57


cdef inline bint _space(unsigned char c) noexcept nogil:
    return c == 32 or c == 9


cdef inline bint _ends_field(unsigned char c, const unsigned char *b, Py_ssize_t i) noexcept nogil:
    """A field may end here: a space or tab, a comment, the end of the line (``\\n``, ``\\r\\n``) or of the text."""
    return c == 32 or c == 9 or c == 35 or c == 10 or c == 0 or (c == 13 and b[i + 1] == 10)


cdef Py_ssize_t _rest_of_line(const unsigned char *b, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    """``i``, or past a comment that starts there to its line's end (the ``\\n``, or ``n``); -1 at a byte of the
    comment the scan does not vouch for (non-ASCII, NUL, a lone carriage return)."""
    if b[i] != 35:
        return i
    while i < n and b[i] != 10:
        if b[i] >= 128 or b[i] == 0 or (b[i] == 13 and b[i + 1] != 10):
            return -1
        i += 1
    return i


cdef inline Py_ssize_t _after_line_end(const unsigned char *b, Py_ssize_t i) noexcept nogil:
    """Past a line's end (``\\n`` or ``\\r\\n``) at ``i``, or ``i`` when there is none."""
    if b[i] == 13 and b[i + 1] == 10:
        return i + 2
    return i + 1 if b[i] == 10 else i


cdef Py_ssize_t _end_of_line(const unsigned char *b, Py_ssize_t i, Py_ssize_t n, bint *passed) noexcept nogil:
    """Past an optional comment and the line's end at ``i`` (``passed`` set), or where something else starts
    (``passed`` unset); -1 at a comment byte the scan does not vouch for."""
    i = _rest_of_line(b, i, n)
    if i < 0:
        return -1
    cdef Py_ssize_t j = _after_line_end(b, i)
    passed[0] = j != i
    return j


cdef inline Py_ssize_t _digits_end(const unsigned char *b, Py_ssize_t i) noexcept nogil:
    """Past the run of decimal digits at ``i`` (``i`` itself when there is none)."""
    while _digit(b[i]):
        i += 1
    return i


cdef inline Py_ssize_t _past_sign(const unsigned char *b, Py_ssize_t i) noexcept nogil:
    return i + 1 if b[i] == 43 or b[i] == 45 else i


cdef Py_ssize_t _number_end(const unsigned char *b, Py_ssize_t i) noexcept nogil:
    """The end of a number ``[+-]digits[.digits][e[+-]digits]`` (a digit on one side of the point) at ``i``,
    or -1."""
    cdef Py_ssize_t start = _past_sign(b, i)
    cdef Py_ssize_t j = _digits_end(b, start)
    cdef Py_ssize_t digits = j - start
    if b[j] == 46:
        start = j + 1
        j = _digits_end(b, start)
        digits += j - start
    if digits == 0:
        return -1
    if b[j] == 101 or b[j] == 69:
        start = _past_sign(b, j + 1)
        j = _digits_end(b, start)
        if j == start:
            return -1
    return j


def scan_clean(const unsigned char[::1] text, int64_t max_index, int64_t narrow_limit=2**31 - 1):
    """``(labels, lines, qids, rows, cols, vals)`` of a clean LIBSVM text, or None.

    Parameters
    ----------
    text : bytes
        The file's bytes followed by one NUL byte (the scan's sentinel; a
        NUL anywhere else is not clean).
    max_index : int
        The largest feature index read (a larger one is not clean: the
        checking parser names it).
    narrow_limit : int, default 2**31 - 1
        ``rows`` and ``cols`` are int32 when the values, the lines and
        ``max_index`` are at most this many (int32's largest), else int64.

    Notes
    -----
    O(b) time for b bytes (one pass to count the lines and colons, one to parse), with the GIL held;
    O(lines + colons) memory: 24 bytes per line and 16 per ``:`` of the text (24 past ``narrow_limit``), the
    output arrays.
    """
    cdef Py_ssize_t n = text.shape[0] - 1
    cdef const unsigned char *b = &text[0]
    cdef Py_ssize_t i, j, k, start, n_lines = 1, n_colons = 0
    if n < 0 or b[n] != 0:
        return None
    for i in range(n):
        if b[i] == 10:
            n_lines += 1
        elif b[i] == 58:
            n_colons += 1
    labels_arr = np.empty(n_lines, dtype=np.float64)
    lines_arr = np.empty(n_lines, dtype=np.int64)
    qids_arr = np.empty(n_lines, dtype=np.int64)
    # the stored values' row and column indices: 4 bytes each while they fit (the arrays are most of the memory)
    cdef bint wide = n_colons > narrow_limit or n_lines > narrow_limit or max_index > narrow_limit
    rows_arr = np.empty(n_colons, dtype=np.int64 if wide else np.int32)
    cols_arr = np.empty(n_colons, dtype=np.int64 if wide else np.int32)
    vals_arr = np.empty(n_colons, dtype=np.float64)
    cdef double[::1] labels = labels_arr
    cdef int64_t[::1] lines = lines_arr, qids = qids_arr
    cdef int64_t[::1] rows64 = rows_arr if wide else np.empty(0, dtype=np.int64)
    cdef int64_t[::1] cols64 = cols_arr if wide else np.empty(0, dtype=np.int64)
    cdef int32_t[::1] rows32 = np.empty(0, dtype=np.int32) if wide else rows_arr
    cdef int32_t[::1] cols32 = np.empty(0, dtype=np.int32) if wide else cols_arr
    cdef double[::1] vals = vals_arr
    cdef Py_ssize_t n_rows = 0, n_vals = 0
    cdef int64_t line = 1, index, previous, qid
    cdef int has_qid = -1                     # unknown until the first row
    cdef bint row_qid, passed = False
    cdef double value
    cdef char *end
    i = 3 if n >= 3 and b[0] == 0xEF and b[1] == 0xBB and b[2] == 0xBF else 0
    while i < n:
        # one line: skip its leading blanks; a blank or comment line holds no row
        while _space(b[i]):
            i += 1
        i = _end_of_line(b, i, n, &passed)
        if i < 0:
            return None
        if passed:
            line += 1
            continue
        if i >= n:
            break
        # the label
        j = _number_end(b, i)
        if j < 0 or not _ends_field(b[j], b, j):
            return None
        value = PyOS_string_to_double(<const char *>(b + i), &end, NULL)
        if <const unsigned char *>end != b + j or not isfinite(value):
            return None
        labels[n_rows] = value
        lines[n_rows] = line
        i = j
        row_qid = False
        previous = -1
        while True:
            while _space(b[i]):
                i += 1
            if b[i] == 35 or b[i] == 10 or b[i] == 0 or b[i] == 13:
                break
            if previous < 0 and not row_qid and b[i] == 113 and b[i + 1] == 105 and b[i + 2] == 100 \
                    and b[i + 3] == 58:
                # qid:n, an integer of at most 18 digits, first after the label
                k = i + 4
                start = k + 1 if b[k] == 43 or b[k] == 45 else k
                j = start
                qid = 0
                while _digit(b[j]):
                    qid = qid * 10 + (b[j] - 48)
                    j += 1
                if j == start or j - start > 18 or not _ends_field(b[j], b, j):
                    return None
                qids[n_rows] = -qid if b[k] == 45 else qid
                row_qid = True
                i = j
                continue
            # index:value, the index a plain integer above the previous one
            index = 0
            j = i
            while _digit(b[j]):
                index = index * 10 + (b[j] - 48)
                if index > max_index:
                    return None
                j += 1
            if j == i or b[j] != 58 or index <= previous:
                return None
            k = _number_end(b, j + 1)
            if k < 0 or not _ends_field(b[k], b, k):
                return None
            value = PyOS_string_to_double(<const char *>(b + j + 1), &end, NULL)
            if <const unsigned char *>end != b + k or not isfinite(value):
                return None
            if wide:
                rows64[n_vals] = n_rows
                cols64[n_vals] = index
            else:
                rows32[n_vals] = <int32_t>n_rows
                cols32[n_vals] = <int32_t>index
            vals[n_vals] = value
            n_vals += 1
            previous = index
            i = k
        if has_qid < 0:
            has_qid = row_qid
        elif has_qid != row_qid:
            return None
        n_rows += 1
        # the rest of the line: a comment (ASCII), then its end, or the end of the text
        i = _end_of_line(b, i, n, &passed)
        if i < 0 or not (passed or i >= n):
            return None
        line += passed
    if n_rows == 0:
        return None
    return (labels_arr[:n_rows], lines_arr[:n_rows], qids_arr[:n_rows] if has_qid == 1 else qids_arr[:0],
            rows_arr[:n_vals], cols_arr[:n_vals], vals_arr[:n_vals])
