"""``to_lightgbm`` of the push-family estimators: the fitted trees as a LightGBM text model file."""

from __future__ import annotations

import os

from sklearn.utils.validation import check_is_fitted

from .._threadsafe import reads_a_snapshot
from ..learners import lightgbm_model_string

__all__ = ["LightGBMExport", "check_tree_rankers", "write_text"]

#: Weak rankers LightGBM's format holds: trees (any growth) and stumps / thresholds.
_TREE_KINDS = ("tree", "oblivious_tree", "threshold")
#: The learners fitting them (a model that grew nothing is refused unless its learner is one of these).
_TREE_LEARNERS = ("trees", "stumps", "thresholds")


class LightGBMExport:
    """Mixin of ``_BaseBoost``: :meth:`to_lightgbm` (tree and stump learners)."""

    @reads_a_snapshot
    def to_lightgbm(self, path=None) -> str:
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
          they are not in :meth:`decision_function`.

        What differs, by LightGBM's reading of the input: LightGBM reads a
        nonzero value of magnitude at most 1e-35 (as a float32) as 0, which
        matters at a split of threshold in that band (0 included), and a categorical
        column's value by its integer part (rankcore sends a value that is
        not one of its categories right): score categorical columns coded
        as integers.  Feature names keep their text, but whitespace and
        ``" , : [ ] { }`` become ``_``; a DataFrame's category columns are
        written as ``pandas_categorical``, so LightGBM codes a DataFrame as
        the fit did.

        Parameters
        ----------
        path : str or path-like, optional
            Also write the text to this file (UTF-8).

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
            ``learner='features'``).
        ValueError
            A categorical split holds a category that is not an integer code
            from 0 to 2^24 − 1, or two feature names become the same.
        """
        check_tree_rankers(self, "to_lightgbm", "LightGBM's format")
        name = type(self).__name__
        text = lightgbm_model_string(self.rankers_, self.alphas_, int(self.n_features_in_),
                                     feature_names=getattr(self, "feature_names_in_", None),
                                     categories=getattr(self, "categories_", None), owner=name)
        write_text(text, path)
        return text


def check_tree_rankers(model, method: str, format_name: str) -> None:
    """Refuse an unfitted model, or one whose weak rankers are not trees or stumps (``TypeError``)."""
    check_is_fitted(model)
    kinds = sorted({getattr(r, "kind", type(r).__name__) for r in model.rankers_})
    learner = getattr(getattr(model, "_learner", None), "name", None)
    if any(k not in _TREE_KINDS for k in kinds) or not kinds and learner not in _TREE_LEARNERS:
        fitted = ", ".join(map(repr, kinds)) or repr(learner)
        raise TypeError(f"{type(model).__name__}.{method}: the learner {model.learner_spec_!r} fits weak rankers of "
                        f"kind {fitted}, which {format_name} cannot hold; export models of learner='trees' or "
                        f"'stumps'")


def write_text(text: str, path) -> None:
    """Write ``text`` to ``path`` (UTF-8, ``\\n`` line ends) unless ``path`` is None."""
    if path is not None:
        with open(os.fspath(path), "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
