"""``to_xgboost_json`` of the push-family estimators: the fitted trees in XGBoost's JSON dump format, which the
Elasticsearch / OpenSearch Learning to Rank plugin (``model/xgboost+json``) and Vespa's ``xgboost`` feature read."""

from __future__ import annotations

import warnings

from .._caller import outside_stacklevel
from .._threadsafe import reads_a_snapshot
from ..learners import xgboost_json_string
from ._lightgbm_export import check_tree_rankers, warn_init_score, write_exported_text

__all__ = ["XGBoostJSONExport"]


class XGBoostJSONExport:
    """Mixin of ``_BaseBoost``: :meth:`to_xgboost_json` (tree and stump learners)."""

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
          refused: the format has no category sets.
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


def _warn_constant(model) -> None:
    """Warn that a model without trees is exported as one leaf of 0: it ranks nothing."""
    reason = getattr(model, "stop_reason_", None)
    why = f" (the fit stopped before its first tree: stop_reason_ {reason!r})" if reason else ""
    warnings.warn(f"{type(model).__name__}.to_xgboost_json: the model has no trees{why}, so it scores every row 0 "
                  f"and ranks nothing; it is written as one tree of a single leaf 0, as the engines refuse an empty "
                  f"list of trees", UserWarning, stacklevel=outside_stacklevel())
