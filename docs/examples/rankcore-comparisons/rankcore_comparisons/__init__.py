"""The 'comparisons' learner for rankcore (see ``plugin.py`` and ``learner.py``)."""

__version__ = "0.1.0"
