"""``to_lightgbm`` of the push-family estimators: the fitted trees as a LightGBM text model file."""

from __future__ import annotations

import warnings

from sklearn.utils.validation import check_is_fitted

from .._caller import outside_stacklevel
from .._threadsafe import reads_a_snapshot
from ..learners import checked_feature_names, lightgbm_model_string

__all__ = ["LightGBMExport", "TREE_KINDS", "check_tree_rankers", "write_exported_text", "warn_init_score"]

#: Weak rankers (``kind``) LightGBM's and XGBoost's formats hold: trees (any growth) and stumps / thresholds.
TREE_KINDS = ("tree", "oblivious_tree", "threshold")
#: The learners fitting them (a model that grew nothing is refused unless its learner is one of these).
_TREE_LEARNERS = ("trees", "stumps", "thresholds")


class LightGBMExport:
    """Mixin of ``_BaseBoost``: :meth:`to_lightgbm` (tree and stump learners)."""

    @reads_a_snapshot
    def to_lightgbm(self, path=None, *, feature_names=None) -> str:
        """The model as a LightGBM text model file (``Booster.model_to_string``), written to ``path`` if given.

        ``lightgbm.Booster(model_str=text)`` -- or ``model_file=path`` --
        then predicts with ``raw_score=True`` exactly
        :meth:`decision_function`: each tree's leaf values are α_t times
        rankcore's, and LightGBM adds the trees in the same order, so the
        scores agree bit for bit on float64 and float32 input, NaN included
        (tested).  Any tool reading LightGBM models (LightGBM's C API,
        Treelite, ONNX converters, SHAP, Vespa) can then serve the ranker.

        * Split semantics are the same: a numeric split sends x left iff
          x <= threshold (the rankcore threshold itself), NaN by the split's
          side; a categorical split sends its categories left (written as a
          bitset; LightGBM sends NaN right at such a node, so a split
          sending NaN left is written as a NaN test above it, with the left
          subtree copied under the NaN branch).
        * Oblivious trees (``growth='oblivious'``) become full binary trees
          of 2^depth leaves; LightGBM's leaf k is the cell k ``apply``
          returns.  For other trees leaf k is rankcore's k-th leaf by node id,
          ``np.flatnonzero(tree.left < 0)[k]``; copies under a NaN test
          follow.  Stumps are trees of two leaves (0 and α).
        * ``leaf_count`` / ``internal_count`` are the trees' covers, so
          LightGBM's ``pred_contrib`` equals :meth:`feature_contributions`
          (covers of oblivious cells shared by an unsplit node are scaled by
          a power of two to integers).  Stumps and trees loaded from files
          without covers write counts 0, which ``pred_contrib`` cannot use.
        * ``objective=lambdarank``: LightGBM outputs the raw score.  Initial
          scores and position effects of the fit are not in the file, as
          they are not in :meth:`decision_function`: a model fitted from
          initial scores (``from_init_score_``) is the correction alone --
          a ``UserWarning`` says so; add the rows' initial scores to
          LightGBM's raw score.
        * A DataFrame's category columns are written as
          ``pandas_categorical``, so LightGBM codes a DataFrame as the fit
          did; a categorical split sending NaN left is written as the
          complement of its categories (children swapped).  A split of a
          column coded by the user (``categorical_features``) sending NaN
          left is a NaN test above it with the left subtree copied under
          the NaN branch (the tree's size is checked before anything is
          copied).

        What differs, by LightGBM's reading of the input:

        * a nonzero value of magnitude at most 1e-35 (as a float32) is read
          as 0, which matters at a split of threshold in that band (0
          included);
        * a categorical column's value is read by its integer part
          (rankcore sends a value that is not one of its categories right):
          score categorical columns coded as integers;
        * LightGBM's Python ``predict`` converts an array that is not of
          floats (integers) to float32, which moves integers above 2^24
          (ids, timestamps) across thresholds: pass ``X.astype(np.float64)``;
        * a DataFrame's ``category`` column is read by its codes, while the
          learners that do not split by category groups (``'stumps'``,
          ``'thresholds'``) read it by its values: a ``UserWarning`` names
          such columns (``category_columns_read_as_values_``); give LightGBM
          them as numbers (``X.astype({col: float})``).

        Feature names keep their text, but whitespace, control characters
        and ``" , : [ ] { } \\`` become ``_``.  Category ids above 65,535
        make large bitsets (a ``UserWarning`` suggests renumbering them).
        The file is written atomically (a symlink at ``path`` stays); a
        device, a FIFO or ``/dev/stdout`` is written into, never replaced.

        Parameters
        ----------
        path : str or path-like, optional
            Also write the text to this file (UTF-8).
        feature_names : sequence of str, optional
            One unique nonempty name per feature, in column order (a list,
            tuple, 1-D array or pandas Index), overriding ``feature_names_in_``.

        Returns
        -------
        str
            The model text.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            The estimator is not fitted.
        TypeError
            The learner's weak rankers are not trees or stumps (e.g.
            ``learner='features'``); ``feature_names`` is not a sequence.
        ValueError
            A categorical split holds a category that is not an integer code
            from 0 to 2^24 − 1, two names become the same, ``feature_names``
            is not one per feature, a ``category`` column holds dates.
        """
        check_tree_rankers(self, "to_lightgbm", "LightGBM's format")
        name, n_features = type(self).__name__, int(self.n_features_in_)
        given = feature_names is not None
        names = checked_feature_names(feature_names, n_features) if given else getattr(self, "feature_names_in_", None)
        text = lightgbm_model_string(self.rankers_, self.alphas_, n_features, feature_names=names,
                                     categories=getattr(self, "categories_", None), owner=name, names_given=given)
        _warn_category_values(self, name)
        warn_init_score(self, f"{name}.to_lightgbm", "LightGBM's raw score")
        write_exported_text(text, path)
        return text


def _warn_category_values(model, name: str) -> None:
    """Warn when the fit read a DataFrame's ``category`` columns by value: LightGBM's predict would read codes."""
    columns = getattr(model, "category_columns_read_as_values_", ())
    if not columns:
        return
    names = getattr(model, "feature_names_in_", None)
    shown = ", ".join(repr(str(names[j])) if names is not None else f"column {j}" for j in columns)
    warnings.warn(f"{name}.to_lightgbm: {shown} {'was a' if len(columns) == 1 else 'were'} pandas 'category' "
                  f"column{'s' if len(columns) > 1 else ''} at fit, which the learner {model.learner_spec_!r} read by "
                  f"value, but LightGBM's predict reads a DataFrame's 'category' column by its codes: give LightGBM "
                  f"such columns as numbers (X.astype({{col: float}})) or a NumPy array of the values",
                  UserWarning, stacklevel=outside_stacklevel())


def warn_init_score(model, where: str, score: str) -> None:
    """Warn that a model fitted from initial scores (``from_init_score_``) is exported as the correction alone."""
    if getattr(model, "from_init_score_", False):
        warnings.warn(f"{where}: the model was fitted from initial scores (from_init_score_): the file holds the "
                      f"correction alone; add the rows' initial scores to {score} to rank as the model does",
                      UserWarning, stacklevel=outside_stacklevel())


def check_tree_rankers(model, method: str, format_name: str) -> None:
    """Refuse an unfitted model, or one whose weak rankers are not trees or stumps (``TypeError``)."""
    check_is_fitted(model)
    kinds = sorted({getattr(r, "kind", type(r).__name__) for r in model.rankers_})
    learner = getattr(getattr(model, "_learner", None), "name", None)
    if any(k not in TREE_KINDS for k in kinds) or not kinds and learner not in _TREE_LEARNERS:
        # a model that grew nothing has no kind to name: its learner's rankers are what the format cannot hold
        fitted = f"of kind {', '.join(map(repr, kinds))}" if kinds else "that are not trees or stumps"
        raise TypeError(f"{type(model).__name__}.{method}: the learner {model.learner_spec_!r} fits weak rankers "
                        f"{fitted}, which {format_name} cannot hold; export models of learner='trees' or 'stumps'")


def write_exported_text(text: str, path) -> None:
    """Write ``text`` to ``path`` (UTF-8, ``\\n`` line ends) atomically unless ``path`` is None: a server
    watching the file sees the old model or the new one, never half of one."""
    if path is not None:
        from ..persistence import write_text_atomically

        write_text_atomically(text, path)
