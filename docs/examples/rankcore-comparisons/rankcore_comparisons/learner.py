"""The 'comparisons' learner: weak rankers that compare two features, h(x) = 1[x_a > x_b].

A learner is a family of weak rankers h: X → [0, 1].  Boosting asks it, each
iteration, for the member h maximizing |Σ_n g_n h(x_n)| for the gradient g of
the objective.  The work is a reduction over blocks of rows, so that it runs
in memory and on Dask alike:

* ``prepare(X)`` fits the family to the training data once (here: which
  comparisons are not constant) and returns a layout;
* ``layout.encode(X_block)`` is what the search reads (here: the rows);
* ``layout.statistics(encoded, g_block)`` gives an array per block that adds
  up over blocks (here: Σ g over the rows where x_a > x_b, one per pair);
* ``layout.select(total)`` picks the best ranker; ``layout.evaluate`` and
  ``ranker.predict`` must agree exactly.
"""

from dataclasses import dataclass

import numpy as np

import rankcore
from rankcore.learners import Candidate, LearnerLayout, WeakRanker


@dataclass(frozen=True)
class ComparisonsRanker(WeakRanker):
    """h(x) = 1[x_a > x_b]: one feature against another (both in the units of the data)."""

    kind = "comparison"     # stored in saved models, read back by ranker_from_state
    values = (0.0, 1.0)     # h takes two values: the exponential push's line search is then exact and cheap
    a: int
    b: int

    # the features the ranker reads (the estimators check them against the data)
    features = property(lambda self: (self.a, self.b))

    def predict(self, X):
        X = np.asarray(X)
        return (X[:, self.a] > X[:, self.b]).astype(np.float64)

    def to_state(self):
        return {"kind": self.kind, "a": self.a, "b": self.b}

    def describe(self, feature_names=None):
        a, b = (f"x{j}" if feature_names is None else feature_names[j] for j in (self.a, self.b))
        return f"1[{a} > {b}]"


class ComparisonsLayout(LearnerLayout):
    """The comparisons that are not constant on the training rows, as (a, b) pairs."""

    def __init__(self, pairs, n_features):
        self.pairs = pairs                                   # (m, 2) int array
        self.n_features = n_features
        self.index = {(int(a), int(b)): j for j, (a, b) in enumerate(pairs)}

    def encode(self, X):
        return np.asarray(X)

    def statistics(self, encoded, gradient, *, n_threads=1):
        out = np.empty(len(self.pairs))
        for a in np.unique(self.pairs[:, 0]):                # one feature against all its partners:
            slots = np.flatnonzero(self.pairs[:, 0] == a)    # O(rows × features) memory at a time
            above = encoded[:, a, None] > encoded[:, self.pairs[slots, 1]]
            out[slots] = gradient @ above
        return out

    def select(self, statistics):
        if len(self.pairs) == 0:
            return None
        j = int(np.argmax(np.abs(statistics)))              # ties: the first pair, a fixed order
        return Candidate(ComparisonsRanker(int(self.pairs[j, 0]), int(self.pairs[j, 1])), float(statistics[j]))

    def evaluate(self, ranker, encoded):
        return ranker.predict(encoded)


class Comparisons(rankcore.Learner):
    """Comparisons of two features, h(x) = 1[x_a > x_b], for every ordered pair a ≠ b."""

    name = "comparisons"

    def prepare(self, X, *, sample_weight=None, thresholds=None, random_state=None, n_threads=1):
        if thresholds is not None:
            raise ValueError(f"learner {self.spec!r} does not use thresholds; leave thresholds=None")
        X = np.asarray(X)
        rows = X if sample_weight is None else X[np.asarray(sample_weight) > 0]
        d = X.shape[1]
        pairs = [(a, b) for a in range(d) for b in range(d) if a != b]
        # a comparison that is the same on every training row cannot rank anything
        live = [(a, b) for a, b in pairs if 0 < np.count_nonzero(rows[:, a] > rows[:, b]) < rows.shape[0]]
        return ComparisonsLayout(np.array(live, dtype=np.int64).reshape(-1, 2), d)

    def ranker_from_state(self, state):
        if state.get("kind") != "comparison" or set(state) != {"kind", "a", "b"}:
            raise ValueError(f"expected a comparison record {{kind, a, b}}, got {sorted(state)}")
        a, b = state["a"], state["b"]
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (a, b)) or a == b:
            raise ValueError(f"comparison ranker: a and b must be two different feature indices, got {a!r}, {b!r}")
        return ComparisonsRanker(a, b)
