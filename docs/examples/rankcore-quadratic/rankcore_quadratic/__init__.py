"""The 'quadratic' price for rankcore (see ``plugin.py`` and ``price.py``)."""

__version__ = "0.1.0"
