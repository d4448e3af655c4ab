"""``to_xgboost_json`` and ``to_xgboost_model`` of the push-family estimators: the fitted trees in XGBoost's JSON
dump format, which the Elasticsearch / OpenSearch Learning to Rank plugin (``model/xgboost+json``) and Vespa's
``xgboost`` feature read, and as an XGBoost model file, which ``xgboost.Booster`` loads."""

from __future__ import annotations

import warnings

from .._caller import outside_stacklevel
from .._threadsafe import reads_a_snapshot
from ..learners import xgboost_json_string, xgboost_model_string
from ._lightgbm_export import check_tree_rankers, warn_init_score, write_exported_text

__all__ = ["XGBoostJSONExport"]


class XGBoostJSONExport:
    """Mixin of ``_BaseBoost``: :meth:`to_xgboost_json` and :meth:`to_xgboost_model` (tree and stump learners)."""

    @reads_a_snapshot
    def to_xgboost_json(self, path=None, *, feature_names=None) -> str:
        """The model as XGBoost's JSON dump (``get_dump(dump_format="json")``, a list of trees), written to ``path``.

        The format of the Elasticsearch / OpenSearch Learning to Rank plugin
        (model type ``model/xgboost+json``) and of Vespa's ``xgboost``
        ranking feature: one nested object per tree, internal nodes
        ``{"nodeid", "depth", "split", "split_condition", "yes", "no",
        "missing", "children"}``, leaves ``{"nodeid", "leaf"}``; a row goes
        to ``yes`` when ``x < split_condition``, to ``missing`` when x is
        missing, and the score is the sum of its leaves.  (XGBoost writes
        this dump but cannot load it; the file is for the engines.)

        * **Scores are exact for features given as float32 values**: the
          engines read conditions (and XGBoost its input) as float32, and
          rankcore's split x <= t is written as x < c with c the least
          float32 greater than t, the same test on every float32 x.  A
          float64 value float32 cannot hold, strictly between t and c, goes
          right in rankcore and ``yes`` (left) for an engine comparing in
          double (Vespa), or wherever its float32 rounding falls: such
          values may score differently.
        * Leaf values are α_t times rankcore's, written at full double
          precision; an engine summing in float32 (Elasticsearch) gives the
          scores to float32 rounding, not bit for bit.
        * ``missing`` is the child rankcore sends NaN to.  (The
          Elasticsearch plugin ignores ``missing``: there a NaN goes to
          ``no``; its features are query scores, 0 when a query does not
          match, so NaN does not arise.)
        * ``split`` is a feature name, which the engines match features by
          (the plugin's feature set, Vespa's rank features):
          ``feature_names`` if given, else ``feature_names_in_`` (a
          DataFrame's columns, a CSV's header), else XGBoost's own default
          ``f0, f1, ...`` -- then name the engine's features so, or pass
          ``feature_names``.
        * Trees of every growth and stumps are written as for
          :meth:`to_lightgbm` (oblivious trees as full binary trees of
          2^depth leaves, stumps as two leaves 0 and α); node ids go
          breadth first, ``yes`` before ``no``.  Categorical splits are
          refused: the engines read numeric conditions only (XGBoost's
          own dumps list a category set where they expect a number);
          :meth:`to_xgboost_model` holds them.
        * The trees alone, as :meth:`decision_function`: a model fitted
          from initial scores (``from_init_score_``) is the correction alone
          (a ``UserWarning`` says so); add the rows' initial scores to the
          engine's score.
        * A model without trees (a fit that stopped before the first one,
          ``stop_reason_``) scores every row 0: it is written as one tree of
          a single leaf 0, since the engines refuse an empty list of trees,
          and a ``UserWarning`` says the model is constant.
        * The file is written atomically (a symlink at ``path`` stays, the
          file it leads to replaced); a device, a FIFO or ``/dev/stdout`` is
          written into, never replaced.

        Parameters
        ----------
        path : str or path-like, optional
            Also write the text to this file (UTF-8).
        feature_names : sequence of str, optional
            One name per feature (``n_features_in_``), in column order,
            overriding ``feature_names_in_``; unique and nonempty.  A list,
            tuple, 1-D array or pandas Index -- not a set, whose order is
            arbitrary.

        Returns
        -------
        str
            The JSON text (``json.loads`` gives the list of trees).

        Raises
        ------
        sklearn.exceptions.NotFittedError
            The estimator is not fitted.
        TypeError
            The learner's weak rankers are not trees or stumps;
            ``feature_names`` is not an ordered sequence of strings.
        ValueError
            A tree splits a column by categories; ``feature_names`` is not
            one unique nonempty name per feature.
        """
        check_tree_rankers(self, "to_xgboost_json", "XGBoost's JSON dump format")
        if feature_names is None:
            feature_names = getattr(self, "feature_names_in_", None)
        # (a fit refuses the numeric splits of a DataFrame's category column -- oblivious trees, too many
        # categories -- that ``categories`` guards against; a guard for other learners)
        text = xgboost_json_string(self.rankers_, self.alphas_, int(self.n_features_in_),
                                   feature_names=feature_names, owner=type(self).__name__,
                                   categories=getattr(self, "categories_", None))
        warn_init_score(self, f"{type(self).__name__}.to_xgboost_json", "the engine's score")
        if not self.rankers_:
            _warn_constant(self)
        write_exported_text(text, path)
        return text


    @reads_a_snapshot
    def to_xgboost_model(self, path=None, *, feature_names=None) -> str:
        """The model as an XGBoost model file (``Booster.save_model``'s JSON), written to ``path``.

        ``xgboost.Booster(model_file=path)`` loads it, and its
        ``predict(DMatrix(X), output_margin=True)`` gives
        :meth:`decision_function` to float32 rounding (XGBoost reads
        features, conditions and leaf values as float32; a numeric split is
        written as for :meth:`to_xgboost_json`, exact on float32 features).
        The objective is ``reg:squarederror`` with ``base_score`` 0, so the
        plain prediction is the same sum of leaves.

        * **Categorical splits are written** as XGBoost's category sets,
          and their columns marked categorical (``feature_types`` ``"c"``;
          build the DMatrix with ``enable_categorical=True``).  XGBoost
          sends its set right and every other value left, rankcore its set
          left and every other value right: each such node holds rankcore's
          set with its children swapped, missing values going where
          rankcore sends NaN.
        * A DataFrame's ``category`` column is read by XGBoost by its
          codes, rankcore by value among ``categories_[j]``: they agree when
          the frame's categories are the fit's, in order --
          ``X[c] = pd.Categorical(values, categories=model.categories_[j])``,
          which also makes a value the fit did not see missing, where
          rankcore sends it.
        * A column of category ids (``trees:categorical=``): XGBoost reads a
          value as the integer it truncates to, rankcore by its exact value;
          they agree on integers (a negative id or one of 2^24 or more goes
          where any id outside the set goes).  A split holding an id that is
          not an integer from 0 to 2^24 − 1 is refused.
        * ``feature_names`` (else ``feature_names_in_``) are the learner's
          names, which XGBoost asks a DMatrix for; a model fitted on an
          array without names is written without them.
        * Oblivious trees are written as full binary trees, stumps as two
          leaves 0 and α; nodes are numbered breadth first, left before
          right.  The trees alone, as :meth:`decision_function` (a model
          fitted from initial scores is the correction: a ``UserWarning``
          says so); a model without trees is a model of no trees, scoring 0.
        * Rows of a SciPy sparse matrix: rankcore reads an absent entry as 0,
          XGBoost's ``DMatrix`` as missing (the NaN side): give XGBoost
          such rows dense (``X.toarray()``).
        * A model fitted from initial scores: give them to XGBoost as
          ``DMatrix(X, base_margin=init_score)``.
        * The trees' covers are written (``sum_hessian``), so
          ``pred_contribs`` gives :meth:`feature_contributions`; stumps have
          none, and XGBoost's contributions of them are NaN.
        * The file is written atomically, as :meth:`to_xgboost_json`'s.

        Parameters
        ----------
        path : str or path-like, optional
            Also write the text to this file (UTF-8).
        feature_names : sequence of str, optional
            One unique nonempty name per feature, overriding
            ``feature_names_in_``; none holding ``[``, ``]``, ``<`` or a
            control character, which XGBoost does not take.

        Returns
        -------
        str
            The JSON text.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            The estimator is not fitted.
        TypeError
            The learner's weak rankers are not trees or stumps;
            ``feature_names`` is not an ordered sequence of strings.
        ValueError
            A categorical split holds a category that is not an integer from
            0 to 2^24 − 1; a leaf value is not finite in float32;
            ``feature_names`` is not one unique nonempty name per feature, or
            a name holds ``[``, ``]``, ``<`` or a control character.
        """
        check_tree_rankers(self, "to_xgboost_model", "an XGBoost model")
        if feature_names is None:
            feature_names = getattr(self, "feature_names_in_", None)
        text = xgboost_model_string(self.rankers_, self.alphas_, int(self.n_features_in_),
                                    feature_names=feature_names, owner=type(self).__name__,
                                    categories=getattr(self, "categories_", None))
        warn_init_score(self, f"{type(self).__name__}.to_xgboost_model",
                        "XGBoost's score (its base_margin: DMatrix(X, base_margin=init_score))")
        _warn_category_values(self)
        write_exported_text(text, path)
        return text


def _warn_category_values(model) -> None:
    """Warn when the fit read a DataFrame's ``category`` columns by value: XGBoost reads such a column's codes."""
    columns = getattr(model, "category_columns_read_as_values_", ())
    if columns:
        names = getattr(model, "feature_names_in_", None)
        shown = ", ".join(repr(str(names[j])) if names is not None else f"column {j}" for j in columns)
        warnings.warn(f"{type(model).__name__}.to_xgboost_model: {shown} (pandas 'category' at fit) "
                      f"{'was' if len(columns) == 1 else 'were'} read by value by the learner "
                      f"{model.learner_spec_!r}, and written as numbers; XGBoost reads a DataFrame's 'category' "
                      f"column by its codes: give XGBoost such columns as numbers (X.astype({{col: float}}))",
                      UserWarning, stacklevel=outside_stacklevel())


def _warn_constant(model) -> None:
    """Warn that a model without trees is exported as one leaf of 0: it ranks nothing."""
    reason = getattr(model, "stop_reason_", None)
    why = f" (the fit stopped before its first tree: stop_reason_ {reason!r})" if reason else ""
    warnings.warn(f"{type(model).__name__}.to_xgboost_json: the model has no trees{why}, so it scores every row 0 "
                  f"and ranks nothing; it is written as one tree of a single leaf 0, as the engines refuse an empty "
                  f"list of trees", UserWarning, stacklevel=outside_stacklevel())
