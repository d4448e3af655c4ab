"""The 'list-recall@k' metric for rankcore (see ``plugin.py`` and ``metric.py``)."""

__version__ = "0.1.0"
