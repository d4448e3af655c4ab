"""An example third-party rankcore plugin (see ``plugin.py``)."""

__version__ = "0.1.0"
