"""The 'softcut' filter for rankcore (see ``plugin.py`` and ``filter.py``)."""

__version__ = "0.1.0"
