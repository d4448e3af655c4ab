"""scikit-learn estimators of the push family: PushBoost, PNormPush, RankBoost, boost().

Each differs from the others only in the objective it builds from its
parameters (``_objective``); fitting, early stopping, fits within queries
and the fitted state are :class:`~rankcore.push._boost_base._BaseBoost`'s.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

from ..base import declared_attribute, resolve_parameter
from ..spec import Component, ParameterError
from ._boost_base import _BaseBoost
from ._estimator_docs import ATTRIBUTES_DOC
from ._params import BOOSTING, LOSS, OBJECTIVE, P, PRICE
from ._query_defaults import QUERY_GAIN_WEIGHTED, QUERY_OBJECTIVE, QUERY_PRICE, query_rmse_weight
from ._scoring import OBJECTIVE_SCORING, ObjectiveScoring
from .._peer_names import PEER_NAMES_WITHOUT, peer_name_hint
from ._peer_names import PEER_NAMES, fit_argument_of

__all__ = ["PushBoost", "PNormPush", "RankBoost", "boost"]


class PushBoost(_BaseBoost):
    __doc__ = """Boosting for the push objective R_{g,ℓ} = Σ_k g(Σ_i ℓ(f_i − f_k)), or any registered objective.

    Minimizes the objective over linear combinations of weak rankers by
    coordinate descent (Rudin 2006; docs/theory/push.md#coordinate-descent),
    with every pairwise sum computed without pairs where the loss allows it
    and in log space, so
    ``price="pow:64"`` stays finite.
""" + ATTRIBUTES_DOC + """
    Examples
    --------
    >>> import rankcore
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = rankcore.boost(loss="exp", price="pow:4", learner="stumps", n_iter=20).fit(X, 1 - y)
    >>> model.decision_function(X[:3]).shape
    (3,)
    """

    name = "PushBoost"
    aliases = ("push", "pushboost", "pnorm")
    summary = "the push family (P-Norm Push; any loss, price and weak learner)"
    examples = ("PushBoost:n_iter=10", "PushBoost:objective=mp-squared,n_iter=5",
                "PushBoost:learner=trees:max_leaves=4,n_iter=4,random_state=0")
    parameters = (LOSS, PRICE, OBJECTIVE) + BOOSTING

    def _objective(self, params, learner):
        from ..objectives import PushObjective

        if params.objective is None:
            loss = resolve_parameter("loss", "loss", params.loss)
            # None: the learner's own default (pow:4; pow:2 for trees)
            price = resolve_parameter("price", "price", learner.default_price if params.price is None
                                      else params.price)
            return PushObjective(loss=loss, price=price)          # the components, never their text again
        loss = getattr(params.loss, "spec", params.loss)
        price = getattr(params.price, "spec", params.price)
        # only what was set: loss='exp' is the default, which a message listing it would call a conflict
        given = [f"{name}={value!r}" for name, value, unset in (("loss", loss, "exp"), ("price", price, None))
                 if value != unset]
        if given:
            raise ValueError(
                f"objective={getattr(self.objective, 'spec', self.objective)!r} replaces loss and price; got also "
                f"{', '.join(given)} (leave them at their defaults, or use objective='push:<loss>,<price>')"
            )
        return resolve_parameter("objective", "objective", params.objective)

    def _for_ranked_queries(self, setup, n_ranked_queries):
        """``setup`` with the default objective's QueryRMSE weight for ``n_ranked_queries`` queries with two grades
        (:func:`query_rmse_weight`): its resolved components reused, nothing resolved again."""
        from ..objectives import PushObjective

        objective, weight = setup.objective, query_rmse_weight(n_ranked_queries)
        if (setup.params.objective is not None or not isinstance(objective, PushObjective)
                or objective.query_rmse == weight or objective.query_rmse != query_rmse_weight(None)):
            return setup
        objective = PushObjective(loss=objective.loss_component, price=objective.price_component,
                                  gain_weighted=objective.gain_weighted, query_rmse=weight)
        validation = ObjectiveScoring(objective) if setup.params.scoring == OBJECTIVE_SCORING else setup.validation
        return replace(setup, objective=objective, validation=validation)

    def _query_objective(self, params, learner, objective):
        from ..objectives import PushObjective

        if params.objective is not None:
            return objective
        if params.position_bias.em:         # the click model's rounds refit the trees on this (_click_model)
            return resolve_parameter("objective", "objective", "cross-entropy")
        if QUERY_OBJECTIVE is not None and getattr(params.loss, "spec", params.loss) == "exp":
            return resolve_parameter("objective", "objective", QUERY_OBJECTIVE)
        price = objective.price_component
        if params.price is None and QUERY_PRICE is not None:
            price = resolve_parameter("price", "price", QUERY_PRICE)
        return PushObjective(loss=objective.loss_component, price=price, gain_weighted=QUERY_GAIN_WEIGHTED,
                             query_rmse=query_rmse_weight(None))


class PNormPush(_BaseBoost):
    __doc__ = """P-Norm Push (Rudin 2006): exponential loss, price g(r) = r^p, boosted.

    The same estimator as ``PushBoost(loss="exp", price=f"pow:{p}")``.
""" + ATTRIBUTES_DOC + """
    Examples
    --------
    >>> import numpy as np
    >>> import rankcore
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 3))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> model = rankcore.PNormPush(p=4, n_iter=10).fit(X, y)
    >>> model.decision_function(X[:3]).shape
    (3,)
"""

    name = "PNormPush"
    summary = "P-Norm Push: exponential loss, price r^p"
    command_line = False
    command_line_instead = "use --model push --price pow:P (the same estimator)"
    examples = ("PNormPush:p=8,n_iter=10",)
    parameters = (P,) + BOOSTING

    def _objective(self, params, learner):
        from ..objectives import PushObjective
        from ..registry import resolve

        try:
            price = resolve("price", f"pow:{params.p!r}")
        except ValueError as exc:     # above rankcore.prices.MAX_POWER
            raise ParameterError(f"p={self.p!r}: {exc}") from None
        return PushObjective(loss="exp", price=price)


class RankBoost(_BaseBoost):
    __doc__ = """RankBoost for bipartite ranking (Freund et al. 2003): exponential loss, no push.

    The same estimator as ``PushBoost(loss="exp", price="identity")``; with
    binary weak rankers each step equals RankBoost's closed form ½ ln(W₊/W₋).
""" + ATTRIBUTES_DOC + """
    Examples
    --------
    >>> import numpy as np
    >>> import rankcore
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 3))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> model = rankcore.RankBoost(n_iter=10).fit(X, y)
    >>> model.decision_function(X[:3]).shape
    (3,)
"""

    name = "RankBoost"
    aliases = ("rankboost",)
    summary = "RankBoost (exp loss, identity price)"
    examples = ("RankBoost:n_iter=10",)
    parameters = BOOSTING

    def _objective(self, params, learner):
        from ..objectives import PushObjective

        return PushObjective(loss="exp", price="identity")


#: :meth:`PushBoost.fit`'s arguments besides X and y, which a user may give to :func:`boost` by mistake.
_FIT_ARGUMENTS = ("qid", "group", "sample_weight", "position", "init_score", "init_model", "eval_set", "eval_names",
                  "eval_metric", "eval_init_score", "callbacks")


def _learner_hint(name: str, learner: Any) -> str:
    """``; it is the learner's parameter: learner="trees:NAME=..."`` when the configured learner (a spec or a
    component) takes a parameter ``name``, else ""."""
    if name not in {p.name for p in declared_attribute("learner", learner, "parameters", ())}:
        return ""
    spec = learner.spec if isinstance(learner, Component) else str(learner).strip()
    return f"; it is the learner's parameter: learner=\"{spec}{',' if ':' in spec else ':'}{name}=...\""


def _check_names(params: dict, learner: Any = None) -> None:
    """A TypeError naming a keyword PushBoost does not take: with the spec that sets it when the ``learner``
    takes it, and with rankcore's name for LightGBM's and XGBoost's."""
    known = PushBoost._get_param_names()
    for name, value in params.items():
        if name in _FIT_ARGUMENTS:
            # CatBoost's eval_metric is the metric its early stopping and best model follow: scoring here
            watched = ("; the metric early stopping and best_iteration_ follow (CatBoost's eval_metric) is "
                       "scoring='ndcg@k:10' (any registered metric)" if name == "eval_metric" else "")
            raise TypeError(f"{name}: rankcore.boost takes no parameter {name!r}; it is fit's argument: "
                            f"rankcore.boost(...).fit(X, y, {name}=...){watched}")
        ours = fit_argument_of(name)
        if ours is not None:
            raise TypeError(f"{name}: rankcore.boost takes no parameter {name!r}; other libraries' {name} is fit's "
                            f"argument {ours} here: rankcore.boost(...).fit(X, y, {ours}=...)")
        if name not in known:
            peer = PEER_NAMES.get(name, "")
            if peer.startswith("scoring=") and isinstance(value, str):
                peer = f"scoring={value!r} (any registered metric)"
            ours = _learner_hint(name, learner)
            learner_name = declared_attribute("learner", learner, "name", None)
            if ours and peer.startswith(f'learner="{learner_name}:{name}='):      # the same advice once
                peer = ""
            hint = ours + (f"; other libraries' {name} is {peer} here" if peer else "")
            if name in PEER_NAMES_WITHOUT:
                hint += f"; {peer_name_hint(name)}"
            known_text = "" if ours else f" (PushBoost's parameters: {', '.join(sorted(known))})"
            raise TypeError(f"{name}: rankcore.boost takes no parameter {name!r}{hint}{known_text}")


def _keywords_only(func):
    """``func`` (keyword-only) refusing positional arguments with what to do instead.

    A student's first try is ``rankcore.boost(X, y)``, as a function that trains; Python's own refusal ("takes 0
    positional arguments but 2 were given") does not say that ``boost`` builds an estimator to fit.  The signature
    ``help()`` and ``inspect.signature`` show stays ``func``'s (through ``__wrapped__``).
    """
    @functools.wraps(func)
    def keywords_only(*args: Any, **kwargs: Any):
        if args:
            name, first = func.__name__, args[0]
            given = f"got {len(args)} positional argument{'s' * (len(args) != 1)}"
            if isinstance(first, (str, Component)) or (isinstance(first, type) and issubclass(first, Component)):
                advice = f"name each component, e.g. rankcore.{name}(loss=\"exp\", price=\"pow:4\")"
            elif isinstance(first, dict):       # parameters gathered in a dict (from a search, a config file)
                advice = f"unpack a dict of parameters with **: rankcore.{name}(**params)"
            else:
                raise TypeError(f"rankcore.{name} takes no data, {given}: it returns an unfitted estimator, so fit "
                                f"that one: rankcore.{name}(...).fit(X, y)")
            raise TypeError(f"rankcore.{name} takes keyword arguments only, {given}; {advice}")
        return func(**kwargs)
    return keywords_only


@_keywords_only
def boost(*, loss: Any = "exp", price: Any = None, objective: Any = None, learner: Any = "stumps",
          n_iter: int | None = None, **params: Any) -> PushBoost:
    """An unfitted :class:`PushBoost` for the given components.

    ``rankcore.boost(loss="exp", price="pow:16", learner="features", n_iter=200)``
    is P-Norm Push with p = 16 on min–max scaled features;
    ``rankcore.boost(objective="prec@k-avg:20", learner="stumps")`` boosts any
    registered objective; ``rankcore.boost(learner="trees")`` grows gradient-boosted
    trees on the push objective (price ``pow:2``, the trees' default; each tree on
    a seeded 80 % of the rows, so pass ``random_state`` for repeatable fits).  Other
    keyword arguments are :class:`PushBoost`'s.  ``fit(X, y, qid=...)`` fits within
    queries: ``boost(loss="exp", price="pow:16", learner="trees").fit(X, y, qid=qid)``
    is P-Norm Push within each query over relevance grades.  A keyword
    PushBoost does not take is a TypeError naming it (with rankcore's name for
    LightGBM's ``n_estimators``, ``num_leaves``, ``early_stopping_rounds``, ...).

    Parameters
    ----------
    loss : str or Loss, default="exp"
        The loss of the push objective (``"exp"``, ``"logistic"``, ...).
    price : str, Price or None, default=None
        The price of the push objective (``"pow:4"``); None: the learner's default.
    objective : str, Objective or None, default=None
        Any registered objective instead of the push of ``loss`` and ``price``.
    learner : str or Learner, default="stumps"
        The weak learner (``"stumps"``, ``"features"``, ``"thresholds"``, ``"trees"``).
    n_iter : int or None, default=None
        Boosting iterations at most (None: :class:`PushBoost`'s default).
    **params
        Any other :class:`PushBoost` parameter (``random_state``, ``early_stopping``, ...).

    Returns
    -------
    PushBoost
        The unfitted estimator.

    Examples
    --------
    ``boost`` returns the estimator; ``fit`` trains it (``rankcore.boost(X, y)``
    is a TypeError saying so):

    >>> import numpy as np
    >>> import rankcore
    >>> from rankcore.metrics import auc
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    >>> model = rankcore.boost(loss="exp", price="pow:4", n_iter=50)
    >>> model
    PushBoost(n_iter=50, price='pow:4')
    >>> model = model.fit(X, y)
    >>> model.n_iter_
    50
    >>> auc(y, model.decision_function(X)) > 0.85     # 0.91 here; the last digits may differ by machine
    True
    """
    _check_names(params, learner)
    return PushBoost(loss=loss, price=price, objective=objective, learner=learner, n_iter=n_iter, **params)
