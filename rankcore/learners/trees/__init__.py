"""The ``trees`` learner: histogram regression trees (depth-wise, leaf-wise or oblivious) as weak rankers."""

from ._learner import Trees

__all__ = ["Trees"]
