"""The 'squared-auc' objective for rankcore (see ``plugin.py`` and ``objective.py``)."""

__version__ = "0.1.0"
