"""The ``trees`` learner: histogram regression trees (depth-wise, leaf-wise or oblivious) as weak rankers."""
