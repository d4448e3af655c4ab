"""The 'cauchy' kernel for rankcore (see ``plugin.py`` and ``kernel.py``)."""

__version__ = "0.1.0"
