"""The 'modified-huber' loss for rankcore (see ``plugin.py`` and ``loss.py``)."""

__version__ = "0.1.0"
