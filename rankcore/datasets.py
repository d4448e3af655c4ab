"""Deprecated alias of :mod:`rankcore.cli.datasets` (the data-file readers of the command line).

The readers moved next to the command line that uses them, split by file
format.  ``import rankcore.datasets`` still works and gives the same names,
with a ``DeprecationWarning``; import :mod:`rankcore.cli.datasets` instead.
"""

import warnings

from .cli.datasets import (  # noqa: F401  (the public names, re-exported)
    DEFAULT_LABEL,
    FORMATS,
    MAX_DENSE_CELLS,
    MAX_LIBSVM_FEATURES,
    MISSING_VALUES,
    DataError,
    Dataset,
    MissingValues,
    __all__,
    detect_format,
    load_data,
)

warnings.warn("rankcore.datasets is deprecated: import rankcore.cli.datasets (the same names)",
              DeprecationWarning, stacklevel=2)
