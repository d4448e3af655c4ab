"""The 'pairwise-logistic' estimator for rankcore (see ``plugin.py`` and ``estimator.py``)."""

__version__ = "0.1.0"
