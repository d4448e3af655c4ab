"""Dask estimators of the push family: DaskPushBoost, DaskPNormPush, DaskRankBoost.

Each is its in-memory estimator (:class:`rankcore.PushBoost`, ...) with one
more parameter, ``client``, and a ``fit`` that runs the same driver on a
:mod:`Dask backend <rankcore.dask._backend>`: the training rows stay on the
workers, chunk by chunk.  The fitted model is the same list of
(weak ranker, coefficient) pairs; ``decision_function`` of a Dask collection
is a lazy Dask array computed chunk by chunk on the workers, and
:meth:`~_DaskBoost.to_local` returns the in-memory estimator with the same
parameters and fitted state (for ``rankcore.save_model``, pickling-free
deployment, or scoring NumPy arrays).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._caller import outside_stacklevel
from .._threadsafe import fits_on_a_copy
from ..base import Fitted
from ..objectives import curvature_unit, require_curvature
from ..push import (ATTRIBUTES_DOC, AUTO_MIN_ROWS, NO_VALIDATION, EarlyStopping, PNormPush, PushBoost, RankBoost,
                    Validation, check_callbacks, check_some_query_ranks,
                    check_tie_break_scale, columns_named, learner_with_column_names,
                    names_peer_fit_arguments, prepend_init_model,
                    plan_validation, read_eval_sets, refuse_click_model, refuse_positions_without_queries,
                    resolve_early_stopping, say, searches_from_start, warn_sparse_places, eval_set_stopping)
from ..spec import Kind, Parameter
from ..validation import ArgumentRefusal, check_eval_columns, check_learner_matrix, fit_seed, said_again
from ._client import ClientParameter
from ._click_model import fit_click_model_on_dask
from ._explain import DaskExplanations
from ._backend import backend_kind, make_backend, pairwise_trees_refusal
from ._init_models import one_list_grades, read_dask_init_model, start_scores
from ._init_scores import init_vector, local_scores
from ._categories import frame_category_columns, names_a_column
from ._inputs import as_row_chunks, get_client, warn_small_chunks
from ._prepare import DaskRows, summarize
from ._predictions import DaskPredictions, local_copy, local_ids
from ._placement import PLACEMENTS, choose_placement, fit_on_one_worker, named_warnings, searches_in_passes
from ._positions import PlaceEffects, position_vector, survey_positions
from ._queries import place_queries, query_vector, survey_queries
from ._shard import block_problem, check_components_on_workers, placeholder_labels, start_shards
from ._workers import worker_info

__all__ = ["DaskPushBoost", "DaskPNormPush", "DaskRankBoost"]

# The in-memory estimators' declared parameters (their public ``parameters``), reused on Dask.
_PUSH_PARAMETERS = {p.name: p for p in PushBoost.parameters}
LOSS, PRICE, OBJECTIVE = (_PUSH_PARAMETERS[name] for name in ("loss", "price", "objective"))
P = {p.name: p for p in PNormPush.parameters}["p"]
BOOSTING = RankBoost.parameters
#: What a Dask fit records besides the in-memory fitted state.
FIT_INFO = Fitted("fit_info_")


def _splits_categories(learner) -> bool:
    """The learner splits columns by category groups (its class declares ``accept_categorical``: trees)."""
    return bool(getattr(learner, "accept_categorical", False))


def _local_sets(eval_set, feature_names=None):
    """The validation sets and their initial scores (``eval_init_score``) in memory, as the in-memory fit takes them.

    A set's frame must name the fit's columns (``feature_names``) in the fit's order, checked here: on one worker
    the rows are fitted as an array, so the in-memory fit there would read the set's columns by position.
    """
    for i, given in enumerate(eval_set.sets):
        if isinstance(given, (tuple, list)) and given:
            check_eval_columns(given[0], feature_names, name=f"{eval_set.label(i)} X")
    # a set's query ids (the third entry) chunk by chunk: ids of different types in different chunks are refused
    sets = replace(eval_set, sets=tuple(
        tuple(local_ids(v, f"{eval_set.label(i)} qid") if j == 2 else local_copy(v) for j, v in enumerate(s))
        if isinstance(s, (tuple, list)) else s for i, s in enumerate(eval_set.sets)))
    if not sets.init_scores:
        return sets
    return sets.with_init_scores(tuple(local_copy(init) for init in sets.init_scores))


def _training_init(client, given_init, eval_set):
    """The ``train_init`` of the in-memory ``_check_eval_sets``: the training rows' initial scores (given order).

    Read only for a set that is the training data itself (which is computed to the client anyway); without one an
    empty array stands for them, whose only use there is to say that the fit starts from ``init_score``.
    """
    if given_init is None:
        return None
    return local_scores(given_init, client) if eval_set.training else np.empty(0)


def _training_rows(client, eval_set, feature_names, given_init, sample_weight):
    """(sets, ``train_init``, ``train_weight``) of the in-memory ``_check_eval_sets``: :func:`_local_sets`,
    :func:`_training_init`, and the training rows' weights (given order), read only for a set that is the training
    data itself, which ``scoring="objective"`` then scores as the fit's own objective."""
    weight = None
    if sample_weight is not None and eval_set.training:
        weight = np.asarray(local_scores(sample_weight, client), dtype=np.float64).ravel()
    return _local_sets(eval_set, feature_names), _training_init(client, given_init, eval_set), weight


@dataclass(frozen=True)
class _HoldOut:
    """The in-memory fit's hold-out of the training rows: positions, and the held-out rows' labels."""

    train: np.ndarray
    held_out: np.ndarray
    y_held_out: np.ndarray


#: ``early_stopping`` off (``False``, or ``"auto"`` on at most ``AUTO_MIN_ROWS`` rows).
NO_STOPPING = EarlyStopping("off")



@dataclass
class _FitSession:
    """A started Dask fit: the resolved components, the chunk count, the layout, the shards and the backend."""

    objective: Any
    learner: Any
    task: str
    classes: Any
    n_chunks: int
    summary: Any
    layout: Any
    kind: str
    shards: Any
    backend: Any
    setup: Any = None
    stop_early: bool = False
    validation: Any = None          # a rankcore.push.Validation: the eval_set's sets, or the hold-out
    fallback: str = ""
    position_ids: Any = None        # the distinct display positions of a fit given ``position``
    from_init: bool | str = False   # the training scores started at ``init_score`` (``"init_model"``: its scores)

    def close(self) -> None:
        self.shards.close()


class _DaskBoost(DaskPredictions, DaskExplanations, ClientParameter):
    """The Dask fit, prediction and conversion shared by the Dask push estimators (a mixin)."""

    _local_class: type

    def _allows_nan(self) -> bool:
        """No: each chunk is checked and NaN refused whatever the learner (the in-memory trees take it)."""
        return False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False          # the distributed fit reads dense chunks only, even with the trees
        return tags

    # ------------------------------------------------------------------
    @names_peer_fit_arguments(constructor=None)
    @fits_on_a_copy
    def fit(self, X, y, sample_weight=None, *, qid=None, group=None, position=None, init_score=None, eval_set=None,
            eval_names=None, eval_metric=None, eval_init_score=None, callbacks=None, init_model=None):
        """Boost ``n_iter`` weak rankers on distributed ``(X, y)``, on one list or within queries.

        Parameters
        ----------
        X : dask.array (n, d), dask.dataframe.DataFrame, or array-like
            Row chunks (partitions) are the blocks the workers keep; an
            in-memory array is split into chunks and sent to the cluster.
        y : dask.array, dask Series, or array-like (n,)
            Two labels (the greater one is relevant), or grades for graded
            objectives; re-chunked like X if needed.
        sample_weight : like y, optional
        qid : like y, optional
            One query id per row, queries in any order across the chunks:
            rank within each query, as the in-memory ``fit(X, y, qid=...)``
            does (the same model on the same rows).  The rows are first
            moved, on the workers, so that each query lies whole in one chunk
            (``rankcore.dask._queries``: one pass over the ids, then each
            row moves at most once).
        group : array-like of int, optional
            LightGBM's form of ``qid``: the sizes of consecutive queries.
        position : like y, optional
            With ``qid``: the place each row was shown at (integers >= 0),
            for labels that are clicks, as in the in-memory ``fit``: an
            effect per position learned beside the trees
            (``position_effects_``, ``position_l2``), the same as the
            in-memory fit's.  The positions move with their rows; each
            iteration the shards add their rows' gradient and curvature per
            position and the client steps the effects (``docs/dask_queries.md``).
        init_score : like y, optional
            Finite scores the training rows start from, as in the in-memory ``fit`` (LightGBM's
            ``init_score``): the model is the weak rankers alone, the same model as the in-memory fit's from the
            same scores.  They move with their rows (into query order, into the hold-out of
            ``early_stopping="auto"``), and each shard starts its rows' scores at them.
        eval_set : (X_val, y_val), or (X_val, y_val, qid_val) with qid, or a list of them, optional
            Validation data, scored on the client after each iteration (a
            Dask collection is computed to the client: keep it small -- the
            training data given as a set too).  A list of sets is scored and
            watched as in memory: every set in ``evals_result_``, early
            stopping on the last one that is not the training data itself.
        eval_names : list of str, optional
            The sets' names in ``evals_result_``, as in memory.
        eval_metric : str or sequence of str, optional
            More metrics recorded on every set (``evals_result_``), scored on
            the client as in memory; early stopping follows ``scoring`` alone.
        eval_init_score : array-like, or a list of them (or None), optional
            With ``init_score``: each set's initial scores, as in memory (a
            Dask collection is computed to the client with its set).
        callbacks : callable or list of callables, optional
            As in the in-memory ``fit``: each is called on the client after
            every iteration with an :class:`~rankcore.push.IterationInfo`; a
            truthy return value stops the fit (a string becomes
            ``stop_reason_``).
        init_model : PushBoost, PNormPush or RankBoost (in memory or Dask-fitted), or str or os.PathLike, optional
            A fitted model (or its saved model file) to continue, as in the in-memory ``fit`` and with its rules:
            the training rows, every set of ``eval_set`` and the rows held out by ``early_stopping="auto"`` start
            from its scores (plus ``init_score``, which a model fitted from it needs), and the model is its weak
            rankers followed by up to ``n_iter`` new ones (``init_iterations_`` the first).  Distributed, the
            rows' scores are its ``decision_function`` of each chunk, computed on the workers and moved with
            the rows as ``init_score`` is; on one worker the in-memory ``fit`` there continues it.

        Returns
        -------
        self
        """
        rounds = self._click_model_rounds(position, init_score, init_model, qid=qid, group=group, eval_set=eval_set,
                                          eval_names=eval_names, eval_metric=eval_metric,
                                          eval_init_score=eval_init_score, callbacks=callbacks)
        user_callbacks = check_callbacks(callbacks)
        eval_set = read_eval_sets(eval_set, eval_names, eval_metric, X=X, y=y, init_scores=eval_init_score, qid=qid,
                                  group=group)
        init = read_dask_init_model(init_model)
        within_queries = qid is not None or group is not None
        setup, probe, refusal, client = self._check_request(y, eval_set, within_queries, positions=position is not None,
                                                            category_frame=bool(frame_category_columns(X)))
        data = as_row_chunks(X, y, sample_weight, categories=_splits_categories(setup.learner),
                             categorical_features=self.categorical_features).persist_if_local(client)
        data = replace(data, init=init_vector(init_score, data.chunk_rows, client))
        self._record_features(data, setup.learner)      # and the columns split by category groups
        # columns the learner names become indices before init_model's groups are compared with them, as in memory
        setup = self._with_column_names(setup, data.feature_names)
        if init is not None:                # before any row is read: what the model's weak rankers read and mean
            # with the setup: the task, and the learner as given (the refusal of another growth reads it), as in memory
            init.check(self, setup.learner, within_queries=within_queries, init_score=init_score is not None,
                       setup=setup)
        # one more float64 per row with init_model: its scores beside the rows (and beside init_score's)
        placement = self._placement(client, data, setup, bool(user_callbacks), refusal,
                                    row_vectors=within_queries + (position is not None) + (init is not None))
        if placement.kind == "one_worker":
            self._fit_on_one_worker(client, data, setup, placement, sample_weight=sample_weight, qid=qid,
                                    group=group, position=position, eval_set=eval_set, init_model=init)
        elif refusal is not None:
            raise ValueError(f"{refusal} (placement='auto' could not fit it on one worker: {placement.reason})")
        else:
            self._fit_distributed(client, data, setup, probe, placement, user_callbacks, sample_weight, eval_set,
                                  qid=qid, group=group, position=position, init_model=init, rounds=(X, rounds))
        if init is not None and rounds is None:     # the click model's rounds continued init_model themselves
            prepend_init_model(self, init)
        return self

    def _click_model_rounds(self, position, init_score, init_model, **given) -> dict | None:
        """With ``position_bias="em"`` (the click model): the in-memory refusals, before any data is read; then what
        every EM round's fit is given besides (X, posterior, sample_weight): ``fit``'s arguments as given.  Without
        it, None."""
        if not self._setup_record().params.position_bias.em:
            return None
        refuse_click_model(self, qid=given["qid"], group=given["group"], position=position)
        return dict(given, init_score=init_score, init_model=init_model)     # each round starts from them

    def _fit_distributed(self, client, data, setup, probe, placement, user_callbacks, sample_weight, eval_set, *,
                         qid, group, position, init_model=None, rounds=(None, None)) -> None:
        """The distributed fit of :meth:`fit` once the request is checked and placed (``init_model``'s weak rankers
        are not added here).  ``rounds``: (X as given, :meth:`_click_model_rounds`' arguments of every EM round),
        the click model's, which fits a distributed model a round (``rankcore.dask._click_model``)."""
        if rounds[1] is not None:       # the sets as read against the clicks: each round is given the posteriors
            given = dict(rounds[1], eval_set=eval_set, eval_names=None, eval_metric=None, eval_init_score=None)
            fit_click_model_on_dask(self, client, data, rounds[0], sample_weight, position, given, setup.params)
            return
        warn_small_chunks(data)             # before the passes that pay per chunk
        session = self._start_on(client, data, setup, probe, sample_weight, eval_set, qid=qid, group=group,
                                 position=position, init_model=init_model)
        if init_model is not None:          # the callbacks count from its first weak ranker, as in memory
            user_callbacks = init_model.counting_callbacks(user_callbacks)
        try:
            result, records, history, best = self._boost(session.backend, session.backend.layout, session.setup,
                                                         session.validation, user_callbacks,
                                                         stop_early=session.stop_early)
        finally:
            session.close()
        self._set_fitted(session.setup, session.classes, result, records, history, best,
                         monitor=session.validation is not None, validation=session.validation,
                         from_init=session.from_init)
        if session.fallback and self.stop_reason_ == "n_iter":
            self.stop_reason_ = NO_VALIDATION
        if session.position_ids is not None:        # b as the last kept tree was grown with, as in memory
            self.position_ids_ = session.position_ids
            self.position_effects_ = session.backend.effects_after(self.n_iter_)
        self._record_fit_info(session, placement, len(result.records))

    def _record_fit_info(self, session, placement, iterations: int) -> None:
        """``fit_info_`` of a distributed fit: its path, placement, chunks, workers, round trips and passes."""
        self.fit_info_ = {
            "path": session.kind,
            "placement": placement.kind,
            "placement_reason": placement.reason,
            "chunks": session.n_chunks,
            "workers": len(session.shards.workers),
            "round_trips": session.backend.round_trips,
            "worker_passes": getattr(session.backend, "passes", 0),
            "iterations": iterations,
        }

    def _placement(self, client, data, setup, callbacks: bool, refusal: ValueError | None, row_vectors: int = 0):
        """Where this fit runs (``placement``; ``"auto"``: the cost rule of ``rankcore.dask._placement``, on one
        worker when ``refusal`` says why a distributed fit cannot take the request).

        ``row_vectors``: how many vectors of one int64 a row the fit also moves
        (query ids, display positions), read later than X but gathered with it.
        """
        arrays = [a for a in (data.X, data.y, data.weight, data.init) if a is not None]
        data_bytes = sum(int(a.nbytes) for a in arrays) + 8 * int(row_vectors) * int(data.n_rows)
        return choose_placement(setup.params.placement,
                                n_rows=data.n_rows, n_features=data.n_features,
                                data_bytes=data_bytes, learner=setup.learner,
                                workers=worker_info(client), callbacks=callbacks,
                                not_distributed=None if refusal is None else str(refusal))

    def _fit_on_one_worker(self, client, data, setup, placement, *, sample_weight, qid, group, eval_set,
                           position=None, init_model=None) -> None:
        """The in-memory estimator's fit, run whole on one worker holding every row (``placement``).

        ``init_model``: the checked model the fit continues, handed to the in-memory fit (which scores the rows
        there); its weak rankers are not added here."""
        params = {key: value for key, value in self.get_params(deep=False).items()
                  if key not in ("client", "placement")}
        # the worker fits the rows as an array: the learner's columns by name are resolved here, by the frame's names
        params["learner"] = learner_with_column_names(params["learner"], data.feature_names)
        if getattr(self, "_categorical_columns", ()):     # the gathered rows are codes: these columns by index
            params["categorical_features"] = list(self._categorical_columns)
        # rows with category columns are fitted as the frame they were read from: the in-memory fit of it, whose
        # categories the init model's and the validation frames' are matched to
        frame = None
        if any(values is not None for values in data.categories or ()):
            frame = (data.feature_names, data.categories)
        local = self._local_class(**params)
        q = None if qid is None and group is None else query_vector(qid, group, data)
        p = None if position is None else position_vector(position, data)      # checked by the in-memory fit
        # the sets as read on the client (the training data recognized by the objects given to fit)
        kwargs = {} if eval_set is None else {"eval_set": _local_sets(eval_set, data.feature_names)}
        if init_model is not None:
            kwargs["init_model"] = init_model.model if setup.params.position_bias.em else init_model   # fit reads it
        fitted, address, threads = fit_on_one_worker(client, local, data, setup.task, qid=q, position=p,
                                                     init=data.init, fit_kwargs=kwargs, frame=frame,
                                                     renamed=named_warnings(setup.learner, data))
        skip = {"_setup_cache"}
        for name in type(fitted)._fitted_names - skip:
            if name in vars(fitted):
                self.__dict__[name] = vars(fitted)[name]
        if data.feature_names is not None:
            self.feature_names_in_ = np.asarray(data.feature_names, dtype=object)
        self.fit_info_ = {
            "path": "in-memory",
            "placement": "one_worker",
            "placement_reason": placement.reason,
            "worker": address,
            "threads": threads,
            "chunks": data.n_chunks,
            "workers": 1,
            "round_trips": 1,
            "worker_passes": 0,
            "iterations": len(self.rankers_),
        }

    def _check_request(self, y, eval_set, within_queries: bool, positions: bool = False, category_frame: bool = False):
        """The checks of a fit before any data is read: (setup record, bound objective probe, refusal, client).

        ``positions``: the fit is given ``position``, which needs queries and an objective with a curvature.
        ``category_frame``: X is a DataFrame with ``category`` columns (read from its dtypes).

        ``refusal`` is the error a distributed fit of the request would raise
        (None if it can run distributed): the fit on one worker, the
        in-memory estimator's, takes it anyway (``placement``).
        """
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        if positions and not within_queries:
            refuse_positions_without_queries()
        setup = self._fit_setup(within_queries, category_frame)
        if self.thresholds is not None and not setup.learner.uses_thresholds:
            raise ValueError(f"thresholds: the learner {setup.learner.spec!r} does not use thresholds; leave "
                             "thresholds=None")
        probe, refusal = None, None
        try:
            probe = self._distributed_form(setup, eval_set, within_queries)
        except ValueError as exc:
            if setup.params.placement == "distributed":
                # an ArgumentRefusal keeps its class and fields; another error is a ValueError, as it always was
                raise said_again(exc, f"{exc} (placement='one_worker' fits it in memory on one worker)",
                                 plain=ValueError) from None
            refusal = exc
        if positions and probe is not None:
            require_curvature(probe)      # the in-memory fit's error (an objective refused here gets it there)
        client = get_client(self.client)
        check_components_on_workers(client, {"objective": setup.objective.spec})
        return setup, probe, refusal, client

    @staticmethod
    def _distributed_form(setup, eval_set, within_queries: bool):
        """The bound objective probe of a distributed fit; a ValueError says why the request has none."""
        objective = setup.objective
        if setup.params.early_stopping is True and eval_set is None:
            given = "(X_val, y_val, qid_val)" if within_queries else "(X_val, y_val)"
            raise ValueError(f"early_stopping=True: on distributed data pass fit(..., eval_set={given}); "
                             "the internal validation split of the in-memory estimator is not available on Dask")
        try:
            # within queries: the objective over chunks of whole queries (refuses one that ranks one list)
            probe = block_problem(objective, setup.task, within_queries)
        except (ValueError, TypeError) as exc:
            if within_queries:
                raise ValueError(str(exc)) from None
            raise ValueError(
                f"objective {objective.spec!r} cannot be boosted on Dask: only separable objectives "
                "(BoundSeparable, whose value is a merge of per-chunk partials) and the push objective "
                "have a distributed form, and this one needs the whole label vector when it is bound "
                f"(binding it to a two-row placeholder failed: {exc}); fit it in memory"
            ) from None
        if not probe.separable:
            backend_kind(probe, None)        # raises for objectives with no distributed form, before any pass
            if searches_in_passes(setup.learner):
                raise pairwise_trees_refusal(objective)
        if check_tie_break_scale(objective) > 0:
            # the in-memory fit starts such an objective from distinct random offsets of every row;
            # the shards start their scores at 0 (rankcore/push/_backend.py: such a backend must refuse)
            raise ValueError(
                f"objective {objective.spec!r} cannot be boosted on Dask: it is non-smooth "
                f"(tie_break_scale > 0) and its fit starts from per-row tie-break offsets, which the Dask "
                "backend does not implement; fit it in memory"
            )
        return probe

    def _start(self, X, y, sample_weight, eval_set, *, qid=None, group=None) -> "_FitSession":
        """Validate, summarize, bin and encode the distributed data; start the shards and the backend.

        Everything of a distributed fit before the boosting iterations (the
        benchmarks time the iterations of a started session on their own).
        """
        eval_set = read_eval_sets(eval_set, X=X, y=y, qid=qid, group=group)
        setup, probe, refusal, client = self._check_request(y, eval_set, qid is not None or group is not None,
                                                            category_frame=bool(frame_category_columns(X)))
        if refusal is not None:             # a session is distributed whatever the placement
            raise refusal
        if setup.params.position_bias.em:   # a session is one fit; the click model is a fit per EM round
            raise ValueError("position_bias='em': a started session is one fit, the click model one per EM round; "
                             "call fit")
        data = as_row_chunks(X, y, sample_weight, categories=_splits_categories(setup.learner),
                             categorical_features=self.categorical_features).persist_if_local(client)
        self._record_features(data, setup.learner)
        warn_small_chunks(data)
        return self._start_on(client, data, setup, probe, sample_weight, eval_set, qid=qid, group=group)

    def _start_on(self, client, data, setup, probe, sample_weight, eval_set, *, qid=None, group=None,
                  position=None, init_model=None):
        """:meth:`_start` once the request is checked and the rows are chunks (``data``); ``init_model``: the
        checked model the fit continues (the rows start from its scores)."""
        within_queries = qid is not None or group is not None
        # columns the learner names (trees:interactions=age+income) become indices before anything reads them
        setup = self._with_column_names(setup, data.feature_names)
        query_stopping, places, place_start = None, None, None
        given_init = data.init              # the initial scores in the rows' given order (before queries are placed)
        from_init = given_init is not None  # the driver's messages and from_init_score_, as in memory
        if init_model is not None:          # its scores of each chunk (plus init_score) follow the rows from here
            data, from_init = replace(data, init=start_scores(init_model, data.X, given_init)), "init_model"
        if within_queries:
            data, query_stopping, placed, places, place_start = self._place_queries(
                client, data, qid, group, setup, eval_set, position, init_model=init_model)
            if placed is not setup:        # the default's QueryRMSE weight for this many queries
                setup, probe = placed, block_problem(placed.objective, placed.task, True)
        objective, learner, task = setup.objective, setup.learner, setup.task
        if sample_weight is not None and not objective.supports_sample_weight:
            raise ArgumentRefusal.said("sample_weight",
                                       f"the objective {objective.spec!r} does not support sample weights")
        # computed once for the passes below (summary, bin-edge sample, encoding), released once the shards
        # hold their blocks: only the session's chunk count outlives this method
        data = data.persisted_for_setup(client)
        seed = fit_seed(self.random_state)
        # the bin-edge sample drawn in the summary pass, unless a hold-out will change the training rows
        holdout_possible = (not within_queries and eval_set is None and setup.params.early_stopping == "auto"
                            and data.n_rows > AUTO_MIN_ROWS)
        summary = summarize(client, data, task=task,
                            sample=None if holdout_possible else self._sample_request(learner, seed))
        self._record_features(data)
        classes = summary.classes
        if task == "bipartite":
            # the push objective's check reads class totals only: the compressed labels are exact for it
            objective.check_target(placeholder_labels(task), summary.class_weight[[0, 1]])
        elif not summary.weight > 0:
            raise ArgumentRefusal.said("sample_weight", f"the objective {objective.spec!r} needs a positive total "
                                                        "weight")

        # "auto" above AUTO_MIN_ROWS rows: early stopping on eval_set, else on the in-memory fit's hold-out
        stopping, holdout = NO_STOPPING, None
        if within_queries:
            stopping = query_stopping
        elif setup.params.early_stopping == "auto" and data.n_rows > AUTO_MIN_ROWS:
            stopping, holdout = self._auto_stopping(client, data, classes, task, setup, seed,
                                                    has_eval_set=eval_set is not None)
        elif setup.params.early_stopping == "auto" and eval_set is not None:       # the in-memory rule on fewer rows
            stopping = resolve_early_stopping("auto", np.broadcast_to(0.0, data.n_rows), 0.0, has_eval_set=True,
                                              stratify=False, patience_given=setup.params.n_iter_no_change is not None)
        if stopping.fallback:
            warnings.warn(stopping.fallback, UserWarning, stacklevel=outside_stacklevel())
        stopping = eval_set_stopping(stopping, eval_set, setup.params.early_stopping is True)    # as in memory
        auto_on = stopping.auto
        if auto_on:
            setup = setup.for_large_data()
            learner = setup.learner
        if init_model is not None:          # the final learner, and the classes (or grades) now that they are known
            grades = one_list_grades(client, init_model, data.y, task, within_queries=within_queries)
            init_model.check(self, learner, classes, within_queries=within_queries, init_score=given_init is not None,
                             setup=setup, labels=grades)
        validation = None
        if eval_set is not None:
            sets, init, weight = _training_rows(client, eval_set, data.feature_names, given_init, sample_weight)
            validation = self._check_eval_sets(sets, setup, classes, within_queries=within_queries, train_init=init,
                                               init_model=init_model, train_weight=weight)
        elif holdout is not None:
            data, summary, held_out = self._hold_out(client, data, holdout, objective, task, learner,
                                                     self._sample_request(learner, seed))
            validation = Validation.held_out(*held_out[:3], init=held_out[3])

        if (warn_unused := getattr(learner, "warn_unused_columns", None)) is not None:   # once, on the client
            warn_unused(int(self.n_features_in_), getattr(self, "feature_names_in_", None))
        # the learner's declared preparation from the distributed rows (the in-memory rule; see _prepare.py)
        categorical = getattr(self, "_categorical_columns", ())
        extra = {"categorical_features": categorical} if categorical and _splits_categories(learner) else {}
        with columns_named(data.feature_names):
            layout = learner.prepare_distributed(DaskRows(client, data, summary), thresholds=self.thresholds,
                                                 random_state=seed, n_threads=1, **extra)
        if hasattr(layout, "curvature_unit"):       # the in-memory fit's, from the training rows' totals
            layout.curvature_unit = curvature_unit(objective, data.n_rows, summary.weight)
        if searches_from_start(objective, layout, setup.params.learner, learner, within_queries=within_queries,
                               started=lambda: data.init is not None and client.compute(data.init.any()).result()):
            layout.line_search = True       # Newton steps from far initial scores overshoot (the in-memory rule)
        problem = probe
        kind = backend_kind(problem, layout)
        shards = start_shards(client, data, layout, objective.spec, classes, task, random_state=seed)
        effects = None
        if places is not None:            # the trees' learning rate is the effects' step size, as in memory
            effects = PlaceEffects(places.shape[0], l2=setup.params.position_l2,
                                   rate=float(getattr(layout, "shrinkage", 1.0)), start=place_start)
        try:
            backend = make_backend(shards.actors, problem, layout, kind=kind, addresses=shards.workers,
                                   effects=effects)
        except BaseException:
            shards.close()                # a refused combination: the actors and their settings end here
            raise
        backend.from_init = from_init
        stop_early = validation is not None and (auto_on or stopping.mode == "eval_set")
        return _FitSession(objective, learner, task, classes, data.n_chunks, summary, layout, kind, shards, backend,
                           setup, stop_early, validation, stopping.fallback, places, from_init)

    def _record_features(self, data, learner=None) -> None:
        """``n_features_in_`` and ``feature_names_in_`` of the rows ``data`` (names only when X has them); with the
        fit's ``learner``, also ``categories_`` and the columns split by category groups, as the in-memory fit
        records them (a DataFrame's ``category`` columns and ``categorical_features``)."""
        self.__dict__.pop("feature_names_in_", None)
        self.n_features_in_ = data.n_features
        if data.feature_names is not None:
            self.feature_names_in_ = np.asarray(data.feature_names, dtype=object)
        if learner is None:
            return
        self.__dict__.pop("categories_", None)
        if data.categories is not None:
            self.categories_ = data.categories
        from_frame = [j for j, c in enumerate(data.categories or ()) if c is not None]
        self._categorical_columns = self._categorical(from_frame, data.n_features, learner)

    def _sample_request(self, learner, seed):
        """``(subsample, seed)`` of the bin-edge sample ``learner`` will ask of the rows, or None."""
        subsample = learner.distributed_sample(thresholds=self.thresholds)
        return None if subsample is None else (subsample, seed)

    def _fit_setup(self, within_queries: bool, category_frame: bool = False):
        """The setup record of a fit: with the per-query defaults within queries (as in memory: for rows with
        columns split by category groups, ``category_frame`` or ``categorical_features``, trees that split them)."""
        setup = self._setup_record()
        if within_queries:
            given = names_a_column(self.categorical_features)
            return self._query_setup(setup, categorical=given or (category_frame and _splits_categories(setup.learner)))
        setup.objective.check_queries(None)          # an objective that needs queries refuses a fit without
        return setup

    def _place_queries(self, client, data, qid, group, setup, eval_set, position=None, *, init_model=None):
        """Within queries: (rows with every query whole in a chunk, the early-stopping rule, the setup record,
        the distinct display positions or None, the effects they start at or None: 0).

        ``position``: each row's display position; its distinct values are
        found in one more pass (``rankcore.dask._positions``) and each row's
        code into them moves with the row.  ``init_model``: the checked model
        the fit continues, whose places join the rows' and whose effects they
        start at, as in memory (:meth:`rankcore.push.InitModel.position_start`).

        The ids and grades are checked in one pass and the queries described
        (``n_queries_``, ``n_queries_without_pairs_``); the setup record is
        ``setup`` unless the per-query default's QueryRMSE weight changes with
        the number of queries with two grades (``query_rmse_weight``), as in
        memory.  ``early_stopping="auto"`` on more than ``AUTO_MIN_ROWS`` rows
        stops on ``eval_set`` only, by the in-memory rule (no training query is
        held out).
        """
        survey = survey_queries(client, data, query_vector(qid, group, data), setup.objective)
        check_some_query_ranks(survey.n_queries, survey.n_single_grade)
        self.n_queries_ = survey.n_queries
        # only the rows of positive weight count, as in memory: a query of weight 0 is a dropped query
        self.n_queries_without_pairs_ = survey.n_queries_without_pairs
        setup = self._for_ranked_queries(setup, survey.n_queries - survey.n_queries_without_pairs)
        if setup.params.verbose:
            say(f"ranking within {self.n_queries_} queries ({self.n_queries_without_pairs_} with a single grade: "
                "no pair to order)")
        stopping = NO_STOPPING
        if setup.params.early_stopping == "auto":
            # unstratified, the rule reads the number of rows (not the grades) and of queries
            stopping = resolve_early_stopping("auto", np.broadcast_to(0.0, data.n_rows),
                                              setup.params.validation_fraction, has_eval_set=eval_set is not None,
                                              stratify=False, n_queries=survey.n_queries)
        ids = start = None
        if position is not None:
            places = survey_positions(client, data, position)
            warn_sparse_places(places.ids.shape[0], data.n_rows)
            seeded = None if init_model is None else init_model.position_start(places.ids)
            if seeded is not None:
                places, start = places.among(seeded[0]), seeded[1]
            data, ids = replace(data, position=places.codes), places.ids
        return place_queries(client, data, survey), stopping, setup, ids, start

    @staticmethod
    def _auto_stopping(client, data, classes, task, setup, seed, *, has_eval_set: bool):
        """``early_stopping="auto"`` on more than ``AUTO_MIN_ROWS`` rows, by the in-memory rule: (rule, hold-out).

        Without ``eval_set`` the labels are brought to the client (one small
        number per row) to draw the in-memory fit's hold-out: the same rows
        for the same ``random_state``, so that the default fit is the
        in-memory one.  The hold-out is None when there is none to draw.
        """
        if has_eval_set:
            return EarlyStopping("eval_set", auto=True), None
        y = np.asarray(client.compute(data.y).result())
        y = (y == classes[1]).astype(np.int8) if task == "bipartite" else y.astype(np.float64)
        fraction = setup.params.validation_fraction
        stopping = resolve_early_stopping("auto", y, fraction, has_eval_set=False, stratify=task != "graded")
        if stopping.mode != "holdout":
            return stopping, None
        (train, held_out), = plan_validation(y, fraction, seed, stratify=task != "graded").folds
        return stopping, _HoldOut(train, held_out, y[held_out])

    @staticmethod
    def _hold_out(client, data, plan, objective, task, learner, sample=None):
        """The training rows on the cluster (and their summary), the held-out rows on the client: (X, y, w, initial
        scores), each but X None when the fit has none.

        ``sample``: the bin-edge sample to draw with the training rows' summary (:func:`summarize`).
        """
        held = data.take(plan.held_out)
        X_val = np.asarray(client.compute(held.X).result())
        X_val, _ = check_learner_matrix(X_val, learner, name="X (held-out rows)")
        w_val = None if held.weight is None else np.asarray(client.compute(held.weight).result(), dtype=np.float64)
        init_val = None if held.init is None else local_scores(held.init, client)
        data = data.take(plan.train)
        summary = summarize(client, data, task=task, sample=sample)
        if task == "bipartite":
            objective.check_target(placeholder_labels(task), summary.class_weight[[0, 1]])
        return data, summary, (X_val, plan.y_held_out, w_val, init_val)

    # ------------------------------------------------------------------
    def to_local(self):
        """The in-memory estimator (same class as ``rankcore.PushBoost`` etc.) with these parameters and fit.

        It can be saved with ``rankcore.save_model`` and scores NumPy arrays
        with the same numbers as the Dask model's ``decision_function``.
        """
        check_is_fitted(self)
        params = {key: value for key, value in self.get_params(deep=False).items()
                  if key not in ("client", "placement")}
        local = self._local_class(**params)
        local._set_fitted_state(self._get_fitted_state())
        return local



#: The Dask estimators' first parameter.
CLIENT = Parameter("client", Kind("a distributed.Client or None", lambda client: client), default=None,
                   type_doc="distributed.Client or None", doc="""
    The cluster to fit on; default: the current client
    (``distributed.default_client()``).""")


#: Where the fit runs (``rankcore.dask._placement``).
PLACEMENT = Parameter("placement", str, default="auto", choices=PLACEMENTS, doc="""
    ``"distributed"``: the rows stay on every worker, which boost them
    together; ``"one_worker"``: every row is gathered, worker to worker,
    into one worker's memory and the in-memory estimator's ``fit`` runs
    there (the in-memory model, bit for bit; not with ``callbacks``);
    ``"auto"``: one worker when the messages of a distributed iteration
    would cost more than the other workers save and the rows fit in a
    quarter of a worker's memory limit, else distributed (see
    ``docs/dask_trees.md``, *Small fits run on one worker*).  ``fit_info_`` says which ran and why.""")


def _on_dask(parameters: tuple) -> tuple:
    """``client`` and ``placement`` first, then the in-memory estimator's parameters (with their defaults)."""
    return (CLIENT, PLACEMENT) + tuple(parameters)


_DASK_NOTES = """
    Notes
    -----
    ``fit`` accepts ``dask.array`` and ``dask.dataframe`` collections (and
    in-memory arrays, which are chunked and sent).  The training rows stay on
    the workers: each chunk is encoded once where it is computed and kept,
    with its scores, by one actor per worker; each iteration exchanges only
    O(features × bins) numbers per worker (see ``docs/dask.md``).  The model
    equals the in-memory estimator's fit with the same bin edges.  ``n_jobs``
    is not used on the workers: their kernels use each worker's own thread
    count.  ``early_stopping=True`` validates on an ``eval_set`` (kept on
    the client) and needs one.  The default ``"auto"``, when the training
    data have more than 10,000 rows, stops on ``eval_set`` if given, else
    on the in-memory fit's hold-out -- the same rows for the same
    ``random_state``, drawn on the client from the labels and brought there
    to be scored -- with the learner's large-data settings: the default fit
    is the in-memory one.

    ``fit_info_`` records the backend path (``"fast"``, ``"separable"`` or
    ``"pairwise"``), the number of chunks, of workers and of round trips
    (the client's waits on the workers), and ``worker_passes``: the passes
    of the trees' searches, which the first worker runs with the others
    (one round trip per tree for the client).

    ``position_bias="em"`` (the click model, ``docs/clicks.md``) is fitted
    by DaskPushBoost: each EM round a distributed cross-entropy fit on the
    posterior relevance, θ's M-step summed over the chunks on the client
    (on one worker, the in-memory click model).
"""


class DaskPushBoost(_DaskBoost, PushBoost):
    __doc__ = ("""Boosting for the push objective on a Dask cluster: :class:`rankcore.PushBoost` on distributed data.
""" + ATTRIBUTES_DOC + _DASK_NOTES)
    _local_class = PushBoost
    name = "DaskPushBoost"
    aliases = ()
    fitted = PushBoost.fitted + (FIT_INFO,)
    parameters = _on_dask((
        replace(LOSS, doc="""
            Pairwise loss ℓ: ``"exp"`` (row-separable: the fast path), or
            ``"logistic"``, ``"hinge"``, ``"sqhinge"``, a plugin's (the exact
            pairwise fallback: the positives are broadcast to every worker)."""),
        replace(PRICE, doc="""
            Price g: ``"identity"``, ``"pow:p"``, ``"exp:β"`` or a plugin's;
            None: the learner's default (``"pow:4"``; ``"pow:2"`` for trees)."""),
        replace(OBJECTIVE, doc="""
            Any registered objective with a distributed form instead: a
            separable one (``"mp-squared"``) or a push objective."""),
    ) + BOOSTING)


class DaskPNormPush(_DaskBoost, PNormPush):
    __doc__ = ("""P-Norm Push on a Dask cluster: :class:`rankcore.PNormPush` on distributed data.
""" + ATTRIBUTES_DOC + _DASK_NOTES)
    _local_class = PNormPush
    name = "DaskPNormPush"
    fitted = PNormPush.fitted + (FIT_INFO,)
    parameters = _on_dask((P,) + BOOSTING)


class DaskRankBoost(_DaskBoost, RankBoost):
    __doc__ = ("""RankBoost on a Dask cluster: :class:`rankcore.RankBoost` on distributed data.
""" + ATTRIBUTES_DOC + _DASK_NOTES)
    _local_class = RankBoost
    name = "DaskRankBoost"
    aliases = ()
    fitted = RankBoost.fitted + (FIT_INFO,)
    parameters = _on_dask(BOOSTING)
