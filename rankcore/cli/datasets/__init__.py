"""Reading labelled data files for the command line: CSV with a header, LIBSVM/svmlight, ``.npy`` and ``.npz``.

:func:`load_data` returns a :class:`Dataset` -- a dense float64 feature
matrix, the raw labels and the feature names -- and turns every problem in a
file into one :class:`DataError` line that names the file and, for text
formats, the line (``data.csv, line 12, column 'age': expected a number, got
'n/a'``).  The command line prints that line and exits with status 2.

Formats (chosen by extension, or by ``fmt=``):

``csv`` (``.csv``, ``.tsv``, ``.txt``, any of them gzipped as ``.gz``)
    A header line, then one row per example.  The delimiter (comma,
    semicolon or tab) is read off the header.  The label is the column named
    ``label`` (default ``"label"``); every other column is a feature unless
    dropped with ``drop=``.  Label values may be numbers or text.  A
    missing feature value -- a field that is empty or one of
    :data:`MISSING_VALUES` (``NA``, ``N/A``, ``NaN``, ``null``, ``None``,
    ``?``, ``-``; any case, surrounding spaces ignored) or any other spelling
    of NaN (``-nan``) -- is read as NaN, for the learners that handle missing
    values (the ``trees`` learner); ``allow_missing=False`` refuses it.
    Infinite values (``inf``, ``1e400``) and a missing or non-finite label
    are always errors.  Feature columns of text are read by category with
    ``categorical=`` (the columns, or ``"auto"``: every column of text;
    :attr:`Dataset.categories`); otherwise text in feature columns is one
    error naming every such column.  ``keep=`` reads columns aside as text
    (an identifier, :attr:`Dataset.kept`); ``qid=`` names the column of the
    rows' query ids (:attr:`Dataset.qid`, text; none may be missing), and
    ``position=`` that of their display positions (:attr:`Dataset.position`,
    integers >= 0; ``fit --position``), and ``init_score=`` that of their
    initial scores (:attr:`Dataset.init_score`, finite numbers;
    ``--init-score``).
``libsvm`` (``.svm``, ``.svmlight``, ``.libsvm``, ``.svm.gz``...; ``.txt``,
``.dat`` or another name when the first line is a LIBSVM row)
    ``label qid:n index:value index:value ... # comment``; ``qid:n`` (an
    integer, on every row or none) is the row's query id
    (:attr:`Dataset.qid`), not a feature; without it, a file of query
    sizes beside the data (``DATA.query``, ``DATA.group``:
    :data:`QUERY_FILE_SUFFIXES`) gives the queries.  Feature k is named
    ``fk``; a file alone spans its indices from 0 when some index is 0,
    else from 1 (as scikit-learn's ``zero_based="auto"``), and a file read
    into given index names (``feature_names=``, a model's or a training
    file's; :func:`index_names`) puts index k in column ``fk``.  A file past
    1 GiB dense (``_libsvm.SPARSE_FROM_BYTES``) and a third nonzero or less
    is kept as a CSR matrix; any other is made dense, so an index above :data:`MAX_LIBSVM_FEATURES` (10**6) is
    refused, and so is a matrix of more than :data:`DENSE_MEMORY_SHARE`
    (half) of the memory available (:func:`available_memory`; 8 GiB,
    :data:`FALLBACK_DENSE_BYTES`, where the system does not say).
``npy``
    A 2-D numeric array; ``label`` is the column index of the label
    (default: the last column).
``npz``
    Arrays ``X`` (2-D) and ``y`` (1-D, key chosen by ``label``), and
    optionally ``feature_names``.  Loaded without pickle.  Either may be
    gzipped (``.npy.gz``, ``.npz.gz``): an array is decompressed as it is
    read, an archive to a temporary file first (disk space for it).

Speed: a clean CSV is read by pandas' C parser when pandas is installed
(NumPy's ``loadtxt`` otherwise, for files of numbers); only a file that
fails there goes through the line-tracking parser that finds and names the
problem (``benchmarks/bench_cli_datasets.py`` measures the three).  pandas
also reads missing values (:data:`MISSING_VALUES` in any case).  pandas
cannot tell a missing value in the *last* column from a short row, so then
the delimiters of every line are counted (a NumPy pass over the bytes); a
file with quotes or lone carriage returns, and unusual spellings
(``' NA '``), go to the checking parser, which reads them too, only slower.

``.npy``/``.npz`` features may hold NaN (missing values) as well; LIBSVM
files cannot (an absent feature is 0 there), so NaN in them is an error.

Labels become a bipartite target with :meth:`Dataset.binary_target`: the
greater of the two labels is the relevant one (``1`` of {0, 1}, ``M`` of
{B, M}), unless ``positive=`` names it -- then every other label is
irrelevant, so a multi-class file can rank one class against the rest.
"""

from ._dataset import DEFAULT_LABEL, FORMATS, MISSING_VALUES, DataError, Dataset, MissingValues, TextColumnsError
from ._column_text import column_text
from ._csv import header_names
from ._labels import same_label
from ._libsvm import (DENSE_MEMORY_SHARE, FALLBACK_DENSE_BYTES, MAX_LIBSVM_FEATURES, available_memory, dense_limit,
                      index_names)
from ._load import check_is_file, detect_content_format, detect_format, libsvm_has_queries, load_data
from ._numpy import npy_shape, npz_array_names, npz_feature_names
from ._oddities import COMMA_ADVICE, other_compression
from ._query_file import QUERY_FILE_SUFFIXES, query_file_of

__all__ = ["DataError", "TextColumnsError", "Dataset", "MissingValues", "load_data", "detect_format",
           "detect_content_format", "FORMATS", "DEFAULT_LABEL",
           "MISSING_VALUES", "MAX_LIBSVM_FEATURES", "DENSE_MEMORY_SHARE", "FALLBACK_DENSE_BYTES",
           "available_memory", "dense_limit", "QUERY_FILE_SUFFIXES", "index_names",
           "query_file_of", "libsvm_has_queries", "header_names", "column_text", "npz_feature_names",
           "npz_array_names", "npy_shape", "check_is_file", "COMMA_ADVICE", "other_compression",
           "same_label"]
