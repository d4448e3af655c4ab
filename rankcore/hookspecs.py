"""Every hook a rankcore plugin can implement.

A plugin is a module (or any object) with functions decorated by
:data:`hookimpl` whose names match the hooks below.  Each registration hook
takes no arguments and returns a list of *classes*; the registry flattens
them once, by each class's ``name`` (and ``aliases``), into the families
rankcore resolves names against: eight families of components (spec strings)
and the estimators.

Built-in components are registered through exactly these hooks (see
``rankcore.registry.DEFAULT_PLUGINS``); third-party distributions expose a
plugin module under the entry-point group ``rankcore``::

    # pyproject.toml of a plugin distribution
    [project.entry-points.rankcore]
    my_plugin = "my_package.plugin"

    # my_package/plugin.py
    import rankcore

    class Cubic(rankcore.Price):
        name = "cubic"
        ...

    @rankcore.hookimpl
    def rankcore_register_prices():
        return [Cubic]

``docs/plugin_hooks.md`` documents every hook with its signature (``docs/plugins.md``
walks through a plugin package); a test checks that the two never drift apart.
"""

from __future__ import annotations

import pluggy

PROJECT_NAME = "rankcore"

#: Decorator marking a hook specification (used in this module only).
hookspec = pluggy.HookspecMarker(PROJECT_NAME)
#: Decorator marking a plugin's hook implementation; re-exported as ``rankcore.hookimpl``.
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


# --------------------------------------------------------------------------
# Push family ingredients: losses and prices
# --------------------------------------------------------------------------


@hookspec
def rankcore_register_losses():
    """Register pairwise losses ℓ for the push objective R = Σ_k g(Σ_i ℓ(f_i − f_k)).

    A loss is convex, non-negative, decreasing and upper-bounds 1[z ≤ 0].
    Each class derives from :class:`rankcore.Loss`, which asks for the value
    ℓ(z) and derivative ℓ′(z) and offers a blocked pairwise-sum kernel built
    on them; a loss that factorizes (exp, hinge, ...) overrides
    ``negative_sums``, ``positive_sums`` and ``directional_sums`` with an
    O((I+K) log(I+K)) kernel that turns scores into L_k and the per-example
    gradient sums (docs/theory/push.md#pairwise-sums-without-pairs).

    :return: a list of :class:`rankcore.Loss` subclasses.
    """


@hookspec
def rankcore_register_prices():
    """Register price functions g applied to each negative's summed loss L_k.

    A price is convex, non-negative and increasing.  Each class derives from
    :class:`rankcore.Price` and provides g, g′ and optionally g″, plus their
    log-space forms when g grows fast (``pow:p``, ``exp:β``), so that the
    driver can keep the objective finite at p = 64.

    :return: a list of :class:`rankcore.Price` subclasses.
    """


# --------------------------------------------------------------------------
# Weak rankers
# --------------------------------------------------------------------------


@hookspec
def rankcore_register_learners():
    """Register weak-learner families: sets of weak rankers h: X → [0, 1].

    Each class derives from :class:`rankcore.Learner`: it is prepared once on
    the training data and then, given one gradient weight per example,
    returns the weak ranker whose direction best decreases the objective.

    :return: a list of :class:`rankcore.Learner` subclasses.
    """


# --------------------------------------------------------------------------
# Whole objectives over scores
# --------------------------------------------------------------------------


@hookspec
def rankcore_register_objectives():
    """Register objectives over scores that the boosting driver can minimize.

    The push objective R_{g,ℓ} is composed from a loss and a price; other
    objectives (the precision@k surrogates, the magnitude-preserving squared
    loss) are complete functions of the score vector and register here.  Each
    class derives from :class:`rankcore.Objective`: value and gradient with
    respect to the scores (in a scale-free form, see the class docs).

    :return: a list of :class:`rankcore.Objective` subclasses.
    """


# --------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------


@hookspec
def rankcore_register_metrics():
    """Register metrics that judge a scoring of labelled examples.

    Each class derives from :class:`rankcore.Metric` and states its direction
    (``greater_is_better``), whether it is ``monotone`` (never worse when a
    positive's score rises or a negative's falls; ExactBoost requires it) and
    its ``task`` (``"bipartite"`` for 0/1 labels, ``"graded"`` for real labels).

    :return: a list of :class:`rankcore.Metric` subclasses.
    """


# --------------------------------------------------------------------------
# Kernel ranking (RKHS): spectral filters and kernel functions
# --------------------------------------------------------------------------


@hookspec
def rankcore_register_filters():
    """Register spectral regularization filters g_λ(t) for kernel ranking.

    Each class derives from :class:`rankcore.Filter` and evaluates g_λ on an
    array of eigenvalues t ≥ 0, with its finite limit at t → 0.

    :return: a list of :class:`rankcore.Filter` subclasses.
    """


@hookspec
def rankcore_register_kernels():
    """Register positive semi-definite kernel functions K(x, x′) for kernel ranking.

    Each class derives from :class:`rankcore.Kernel` and computes the Gram
    matrix between two sets of rows.

    :return: a list of :class:`rankcore.Kernel` subclasses.
    """


# --------------------------------------------------------------------------
# AutoRanker: candidate learners
# --------------------------------------------------------------------------


@hookspec
def rankcore_register_auto_candidates():
    """Register candidates that :class:`rankcore.AutoRanker` cross-validates and may choose.

    Each class derives from :class:`rankcore.auto.Candidate`: it builds an
    unfitted estimator (``fit(X, y)`` with y in {0, 1}, and
    ``decision_function`` or ``predict_proba``) for the data at hand, and
    declares when it applies (``accepts_missing``, ``max_rows``), its rough
    ``relative_cost`` and the configurations of the default search
    (``default_specs``; by default its bare name, so an installed plugin's
    candidate joins ``AutoRanker(candidates="auto")``).

    :return: a list of :class:`rankcore.auto.Candidate` subclasses.
    """


# --------------------------------------------------------------------------
# Estimators
# --------------------------------------------------------------------------


@hookspec
def rankcore_register_estimators():
    """Register estimators: scikit-learn-compatible rankers fitted on (X, y).

    Each class derives from :class:`rankcore.base.Ranker` and declares its
    ``name`` (the model file's ``estimator`` and the ``rankcore fit --model``
    name), its ``parameters`` (:class:`rankcore.Parameter`, from which its
    constructor, docstring section and validation come) and its ``fitted``
    state (:class:`rankcore.base.Fitted`, what a model file holds).  A
    registered estimator is saved and loaded by ``rankcore.save_model`` /
    ``rankcore.load_model`` and fitted by ``rankcore fit --model NAME``.

    :return: a list of :class:`rankcore.base.Ranker` subclasses.
    """
