"""The :class:`Learner` base class of the ``learner`` plugin family.

A learner is a family of weak rankers h: X → [0, 1].  Boosting asks it, once
per iteration, for the member whose direction best decreases the objective:
given one gradient weight g_n = ∂J/∂f_n per training row, the ranker
maximizing |Σ_n g_n h(x_n)| (the sign of the coefficient is free, so a family
need not contain complements; docs/theory/push.md#coordinate-descent).

The work is split so that it is a **reduction over blocks of rows** -- the
form a distributed backend needs:

1. ``learner.prepare(X, ...)`` fits the family's data-dependent parts (feature
   ranges, thresholds, bin edges) once and returns a :class:`LearnerLayout`;
2. ``layout.encode(X_block)`` turns a block of rows into whatever the search
   reads (bin codes, scaled features), once per fit;
3. every iteration, ``layout.statistics(encoded_block, gradient_block)``
   returns a float64 array per block -- histograms of the gradient per
   feature and bin, or per-feature dot products -- and the arrays of all
   blocks are **added**;
4. ``layout.select(total_statistics)`` picks the best ranker on the client.

Only step 3 touches the rows each iteration.

Multi-pass searches (trees)
---------------------------
A layout with ``multi_pass = True`` searches in **several** reductions per
iteration -- one per split of a tree, or per level -- instead of steps 3-4:

3'. ``search = layout.begin_search()`` starts a search on the client (it
    draws the iteration's random choices: row and feature subsamples);
4'. while ``request = search.next_request()`` is not None, every block
    computes ``layout.block_pass(encoded_block, gradient_block,
    curvature_block, request)`` -- a float64 array (histograms of the nodes
    being split), or None -- the arrays are **added** over the blocks, and
    ``search.receive(total)`` takes the sum (None when every block returned
    None);
5'. ``search.result()`` is the :class:`Candidate` (or None; then
    :meth:`LearnerLayout.no_candidate_reason` says whether a constraint,
    not a zero gradient, left nothing to choose).

The request carries the client's decisions (the split just chosen), so a
block applies them to its own state (which node each row is in, kept in the
encoded block) before computing its part; the request is plain data
(dicts of numbers), so a distributed backend ships it to where the blocks
are.  ``curvature`` is a positive per-row weight: the objective's diagonal
Hessian surrogate, or the sample weights.  A multi-pass layout's
``encode(X_block, offset=...)`` also receives the position of the block's
first row in the training set (per-row random draws must not depend on the
blocks).  A layout declaring ``batched_search`` also takes
``begin_search(batched=True)``: a search that asks for more per pass (work
that may go unused) so as to take fewer passes, for a backend whose passes
are round trips to other machines; its result is the unbatched search's.
A layout declaring ``remote_search`` lets a backend run a whole search where
the blocks are, on a copy of the layout (a backend whose passes are round
trips then waits once per search, not once per pass): the client draws the
iteration's random choices with ``plan = layout.draw_search()`` (plain data;
only the client's generator advances), the copy runs
``begin_search(plan=plan, batched=...)`` and the passes, and the client
hands the copy's ``no_candidate_reason()`` to its own layout with
``layout.adopt_no_candidate_reason(reason)``; the result is the search's
on the client, bit for bit, and its ranker travels pickled.
A layout may offer ``merge_blocks(encoded_blocks)``: one encoded block of
those blocks' rows in order, which a backend holding several blocks in one
place searches instead (one histogram per pass, not one per block).
:func:`multi_pass_search` is the loop for blocks held in memory;
an in-memory backend calls ``layout.search_in_memory(...)``, which is that
loop unless the layout has a faster route to the same result (the trees grow
a tree in one native call).  Single-pass learners are unchanged.

The driver applies the layout's ``shrinkage`` η (default 1) to every step:
f ← f + η·α·h, and records η·α as the coefficient.

Rows that are not in memory (``rankcore.dask``)
-----------------------------------------------
Steps 2-5 already run block by block.  Step 1 is the one place a learner
reads the training matrix whole; a distributed fit calls
:meth:`Learner.prepare_distributed` with a :class:`~rankcore.learners.RowSource`
instead -- ranges, a stated sample, exact quantiles, counts above
thresholds, or any additive reduction of the rows (``rankcore/learners/_rows.py``).
The default gathers every row and calls :meth:`Learner.prepare`, so any
learner runs on Dask unmodified; a learner meant for large data overrides it
with the reductions its preparation needs.  A layout may also declare
``threshold_histograms`` (its statistics are per-bin histograms of threshold
rankers), which lets a backend compute them per class and derive the line
search of the winner from them without another pass over the rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Mapping

import numpy as np

from ..spec import Component

__all__ = ["Learner", "LearnerLayout", "WeakRanker", "Candidate", "multi_pass_search"]


class WeakRanker:
    """One weak ranker h: X → [0, 1] (on the training data), as chosen by boosting.

    Subclasses are small immutable records.  They implement :meth:`predict`
    on raw feature matrices, :meth:`to_state` for saving, and set
    :attr:`values` when h takes finitely many values.

    Attributes
    ----------
    kind : str
        A short name identifying the ranker type inside its learner
        (``"threshold"``, ``"feature"``), stored in saved models.
    values : tuple of float or None
        The values h can take, ascending (``(0.0, 1.0)`` for threshold
        rankers), or None for real-valued rankers.  Lets the exponential push
        objective compress the line search to a few numbers per block.
    """

    kind: ClassVar[str] = ""
    values: ClassVar[tuple[float, ...] | None] = None

    @property
    def features(self) -> tuple[int, ...]:
        """Indices of the features the ranker reads (for validation)."""
        raise NotImplementedError

    def predict(self, X: np.ndarray) -> np.ndarray:
        """h(x) for each row of a validated 2-D array; float64 of shape (n,)."""
        raise NotImplementedError

    def to_state(self) -> dict:
        """JSON-compatible record (numbers, strings) including ``"kind"``."""
        raise NotImplementedError

    def describe(self, feature_names: Any = None) -> str:
        """One line for humans, e.g. ``1[x3 > 0.25]``."""
        return repr(self)


@dataclass(frozen=True)
class Candidate:
    """The winner of one weak-ranker search.

    Attributes
    ----------
    ranker : WeakRanker
    derivative : float
        Σ_n g_n h(x_n), the objective's directional derivative along h at α = 0.
    """

    ranker: WeakRanker
    derivative: float


class LearnerLayout:
    """A learner prepared on one training set: encodes rows, searches, evaluates.

    Returned by :meth:`Learner.prepare`.  The driver calls, per fit,
    :meth:`encode` once for each block of rows and then, per iteration,
    :meth:`statistics` per block, :meth:`select` once on the summed
    statistics, and :meth:`evaluate` per block to update the scores.

    Contract: ``evaluate(ranker, encode(X))`` equals ``ranker.predict(X)``
    **exactly** (the training scores and ``decision_function`` agree), the
    statistics of a block are additive over any split of its rows, and
    :meth:`select` maximizes |Σ_n g_n h(x_n)| over the family, breaking exact
    ties by the family's fixed candidate order.
    """

    n_features: int
    #: The search takes several reductions (see "Multi-pass searches" in the module doc).
    multi_pass: ClassVar[bool] = False
    #: ``begin_search(batched=True)`` gives the same result in fewer passes (see "Multi-pass searches").
    batched_search: ClassVar[bool] = False
    #: ``draw_search()`` and ``begin_search(plan=...)``: the search may run on a copy of the layout
    #: where the blocks are (see "Multi-pass searches").
    remote_search: ClassVar[bool] = False
    #: The driver's step is multiplied by this (the trees' learning rate).
    shrinkage: float = 1.0
    #: The candidate's derivative sums Σ g h over a random sample of the rows
    #: (the trees' ``subsample`` < 1) or with random row weights (their
    #: ``bagging_temperature`` > 0), not over every row: an estimate, which the
    #: driver only uses to stop when it is about zero (its line search evaluates
    #: the ranker on every row).
    sampled_derivative: bool = False
    #: The curvature of one row of unit curvature in the objective's scale (``rankcore.objectives.curvature_unit``),
    #: set by the driver at the start of a fit; 0: the objective declares none.  The trees' ``min_child_weight``
    #: floor never falls below that many such rows.
    curvature_unit: float = 0.0
    #: ``evaluate(ranker, encoded, out=buffer)`` writes h into a float64 buffer of the
    #: block's length (and returns it): a backend then allocates nothing per iteration.
    evaluates_into: ClassVar[bool] = False
    #: Declares the binned threshold form: ``encode`` returns (d, n) integer bin codes below
    #: ``n_bins``; ``statistics(codes, g)`` is the (d, n_bins) histogram of g by feature and code;
    #: every ranker is 1[code of ``ranker.feature`` > ``bin_of(ranker)``] with ``values`` (0, 1).
    #: A backend may then build the histograms itself (per class, ``rankcore.dask``'s one round
    #: trip per iteration) and read any candidate's line sums off them.
    threshold_histograms: ClassVar[bool] = False

    def encode(self, X: np.ndarray) -> Any:
        """The block representation the search reads (any object)."""
        raise NotImplementedError

    def statistics(self, encoded: Any, gradient: np.ndarray, *, n_threads: int = 1) -> np.ndarray:
        """Per-block sufficient statistics of the gradient, additive over blocks."""
        raise NotImplementedError

    def select(self, statistics: np.ndarray) -> Candidate | None:
        """The best weak ranker for the summed statistics (None if every candidate is constant)."""
        raise NotImplementedError

    def evaluate(self, ranker: WeakRanker, encoded: Any) -> np.ndarray:
        """h on the encoded rows (float64, exactly ``ranker.predict`` of the raw rows)."""
        raise NotImplementedError

    def value_index(self, ranker: WeakRanker, encoded: Any) -> np.ndarray | None:
        """Each row's position in ``ranker.values`` (uint8), if the last :meth:`evaluate` recorded it; else None.

        Optional: an objective's line summary groups the rows by their value of
        h, and a layout that knows each row's group while evaluating (a tree
        grown in memory knows each row's leaf) saves it the search for h's
        value.  The summary is the same either way, bit for bit.
        """
        return None

    def search_in_memory(self, encoded: list, gradients: list, curvatures: list, *,
                         n_threads: int = 1) -> Candidate | None:
        """A multi-pass layout's search over blocks held in memory (:func:`multi_pass_search`).

        A layout may grow its ranker in one native call instead when it can
        (the trees do for one block); the result must equal the multi-pass
        protocol's bit for bit.
        """
        return multi_pass_search(self, encoded, gradients, curvatures, n_threads=n_threads)

    def adopt_no_candidate_reason(self, reason: str | None) -> None:
        """Take the :meth:`no_candidate_reason` of a search run on a copy of this layout (``remote_search``)."""

    def no_candidate_reason(self) -> str | None:
        """Why the last search found no weak ranker, when the family's constraints are the cause.

        A search returns None either because nothing is left to fit (a zero
        gradient: the driver reports ``"converged"``) or because no member of
        the family can be formed on these rows -- every feature constant, too
        few rows for a tree's leaves.  For the latter, return one sentence
        saying which constraint blocked and what to change: the driver stops
        with ``stop_reason_ = "no_split"`` and a ``UserWarning`` carrying it.
        None (the default): the driver reports ``"no_split"`` only when the
        model would be constant (no iteration yet).
        """
        return None

    def stalled_reason(self, ranker: "WeakRanker", derivative: float | None = None,
                       tol: float | None = None) -> str | None:
        """Why the fit ends on ``ranker`` (the iteration's best) when a setting of the family, not convergence, left
        its step no effect.

        The driver asks when it would stop as converged: the ranker's
        ``derivative`` is within ``tol``, or (both None) no step along it
        lowers the objective.  A family whose settings can cause that --
        the trees' cap ``max_delta_step``, which clamps every leaf value
        the ranker moves the scores by -- returns one sentence naming the
        setting and what to change: the driver then stops with
        ``stop_reason_ = "no_split"`` and a ``UserWarning`` carrying it.
        None (the default): the fit converged.  Never changes the model.
        On the ``tol`` rule, a layout with a context manager
        ``without_stalling_setting()`` (the trees') is also asked for the
        ranker the fit without the setting would take from the same scores:
        the setting is named only when that ranker's derivative is beyond
        ``tol`` (else the fit without it stops there too).
        """
        return None


class Learner(Component):
    """Base class of the ``learner`` plugin family: a family of weak rankers.

    A subclass implements :meth:`prepare` (returning a :class:`LearnerLayout`)
    and :meth:`ranker_from_state` (rebuilding its :class:`WeakRanker` records
    from saved models).  See the module documentation for the block-reduction
    protocol and :class:`LearnerLayout` for the exactness contract.  The
    contract checks (``rankcore.testing.check_component("learner", spec)``)
    verify it on random data: exact ``evaluate``/``predict`` agreement,
    additivity over row splits, and that ``select`` returns the best
    candidate against a brute-force search over the family.

    Attributes
    ----------
    allow_nan : bool
        The learner handles missing values (NaN) in X.
    bounded : bool
        Its rankers take values in [0, 1] on the training data.
    uses_thresholds : bool
        The family is made of threshold rankers 1[x_j > t] whose candidate
        thresholds can be given per feature (the estimators' ``thresholds``
        parameter; e.g. the bin edges shared with a distributed fit).
    default_price : str
        The price the push estimators use with this learner when the user
        gives none (``price=None``): ``"pow:4"``, or what suits the family.
    accept_sparse : bool
        It takes ``scipy.sparse`` input without making it dense.
    accept_categorical : bool
        Its ``prepare`` takes ``categorical_features=`` (see above).
    newton_leaves : bool
        Each weak ranker is a Newton step of the objective on its own: the
        ranker's values are −Σg/Σh over the rows it groups (trees).  An
        objective without a value (``lambdarank``) needs such a learner: the
        driver then adds each ranker with α = 1 (times the shrinkage).
    """

    family: ClassVar[str] = "learner"
    uses_thresholds: ClassVar[bool] = False
    #: The push estimators' price when ``price=None`` (see PushBoost).
    default_price: ClassVar[str] = "pow:4"
    #: The learner handles NaN in X (the estimators then accept missing values).
    allow_nan: ClassVar[bool] = False
    #: Its rankers take values in [0, 1] on the training data (False: real-valued, e.g. tree leaves).
    bounded: ClassVar[bool] = True
    #: Large-data settings: when ``early_stopping="auto"`` switches on (more than 10,000
    #: training rows, validated on a hold-out), the push estimators set these spec
    #: parameters unless the learner spec gives them, and boost up to
    #: ``large_data_n_iter`` iterations unless ``n_iter`` is given (None: the usual 100).
    large_data_params: ClassVar[Mapping[str, Any]] = MappingProxyType({})
    large_data_n_iter: ClassVar[int | None] = None
    #: ``prepare``, ``encode`` and its rankers' ``predict`` take a ``scipy.sparse`` CSR matrix (never made dense).
    accept_sparse: ClassVar[bool] = False
    #: ``prepare`` takes ``categorical_features=`` (column indices split by category groups); the
    #: estimators then pass a DataFrame's ``category`` columns as such.
    accept_categorical: ClassVar[bool] = False
    #: Its rankers' values are Newton steps −Σg/Σh (an objective without a value can be fitted).
    newton_leaves: ClassVar[bool] = False
    #: ``prepare`` and its layout's ``encode`` take a ``rankcore._taken_rows.TakenRows`` (some rows of a dense X
    #: by index, read in blocks): the early-stopping hold-out then does not copy the training rows.
    takes_row_index: ClassVar[bool] = False

    def prepare(
        self,
        X: np.ndarray,
        *,
        sample_weight: np.ndarray | None = None,
        thresholds: Any = None,
        random_state: Any = None,
        n_threads: int = 1,
    ) -> LearnerLayout:
        """Fit the family's data-dependent parts on the training matrix.

        Parameters
        ----------
        X : ndarray of shape (n, d), float32 or float64, finite
        sample_weight : ndarray or None
            Rows of zero weight are ignored when fitting ranges and thresholds.
        thresholds : list of array-like or None
            Per-feature candidate thresholds (only for ``uses_thresholds``
            learners; others raise ``ValueError`` when given some).
        random_state : None, int or numpy Generator
            For any sampling the learner does (e.g. the bin-edge sample).
        n_threads : int
        """
        raise NotImplementedError(f"learner {self.spec!r} must implement prepare(X, ...)")

    def prepare_distributed(self, rows: Any, *, thresholds: Any = None, random_state: Any = None,
                            n_threads: int = 1) -> LearnerLayout:
        """:meth:`prepare` for rows held elsewhere (``rankcore.dask``), read through a :class:`RowSource`.

        Must build the layout ``prepare`` builds from the same rows.  The
        default gathers every row (``rows.gather()``: O(n·d) memory on the
        caller, once per fit) and calls :meth:`prepare`, which is correct for
        any learner; override it with the reductions the preparation needs
        (``rows.ranges()``, ``rows.sample(...)``, ``rows.quantiles(q)``,
        ``rows.count_above(...)``, ``rows.reduce(func)``) so that large data
        never comes to one machine.

        Parameters
        ----------
        rows : RowSource
        thresholds, random_state, n_threads
            As in :meth:`prepare`.
        """
        X, w = rows.gather()
        return self.prepare(X, sample_weight=w, thresholds=thresholds, random_state=random_state,
                            n_threads=n_threads)

    def distributed_sample(self, *, thresholds: Any = None) -> int | None:
        """The ``subsample`` that :meth:`prepare_distributed` first asks of ``rows.sample``, or None.

        A declaration, read before the rows are summarized: a row source that
        knows it can draw that sample in its first pass over the data (the
        validating summary) instead of a pass of its own.  None (the default)
        when the preparation asks no sample with these ``thresholds``, or asks
        every row (``subsample=None``).  A wrong declaration costs a pass, never
        the result: the row source serves a prefetched sample only to the same
        request.
        """
        return None

    def ranker_from_state(self, state: dict) -> WeakRanker:
        """Rebuild a :class:`WeakRanker` from :meth:`WeakRanker.to_state` (validate it)."""
        raise NotImplementedError(f"learner {self.spec!r} cannot restore saved rankers")


def multi_pass_search(layout: LearnerLayout, encoded: list, gradients: list, curvatures: list, *,
                      n_threads: int = 1) -> Candidate | None:
    """Run a multi-pass layout's search over blocks held in memory.

    Each pass sends the search's request to every block in order and adds
    the blocks' arrays in that order (a fixed order: the result does not
    depend on threads, only -- through rounding -- on the block sizes).
    """
    search = layout.begin_search()
    while (request := search.next_request()) is not None:
        total = None
        for enc, g, h in zip(encoded, gradients, curvatures):
            part = layout.block_pass(enc, g, h, request, n_threads=n_threads)
            if part is not None:
                total = part if total is None else total + part
        search.receive(total)
    return search.result()
