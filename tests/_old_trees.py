"""Test-only learner plugin: trees written before ``groups`` (their explanation methods take a background, no groups).

Shared by the in-memory and Dask tests of the clear TypeError such a plugin gets; a module-level class, so that
Dask workers can import it by reference.
"""

from rankcore.learners.trees._learner import Trees


class OldTrees(Trees):
    """A plugin's trees written before ``groups``: its methods take a background but no groups."""

    name = "old-trees"
    aliases = ()

    @staticmethod
    def contributions(rankers, alphas, X, n_threads=1, background=None):
        return Trees.contributions(rankers, alphas, X, n_threads, background=background)

    @staticmethod
    def interaction_values(rankers, alphas, X, n_threads=1, max_bytes=None, background=None):
        return Trees.interaction_values(rankers, alphas, X, n_threads, max_bytes, background=background)
