"""The model a command scores a data file with (``score``, ``explain``, ``explain --permutation``), checked once."""

from __future__ import annotations

from . import CommandError
from ._columns import model_features
from ._common import check_output
from ._init_scores import check_scored_with_init_scores

__all__ = ["load_scoring_model"]


def load_scoring_model(args, *, id_may_be_feature: bool = False):
    """(model, keep): the model file ``args.model`` loaded, and the data columns to keep beside its features.

    Before anything is read, ``--out`` is checked (not one of the inputs, ``--force`` to replace it); then the
    model's need of ``--init-score`` and that ``--id`` is not one of its features (the identifier is kept for the
    output, never read by the model) -- unless ``id_may_be_feature`` (``score``, which copies a feature such as a
    recommender's item id from the features themselves): then such an ``--id`` is not kept aside.
    """
    from ..persistence import load_model

    if args.out:
        check_output(args.out, "--out", inputs={"MODEL": args.model, "DATA": args.data}, force=args.force)
    model = load_model(args.model)
    check_scored_with_init_scores(model, args.model, args.init_score)
    if args.id_column and args.id_column in (model_features(model) or ()):
        if id_may_be_feature:
            return model, []
        raise CommandError(f"--id {args.id_column}: a feature of the model {args.model}; --id names the rows by an "
                           "identifier column, which the model does not read")
    return model, ([args.id_column] if args.id_column else [])
