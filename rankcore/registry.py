"""The plugin registry: one pluggy manager, eight component families and the estimators.

Built-in components and third-party plugins come through the same door: the
modules in :data:`DEFAULT_PLUGINS` are registered with ``pm.register`` exactly
like the modules loaded from the ``rankcore`` entry-point group.  The manager is
built lazily on first use -- importing rankcore never loads a plugin -- and
the registry is rebuilt only on request, so drivers resolve their components
once at ``fit`` start and never call a hook inside a loop.

Failures are contained: a plugin module that does not import, a hook that
raises, a class of the wrong family or a name that is already taken is
reported (as a :class:`PluginProblem`, and once as a warning) with the
distribution that provided it, and everything else keeps working.

Set ``RANKCORE_DISABLE_PLUGIN_AUTOLOAD=1`` to skip entry-point plugins.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.metadata as importlib_metadata
import os
import re
import threading
import warnings
from dataclasses import dataclass, field
from typing import Any

import pluggy

from . import hookspecs
from .spec import Component, SpecError, parse_spec, set_registered_class_lookup, show_given

__all__ = [
    "at_k_name",
    "DEFAULT_PLUGINS",
    "built_registry",
    "ENTRY_POINT_GROUP",
    "FAMILIES",
    "PluginProblem",
    "RegistryEntry",
    "Registry",
    "UnknownComponentError",
    "get_plugin_manager",
    "registry",
    "register_plugin",
    "unregister_plugin",
    "resolve",
    "list_plugins",
]

ENTRY_POINT_GROUP = "rankcore"
DISABLE_AUTOLOAD_ENV = "RANKCORE_DISABLE_PLUGIN_AUTOLOAD"
BUILTIN_PROVIDER = "rankcore"

#: Internal plugin modules, registered like third-party ones.
DEFAULT_PLUGINS: tuple[str, ...] = (
    "rankcore.metrics._plugin",
    "rankcore.losses._plugin",
    "rankcore.prices._plugin",
    "rankcore.learners._plugin",
    "rankcore.objectives._plugin",
    "rankcore.precision_at_k._plugin",
    "rankcore.filters._plugin",
    "rankcore.kernels._plugin",
    "rankcore.rkhs._plugin",
    "rankcore.auto._plugin",
    "rankcore._estimators",
)

# family -> (registration hook, "module:BaseClass")
FAMILIES: dict[str, tuple[str, str]] = {
    "loss": ("rankcore_register_losses", "rankcore.losses._base:Loss"),
    "price": ("rankcore_register_prices", "rankcore.prices._base:Price"),
    "learner": ("rankcore_register_learners", "rankcore.learners._base:Learner"),
    "objective": ("rankcore_register_objectives", "rankcore.objectives._base:Objective"),
    "metric": ("rankcore_register_metrics", "rankcore.metrics._base:Metric"),
    "filter": ("rankcore_register_filters", "rankcore.filters._base:Filter"),
    "kernel": ("rankcore_register_kernels", "rankcore.kernels._base:Kernel"),
    "candidate": ("rankcore_register_auto_candidates", "rankcore.auto._candidate:Candidate"),
    "estimator": ("rankcore_register_estimators", "rankcore.base:Ranker"),
}


#: CatBoost's and XGBoost's names of what a family holds under another name, with what differs (an unknown name's hint).
_PEER_SPECS = {
    ("metric", "NDCG"): "ndcg@k:K,convention=catboost (CatBoost's NDCG:top=K takes the grade as the gain; "
                        "ndcg@k's default gain is 2^grade - 1)",
    ("objective", "YetiRank"): "'yetirank'",
    ("objective", "QueryRMSE"): "'mp-squared' with fit(..., qid=...)",
    # XGBoost's rank:ndcg, rank:map and rank:pairwise reach the registry as the name 'rank'
    ("objective", "rank"): "'lambdarank' for rank:ndcg (LambdaMART; 'lambdarank:gain=linear' for "
                           "ndcg_exp_gain=False; the nearest to rank:map, which weighs pairs by their change of MAP), "
                           "'push:logistic,identity' for rank:pairwise (RankNet's logistic loss on the pairs of "
                           "different grades within each query)",
}

#: Names a user may give AutoRanker for the push estimator or a per-query objective, which are a parameter of its
#: trees candidate, not a candidate of their own: what to write instead.
_CANDIDATE_HINTS = dict.fromkeys(
    ("push", "boost", "pushboost", "lambdarank", "lambdamart", "yetirank"),
    "the push estimator is the candidate 'trees' (rankcore.boost(learner='trees')), and its objective the "
    "candidate's parameter objective: 'trees:objective=lambdarank' (with qid)")

#: XGBoost's ranking metrics: ndcg, map or pre, with an optional @K and a '-' (a query without a relevant row
#: scores 0 instead of 1).  ``ndcg@10`` and ``map@5`` read as rankcore's ``ndcg@k:10`` and ``map@k:5``, whose
#: defaults are not XGBoost's, so every spelling of these names gets the spec that gives XGBoost's number.
_XGBOOST_METRIC = re.compile(r"^(?P<base>ndcg|map|pre)(?:@(?P<k>[0-9]+))?(?P<minus>-)?$")


def _xgboost_metric_hint(name: str) -> str | None:
    """The spec that gives XGBoost's metric ``name`` (``ndcg@10-``, ``map-``, ``pre@5``), None for other names."""
    match = _XGBOOST_METRIC.match(name)
    if match is None:
        return None
    base, k, empty = match["base"], match["k"], ",empty=0" if match["minus"] else ""
    whole = "" if k else " with K the longest query's rows (XGBoost's reads each whole query)"
    # LightGBM's metric="ndcg" / "map" is one curve per eval_at cut-off (1 to 5 unless eval_at says), not whole lists
    lightgbm = ("" if k or empty else f"; LightGBM's {base} with eval_at=[1, 5] is eval_metric=[\"{base}@k:1,"
                f"convention=lightgbm\", \"{base}@k:5,convention=lightgbm\"]")
    if base == "ndcg":
        return (f"ndcg@k:{k or 'K'},convention=xgboost{empty}{whole} (gain=linear for ndcg_exp_gain=False; the "
                f"default ndcg@k averages ties and leaves a query without a relevant row out){lightgbm}")
    if base == "map":
        spec = f"map@k:{k},convention=xgboost{empty}" if k else f"map:convention=xgboost{empty}"
        return f"{spec} (the default map averages ties and leaves a query without a relevant row out){lightgbm}"
    return (f"prec@k:{k or 'K'}{whole}, with another divisor: XGBoost's pre@K divides a query's hits by "
            "min(K, its rows) and orders a tie by row, prec@k divides by K and shares a tie at place K (the same "
            "number when every query has K rows or more and no tie straddles place K)")


class UnknownComponentError(SpecError):
    """A spec names a component that is not registered."""


@dataclass(frozen=True)
class PluginProblem:
    """Something a plugin did wrong, kept so that users can see it.

    Attributes
    ----------
    distribution : str
        The distribution (package on PyPI) that provided the plugin.
    plugin : str
        The entry-point or module name.
    message : str
        What went wrong.
    """

    distribution: str
    plugin: str
    message: str

    def __str__(self) -> str:
        return f"plugin {self.plugin!r} from distribution {self.distribution!r}: {self.message}"


@dataclass(frozen=True)
class RegistryEntry:
    """One registered component class."""

    family: str
    name: str
    cls: type
    distribution: str
    plugin: str
    aliases: tuple[str, ...] = ()

    @property
    def parameters(self) -> str:
        """The spec form, e.g. ``pow:p`` (an estimator: its name; its parameters are many)."""
        if self.family == "estimator":
            return self.name
        params = ",".join(p.name for p in self.cls.parameters)
        return self.name + (":" + params if params else "")

    @property
    def summary(self) -> str:
        declared = getattr(self.cls, "summary", "") if self.family == "estimator" else ""
        if isinstance(declared, str) and declared:
            return declared
        doc = (self.cls.__doc__ or "").strip().splitlines()
        return doc[0] if doc else ""


#: A spec :meth:`Registry.declared` has not looked up yet.
_UNREAD = object()

#: The most spec strings a registry snapshot remembers the class of (:meth:`Registry.declared`): a search over many
#: configurations names each one once, and would otherwise grow the table with every one.
DECLARED_SPECS = 1024


@dataclass
class Registry:
    """A snapshot of every registered component, by family and name.

    Obtain it with :func:`rankcore.get_registry`.  ``entries[family][name]`` is a
    :class:`RegistryEntry`; aliases resolve to the same entry.
    """

    entries: dict[str, dict[str, RegistryEntry]] = field(default_factory=dict)
    aliases: dict[str, dict[str, str]] = field(default_factory=dict)
    problems: list[PluginProblem] = field(default_factory=list)
    # (family, spec) -> the class the spec names, or None (a snapshot's names do not change); the class's attribute
    # is read on each call, so a declaration changed at run time (a test's monkeypatch) is seen
    _declared: dict = field(default_factory=dict, repr=False, compare=False)

    def declared(self, family: str, spec: str, attribute: str, default: Any) -> Any:
        """The class attribute ``attribute`` of the component ``spec`` names (``default`` when it names none),
        read without configuring it; the spec is parsed and looked up once per snapshot (at most
        :data:`DECLARED_SPECS` remembered), as estimators ask it on every call (their tags)."""
        key = (family, spec)
        cls = self._declared.get(key, _UNREAD)
        if cls is _UNREAD:
            cls = self._declared_class(family, spec)
            if len(self._declared) >= DECLARED_SPECS:
                self._declared.clear()
            self._declared[key] = cls
        if cls is None:
            return default
        found = getattr(cls, attribute, default)
        if isinstance(found, property):
            return self._configured_attribute(family, spec, attribute, default)
        return found

    def _configured_attribute(self, family: str, spec: str, attribute: str, default: Any) -> Any:
        """``attribute`` of the component ``spec`` configures, for a class that declares it as a property.

        Read on the class, a property is the property object itself (always true): a plugin whose declaration
        depends on its parameters (``allow_nan`` only for some ``max_leaves``) is configured to answer, and a spec
        it refuses answers ``default`` (the error is the fit's to raise).
        """
        try:
            return getattr(self.resolve(family, spec), attribute, default)
        except (TypeError, ValueError):
            return default

    def _declared_class(self, family: str, spec: str) -> type | None:
        from .spec import parse_spec

        try:
            return self.get(family, parse_spec(spec)[0])
        except (TypeError, ValueError):
            return None

    def names(self, family: str) -> list[str]:
        """Registered names of one family, sorted."""
        return sorted(self._family(family))

    def in_order(self, family: str) -> list[RegistryEntry]:
        """The entries of one family in registration order (built-ins first, in their table's order)."""
        return list(self._family(family).values())

    def get(self, family: str, name: str) -> type:
        """The class registered under ``name`` (or one of its aliases)."""
        return self.entry(family, name).cls

    def entry(self, family: str, name: str) -> RegistryEntry:
        """The registration of ``name`` (or one of its aliases) in ``family``: its class, plugin and declarations.

        Raises
        ------
        ValueError
            An unknown family or name, listing the registered ones.
        """
        table = self._family(family)
        key = self.aliases.get(family, {}).get(name, name)
        try:
            return table[key]
        except KeyError:
            known = sorted(table)
            guess = did_you_mean(name, {**{k: k for k in known}, **self.aliases.get(family, {})})
            hint = f"; did you mean {guess!r}?" if guess else ";"
            peer = _PEER_SPECS.get((family, name)) or (_xgboost_metric_hint(name) if family == "metric" else None)
            if peer:                                 # a guess by spelling alone would miss the convention
                hint = f"; other libraries' {name} is {peer} here;"
            elif family == "candidate" and name.lower() in _CANDIDATE_HINTS:
                hint = f"; {_CANDIDATE_HINTS[name.lower()]};"
            raise UnknownComponentError(
                f"unknown {family} {name!r}{hint} registered {_plural(family)}: {', '.join(known) or 'none'}"
            ) from None

    def resolve(self, family: str, spec: Any) -> Component:
        """Turn a spec string (or an already configured component) into a component.

        Parameters
        ----------
        family : str
            One of :data:`FAMILIES`.
        spec : str or Component
            ``"pow:16"``, or an instance of a registered class of this family.

        Raises
        ------
        UnknownComponentError
            The name is not registered; the message lists what is.
        SpecError
            The arguments do not fit the component's parameters.
        TypeError
            ``spec`` is neither a string nor a component of this family.

        Returns
        -------
        Component
            The configured component (``spec`` itself when it is one already).
        """
        table = self._family(family)
        base = _base_class(family)
        if isinstance(spec, base) and not isinstance(spec, Component):    # a configured estimator
            return spec
        if isinstance(spec, Component):
            if not isinstance(spec, base):
                raise TypeError(f"{family}: expected a spec string or a {base.__name__}, got {show_given(spec)}")
            return spec
        if not isinstance(spec, str):
            raise TypeError(
                f"{family}: expected a spec string such as {_example(family)!r}, got {type(spec).__name__}"
            )
        try:
            name, args, kwargs = parse_spec(spec)
        except SpecError as exc:
            raise SpecError(f"{family} {exc}; registered {_plural(family)}: {', '.join(sorted(table))}") from None
        name, args = _expand_at_k(name, args, table)
        cls = self.get(family, name)
        return cls.from_spec_args(args, kwargs, spec=spec)

    def all_entries(self) -> list[RegistryEntry]:
        """Every entry, ordered by family then name."""
        return [entry for fam in FAMILIES for _, entry in sorted(self._family(fam).items())]

    def _family(self, family: str) -> dict[str, RegistryEntry]:
        if family not in FAMILIES:
            raise ValueError(f"family: expected one of {', '.join(FAMILIES)}, got {family!r}")
        return self.entries.setdefault(family, {})

    def __repr__(self) -> str:
        counts = ", ".join(f"{len(self._family(f))} {_plural(f)}" for f in FAMILIES)
        return f"<Registry {counts}; {len(self.problems)} problem(s)>"

    def format_table(self) -> str:
        """A plain-text table of every component and its provider."""
        rows = [("family", "spec", "distribution", "summary")]
        for e in self.all_entries():
            rows.append((e.family, e.parameters, e.distribution, e.summary))
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        lines = ["  ".join(r[i].ljust(widths[i]) for i in range(3)) + "  " + r[3] for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths) + "  " + "-" * 7)
        for problem in self.problems:
            lines.append(f"problem: {problem}")
        return "\n".join(lines)


#: ``base@K``, K starting with an ASCII digit; what else it holds (``ndcg@1_0``) is for k's parser to refuse, naming k.
_AT_NUMBER = re.compile(r"^(?P<base>.+)@(?P<k>[0-9][0-9_.]*)$")


def _expand_at_k(name: str, args: list[str], table) -> tuple[str, list[str]]:
    """``ndcg@10`` is ``ndcg@k:10``: a name ``base@K`` that is not registered, for a registered ``base@k``.

    The number becomes the first positional argument, before any others the
    spec gives (``ndcg@10:gain=linear`` is ``ndcg@k:10,gain=linear``).
    """
    match = _AT_NUMBER.match(name)
    if name in table or match is None or f"{match['base']}@k" not in table:
        return name, args
    return f"{match['base']}@k", [match["k"], *args]


def at_k_name(name: str) -> str | None:
    """``"map@k"`` for the shorthand ``"map@10"`` (any ``base@K``, K a number), None for any other name."""
    match = _AT_NUMBER.match(name)
    return None if match is None else f"{match['base']}@k"


def did_you_mean(name: str, candidates) -> str | None:
    """The one of ``candidates`` close enough to ``name`` to be what a typo meant (``'pow'`` for ``'pwo'``), or None.

    ``candidates`` is a list of names, or a mapping of names (aliases too) to
    the name to suggest for them (an alias suggests its canonical name).
    """
    if not isinstance(name, str):
        return None
    target = candidates if isinstance(candidates, dict) else {c: c for c in candidates}
    by_lower = {str(c).lower(): str(shown) for c, shown in target.items()}
    close = difflib.get_close_matches(name.lower(), list(by_lower), n=1, cutoff=0.6)
    return by_lower[close[0]] if close else None


def _plural(family: str) -> str:
    """``losses``, ``prices``: the family names' plurals."""
    return family + ("es" if family.endswith("s") else "s")


def _example(family: str) -> str:
    return {"loss": "exp", "price": "pow:16", "learner": "stumps", "metric": "prec@k:10",
            "objective": "push", "filter": "tikhonov", "kernel": "rbf", "candidate": "trees",
            "estimator": "ExactBoost:n_runs=20"}[family]


def _base_class(family: str) -> type:
    module, _, attr = FAMILIES[family][1].partition(":")
    return getattr(importlib.import_module(module), attr)


# --------------------------------------------------------------------------
# Building the plugin manager and the registry
# --------------------------------------------------------------------------

_lock = threading.RLock()
_state: dict[str, Any] = {"pm": None, "registry": None, "providers": {}, "load_problems": []}


def _distribution_of_module(module_name: str) -> str:
    return BUILTIN_PROVIDER if module_name.split(".")[0] == "rankcore" else module_name


def _plugin_failure(exc: BaseException) -> str:
    """``"TypeError: message"``, for a problem report (never re-raises)."""
    try:
        text = str(exc)
    except BaseException:  # noqa: BLE001 - a hostile __str__ must not escape either
        text = "<unprintable>"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _entry_point_distribution(ep: Any) -> str:
    try:
        dist = getattr(ep, "dist", None)
        if dist is not None:
            return f"{dist.metadata['Name']} {dist.version}"
    except Exception:  # malformed metadata: fall back on the entry point's target
        pass
    return str(getattr(ep, "value", "unknown"))


def _load_entry_point_plugins(pm: pluggy.PluginManager, providers: dict, problems: list) -> None:
    """Load the ``rankcore`` entry points one by one, containing each failure.

    Third-party code can fail in any way at import or registration: an
    exception, ``SystemExit`` from a stray ``sys.exit()``, ``GeneratorExit``...
    Everything but ``KeyboardInterrupt`` is caught, reported and skipped, so a
    broken plugin never takes rankcore down with it.
    """
    importlib.invalidate_caches()
    for ep in importlib_metadata.entry_points(group=ENTRY_POINT_GROUP):
        dist_name = _entry_point_distribution(ep)
        if pm.get_plugin(ep.name) is not None or pm.is_blocked(ep.name):
            continue
        try:
            plugin = ep.load()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - any failure of third-party code
            problems.append(PluginProblem(dist_name, ep.name, f"failed to import: {_plugin_failure(exc)}"))
            continue
        try:
            pm.register(plugin, name=ep.name)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - e.g. a hookimpl with an unknown argument
            problems.append(PluginProblem(dist_name, ep.name, f"could not be registered: {_plugin_failure(exc)}"))
            continue
        providers[ep.name] = dist_name


def get_plugin_manager(*, autoload: bool | None = None, refresh: bool = False) -> pluggy.PluginManager:
    """The (lazily built) pluggy plugin manager holding every rankcore plugin.

    Parameters
    ----------
    autoload : bool, optional
        Load entry-point plugins.  Default: yes, unless the environment
        variable ``RANKCORE_DISABLE_PLUGIN_AUTOLOAD`` is set to a non-empty
        value other than ``0``.
    refresh : bool, default False
        Build a new manager (for instance after installing a plugin).
    """
    with _lock:
        if _state["pm"] is not None and not refresh:
            return _state["pm"]
        if autoload is None:
            autoload = os.environ.get(DISABLE_AUTOLOAD_ENV, "") in ("", "0")
        pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
        pm.add_hookspecs(hookspecs)
        providers: dict[str, str] = {}
        problems: list[PluginProblem] = []
        for module_name in DEFAULT_PLUGINS:
            # A broken built-in is our bug: fail loudly rather than report.
            pm.register(importlib.import_module(module_name), name=module_name)
            providers[module_name] = BUILTIN_PROVIDER
        if autoload:
            _load_entry_point_plugins(pm, providers, problems)
        _state.update(pm=pm, registry=None, providers=providers, load_problems=problems)
        return pm


def _build_registry(pm: pluggy.PluginManager, providers: dict, load_problems: list) -> Registry:
    reg = Registry(problems=list(load_problems))
    owner: dict[tuple[str, str], RegistryEntry] = {}
    for family, (hook_name, _) in FAMILIES.items():
        base = _base_class(family)
        table = reg._family(family)
        alias_table = reg.aliases.setdefault(family, {})
        hook = getattr(pm.hook, hook_name)
        # Call implementations one at a time, in registration order (built-ins
        # first, so they own their names), so that every class is attributed
        # to the plugin that returned it; pluggy's combined call would lose that.
        for impl in hook.get_hookimpls():
            plugin_name = impl.plugin_name
            dist = providers.get(plugin_name, _distribution_of_module(plugin_name))
            builtin = dist == BUILTIN_PROVIDER
            stage = "raised "
            try:
                result = impl.function()
                # Materialize the result here: a generator may raise half-way,
                # and a hook may return something that is not iterable at all.
                stage = "did not return a list of classes: "
                classes = [] if result is None else list(result)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: BLE001 - third-party code may fail in any way
                if builtin:
                    raise
                reg.problems.append(PluginProblem(dist, plugin_name, f"{hook_name}() {stage}{_plugin_failure(exc)}"))
                continue
            for cls in classes:
                problem, names = _check_class(cls, base, family)
                if problem is None:
                    taken = [n for n in names if (family, n) in owner]
                    if taken:
                        other = owner[(family, taken[0])]
                        problem = (f"{family} name {taken[0]!r} is already registered by "
                                   f"{other.distribution} ({other.plugin}); {cls.__name__} was skipped")
                if problem is not None:
                    if builtin:
                        raise RuntimeError(f"built-in plugin {plugin_name}: {problem}")
                    reg.problems.append(PluginProblem(dist, plugin_name, problem))
                    continue
                entry = RegistryEntry(family, names[0], cls, dist, plugin_name, names[1:])
                table[entry.name] = entry
                for name in names:
                    owner[(family, name)] = entry
                for alias in entry.aliases:
                    alias_table[alias] = entry.name
    _unknown_hooks(pm, providers, reg.problems)
    return reg


def _unknown_hooks(pm: pluggy.PluginManager, providers: dict, problems: list) -> None:
    """A problem for each ``@rankcore.hookimpl`` whose name is no rankcore hook (``rankcore_register_metric``):
    pluggy keeps such an implementation without ever calling it, so the plugin would register nothing, silently."""
    known = [name for name in dir(hookspecs) if name.startswith(f"{hookspecs.PROJECT_NAME}_")]
    for hook_name in sorted(vars(pm.hook)):
        caller = getattr(pm.hook, hook_name)
        if not hasattr(caller, "has_spec") or caller.has_spec():
            continue
        guess = did_you_mean(hook_name, known)
        hint = f"; did you mean {guess!r}?" if guess else f" (the hooks: {', '.join(known)})"
        for impl in caller.get_hookimpls():
            dist = providers.get(impl.plugin_name, _distribution_of_module(impl.plugin_name))
            problems.append(PluginProblem(dist, impl.plugin_name, f"{hook_name} is not a rankcore hook, so it is "
                                                                  f"never called{hint}"))


def _check_class(cls: Any, base: type, family: str) -> tuple[str | None, tuple[str, ...]]:
    """``(problem, (name, *aliases))``: why ``cls`` cannot be registered, or None.

    Reads ``name`` and ``aliases`` once, inside a guard, so that a class whose
    attributes are properties that raise, or are of the wrong type, is reported
    rather than crashing the registry.
    """
    try:
        if not (isinstance(cls, type) and issubclass(cls, base)):
            return f"registered {cls!r} as a {family}, but it is not a subclass of rankcore.{base.__name__}", ()
        label = cls.__name__
        name = cls.name
        aliases = cls.aliases
        if not isinstance(name, str) or not name:
            return f"{label} has no 'name' class attribute (a non-empty string), got {name!r}", ()
        if isinstance(aliases, str) or not isinstance(aliases, (tuple, list)):
            return f"{label}.aliases must be a tuple of strings, got {type(aliases).__name__}", ()
        aliases = tuple(aliases)
        for text in (name, *aliases):
            if not isinstance(text, str) or not text:
                return f"{label}.aliases must be a tuple of non-empty strings, got {text!r}", ()
            try:
                valid = parse_spec(text) == (text, [], {})
            except SpecError:
                valid = False
            if not valid:
                return f"{label}: {text!r} is not a valid component name", ()
        declared = cls.declaration_problem() if hasattr(cls, "declaration_problem") else None   # estimators: none
        if declared is not None:
            return declared, ()
        return None, (name, *aliases)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - hostile metaclass or property
        return f"registered {type(cls).__name__} object could not be inspected: {_plugin_failure(exc)}", ()


def registry(*, refresh: bool = False, quiet: bool = False) -> Registry:
    """Every registered component, with the distribution that provided it.

    Parameters
    ----------
    refresh : bool, default False
        Rebuild the plugin manager and reload entry points (after installing
        or removing a plugin in a running interpreter).
    quiet : bool, default False
        Do not warn of the plugins' problems if this call builds the registry
        (``problems`` still lists them).  For callers that show them
        elsewhere: a ``warnings.catch_warnings()`` block would change the
        process's warning filters, which other threads share (a model loaded
        while a server's threads run).

    Returns
    -------
    Registry
        ``get_registry().names("price")``, ``get_registry().resolve("price", "pow:16")``,
        ``get_registry().problems``; ``print(get_registry().format_table())`` shows it all.
        (Exported as ``rankcore.get_registry``; ``rankcore.registry`` is this module.)
    """
    with _lock:
        if refresh or _state["pm"] is None:
            get_plugin_manager(refresh=True)
        if _state["registry"] is None:
            _state["building"] = threading.get_ident()
            try:
                reg = _build_registry(_state["pm"], _state["providers"], _state["load_problems"])
            finally:
                _state["building"] = None
            for problem in () if quiet else reg.problems:
                warnings.warn(str(problem), RuntimeWarning, stacklevel=2)
            _state["registry"] = reg
        return _state["registry"]


def _registered_class(family: str, name: str) -> type | None:
    """The class ``registry()`` names ``name`` in ``family``, or None (a component's repr: never raises).

    A repr asked for by the thread building the registry (a plugin's declaration problem naming a component) does
    not start another build: it reads the registry built before, if any.  Another thread waits for the build.
    """
    try:
        reg = _state["registry"] if _state.get("building") == threading.get_ident() else registry()
        return reg.get(family, name) if reg is not None else None
    except Exception:  # an unknown name, a plugin failing to load: the repr says "unregistered"
        return None


set_registered_class_lookup(_registered_class)


def built_registry() -> Registry | None:
    """The registry if some call has built it already, else None (nothing is loaded or built here).

    For code that only asks about plugins whose code may have run, such as the command line naming the plugin an
    error came from.
    """
    return _state["registry"]


def register_plugin(plugin: Any, *, name: str, distribution: str = "local") -> None:
    """Register a plugin object at runtime (without an entry point).

    Useful in tests and notebooks.  The next :func:`registry` call includes
    its components; problems are reported like those of entry-point plugins.

    Parameters
    ----------
    plugin : module or object
        Holds ``@rankcore.hookimpl`` functions.
    name : str
        Plugin name (unique).
    distribution : str, default "local"
        Shown as the provider in ``list_plugins()``.
    """
    with _lock:
        pm = get_plugin_manager()
        if pm.get_plugin(name) is not None:
            raise ValueError(f"name: a plugin named {name!r} is already registered; unregister_plugin({name!r}) "
                             "first, or choose another name")
        if pm.is_registered(plugin):
            raise ValueError(f"plugin: this object is already registered, as {pm.get_name(plugin)!r}")
        pm.register(plugin, name=name)
        _state["providers"][name] = distribution
        _state["registry"] = None


def unregister_plugin(name: str) -> None:
    """Remove a plugin registered by name (see :func:`register_plugin`)."""
    with _lock:
        pm = get_plugin_manager()
        if pm.get_plugin(name) is None:
            raise ValueError(f"name: no plugin named {name!r} is registered")
        pm.unregister(name=name)
        _state["providers"].pop(name, None)
        _state["registry"] = None


def resolve(family: str, spec: Any) -> Component:
    """Shortcut for ``registry().resolve(family, spec)``.

    Parameters
    ----------
    family : str
        One of :data:`FAMILIES` (``"loss"``, ``"metric"``, ...).
    spec : str or Component
        ``"pow:16"``, or an instance of a registered class of this family.

    Returns
    -------
    Component
        The configured component (see :meth:`Registry.resolve` for the errors).
    """
    return registry().resolve(family, spec)


def list_plugins() -> list[dict[str, Any]]:
    """Every registered component as plain records.

    Returns
    -------
    list of dict
        Keys ``family``, ``name``, ``spec`` (name with its parameters),
        ``aliases``, ``distribution``, ``plugin`` and ``summary``.
    """
    return [
        {
            "family": e.family,
            "name": e.name,
            "spec": e.parameters,
            "aliases": list(e.aliases),
            "distribution": e.distribution,
            "plugin": e.plugin,
            "summary": e.summary,
        }
        for e in registry().all_entries()
    ]
