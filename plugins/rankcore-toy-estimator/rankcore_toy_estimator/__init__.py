"""An example third-party rankcore estimator (see README.md)."""

from .ranker import CentroidRanker

__all__ = ["CentroidRanker"]
