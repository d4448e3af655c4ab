"""Spec strings and configurable components.

Every pluggable piece of rankcore -- a loss, a price, a weak-learner family, a
metric, ... -- is a *component class* with a registered ``name`` and a tuple of
declared :class:`Parameter` objects.  Users name configured components with
*spec strings*::

    "exp"                 a loss without parameters
    "pow:16"              a price with one positional argument
    "prec@k:10"           a metric: k = 10 items
    "pauc:0.1,mcclish"    two positional arguments
    "tpauc:min_tpr=0.5,max_fpr=0.1"   keyword arguments

The grammar is ``name[:arg[,arg...]]`` where each ``arg`` is ``value`` or
``key=value``.  A spec stays a string inside estimators until ``fit`` resolves
it through the registry, so ``get_params`` and ``clone`` keep working.

This module knows nothing about the registry; :mod:`rankcore.registry` maps
names to classes and calls :meth:`Component.from_spec_args`.
"""

from __future__ import annotations

import decimal
import inspect
import math
import numbers
import re
import textwrap
from dataclasses import dataclass
from typing import Any, Callable, ClassVar

import numpy as np

from ._argument_refusal import ArgumentRefusal
from ._spec_numbers import (_INTEGER_RE, legacy_numbers, number_like, read_float, read_int,
                            reading_model_file)

__all__ = [
    "number_like",
    "read_float",
    "read_int",
    "legacy_numbers",
    "reading_model_file",
    "REQUIRED",
    "Kind",
    "Parameter",
    "ParameterError",
    "Component",
    "SpecError",
    "parse_spec",
    "count_or_fraction",
    "sequence_kind",
]


#: Longest unbroken run of characters an error message repeats whole.
MAX_ECHO = 100
_LONG_WORD_RE = re.compile(r"\S{%d,}" % (MAX_ECHO + 1))


def abbreviate(text: str) -> str:
    """``text`` with every run of more than :data:`MAX_ECHO` non-space characters cut short.

    A 1 MB spec string is echoed as its first characters, an ellipsis and its
    length, so that an error message stays one readable line.
    """
    return _LONG_WORD_RE.sub(lambda m: f"{m.group()[:60]}... [{len(m.group())} characters]", text)


class SpecError(ValueError):
    """A spec string that cannot be parsed or configured.

    Its message never repeats a very long spec or value whole (see :func:`abbreviate`).
    """

    def __init__(self, *args: Any) -> None:
        if len(args) == 1 and isinstance(args[0], str):
            args = (abbreviate(args[0]),)
        super().__init__(*args)


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: Marker for a parameter without a default.
REQUIRED: Any = _Required()

_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_@.\-+]*$")


def parse_spec(spec: str) -> tuple[str, list[str], dict[str, str]]:
    """Split a spec string into its name, positional and keyword arguments.

    Parameters
    ----------
    spec : str
        A spec such as ``"pow:16"`` or ``"tpauc:min_tpr=0.5,max_fpr=0.1"``.

    Returns
    -------
    name : str
    args : list of str
        Positional arguments, still as text.
    kwargs : dict of str to str
        Keyword arguments, still as text.

    Raises
    ------
    SpecError
        If the string is empty, the name is malformed, an argument is empty,
        or a positional argument follows a keyword argument.
    """
    if not isinstance(spec, str):
        raise TypeError(f"spec: expected a string such as 'pow:16', got {type(spec).__name__}")
    text = spec.strip()
    if not text:
        raise SpecError("spec: expected a component name such as 'exp' or 'pow:16', got an empty string")
    name, sep, rest = text.partition(":")
    name = name.strip()
    if not _NAME_RE.match(name):
        raise SpecError(
            f"spec {spec!r}: the name {name!r} is not valid (letters, digits and _ @ . - +, "
            "starting with a letter)"
        )
    args: list[str] = []
    kwargs: dict[str, str] = {}
    if sep:
        if not rest.strip():
            raise SpecError(f"spec {spec!r}: nothing after ':'; drop the ':' or give arguments")
        for raw in rest.split(","):
            item = raw.strip()
            if not item:
                raise SpecError(f"spec {spec!r}: empty argument between commas")
            key, eq, value = item.partition("=")
            if eq:
                key, value = key.strip(), value.strip()
                if not key.isidentifier() or not value:
                    raise SpecError(f"spec {spec!r}: malformed keyword argument {item!r}")
                if key in kwargs:
                    raise SpecError(f"spec {spec!r}: argument {key!r} given twice")
                kwargs[key] = value
            else:
                if kwargs:
                    last = next(reversed(kwargs))
                    raise SpecError(f"spec {spec!r}: positional argument {item!r} after a keyword argument"
                                    f"{_list_hint(last, kwargs[last], item)}")
                args.append(item)
    return name, args, kwargs


#: Keywords whose lists are not items separated by '/': how to write them.  The trees' ``interactions=0,1`` (a
#: LightGBM user's one group [[0, 1]]) must not be told ``0/1``, which is two groups that never interact.
_LIST_HINTS = {
    "interactions": "'+' joins a group's columns, '/' separates the groups: interactions=0+1 (one group) or 0/1 "
                    "(two groups)",
}
#: a list of groups of columns, by index or name (``interactions=age,income``)
_GROUPS_RE = re.compile(r"[\w+/\s.-]+")


def _list_hint(key: str, value: str, item: str) -> str:
    """The hint for ``key=value,item``: a list written with commas, whose items a spec separates otherwise."""
    if key in _LIST_HINTS and _GROUPS_RE.fullmatch(value) and _GROUPS_RE.fullmatch(item):
        return f" ({_LIST_HINTS[key]})"
    # a list written with commas (monotone=1,0,-1): its items are separated by '/' in a spec
    if number_like(item) and number_like(value):
        return f" (if {key} takes a list, separate its items with '/': {key}={value}/{item}/...)"
    return ""


# --------------------------------------------------------------------------
# Parameter kinds: callables turning text (from a spec) or Python values
# (from keyword construction) into validated values.
# --------------------------------------------------------------------------


def _parsed_number(value: Any, *, boolean: str) -> Any:
    """``value`` with text parsed as a float; a boolean is refused (ValueError ``boolean``), not read as 0/1."""
    if isinstance(value, bool):
        raise ValueError(boolean)
    if isinstance(value, str):
        return read_float(value)
    return value


def _to_float(value: Any) -> float:
    value = _parsed_number(value, boolean="expected a number, got a boolean")
    try:
        out = float(value)
    except OverflowError:               # an int or Fraction beyond float's range (10**400): not an ArithmeticError
        raise ValueError("expected a finite number, got a number too large for a float") from None
    if not math.isfinite(out):
        raise ValueError(f"expected a finite number, got {value!r}")
    return out


def _to_int(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError("expected an integer, got a boolean")
    if isinstance(value, str):
        return read_int(value)
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"expected an integer, got {value!r}")
        value = int(value)
    return int(value)


def _to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        low = value.lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
    raise ValueError(f"expected true or false, got {value!r}")


#: The largest count a "k" takes: 2**53, the last integer a double holds exactly, as kernels read k in doubles
#: (no data set has more rows).
MAX_COUNT = 2**53


def count_or_fraction(value: Any) -> int | float:
    """Parameter kind for "k": an integer count in [1, 2**53] or a fraction in (0, 1).

    ``"10"`` and ``10`` give the count 10; ``"0.05"`` and ``0.05`` give the
    fraction 0.05; ``"10.0"`` gives the count 10.  A count beyond
    :data:`MAX_COUNT` (``1e308``) is refused here, by name, rather than by a
    kernel that reads it in a double or counts in C long.
    """
    if isinstance(value, str) and _INTEGER_RE.fullmatch(value.strip()):
        value = read_int(value)             # exactly: 9223372036854775807 is no double
    value = _parsed_number(value, boolean="a boolean is neither")
    try:
        number = float(value)
    except OverflowError:               # an int beyond the doubles (10**400)
        raise ValueError(f"a count above 2**53 = {MAX_COUNT}, more rows than any data set has") from None
    if not math.isfinite(number):
        raise ValueError("not a finite number")
    if number <= 0:
        raise ValueError("not positive")
    if number < 1:
        return number
    if not number.is_integer():
        raise ValueError("above 1, so a count, but not a whole count")
    count = int(value) if isinstance(value, numbers.Integral) else int(number)
    if count > MAX_COUNT and not reading_model_file():    # a model file's: a fit took such a count before the limit
        raise ValueError(f"a count above 2**53 = {MAX_COUNT}, more rows than any data set has")
    return count


count_or_fraction.__name__ = "a whole count >= 1 or a fraction in (0, 1)"


_KIND_FUNCS: dict[Any, Callable[[Any], Any]] = {
    float: _to_float,
    int: _to_int,
    bool: _to_bool,
    str: str,
}

_KIND_NAMES = {float: "a number", int: "an integer", bool: "true or false", str: "a string"}


class ParameterError(ValueError, TypeError):
    """An estimator parameter of the wrong type or out of range (a ValueError and a TypeError, as scikit-learn's).

    The message names the parameter, what it accepts and the value received:
    ``"n_iter: expected an integer >= 1, got 0"``.
    """

    def __init__(self, *args: Any) -> None:
        if len(args) == 1 and isinstance(args[0], str):
            args = (abbreviate(args[0]),)
        super().__init__(*args)


@dataclass(frozen=True)
class Kind:
    """A parameter kind beyond float, int, bool and str: what it accepts, in words, and its check.

    Parameters
    ----------
    description : str
        The accepted values in words, for error messages (``"None, an integer
        >= 0 or a numpy random generator"``).
    check : callable
        ``check(value) -> value`` returns the value to use (possibly
        normalized) or raises ``ValueError``/``TypeError`` (the caller names
        the parameter and shows the value).
    type_doc : str
        The type line of the numpydoc "Parameters" section.
    shows_type : bool
        Errors show the refused value's type (``got int``) rather than its
        repr: for kinds of objects (spec strings, components, callables).
    explains : bool
        Errors add the check's own message (what was wrong, e.g. which
        option of a spec string): for checks whose messages name it.
    """

    description: str
    check: Callable[[Any], Any]
    type_doc: str = "object"
    shows_type: bool = False
    explains: bool = False

    @property
    def __name__(self) -> str:  # read by Parameter.describe, like a converter function's name
        return self.description

    def __call__(self, value: Any) -> Any:
        return self.check(value)


def sequence_kind(description: str, *, type_doc: str, also: Callable[[Any], bool] | None = None,
                  non_empty: bool = False) -> Kind:
    """Kind of a parameter holding a list, tuple or array (never a string), or a value ``also`` accepts.

    Only the container is checked here; its items are checked where they are
    used (against the data, or resolved through the registry).
    ``description`` is the accepted values in words, as errors show them.
    """

    def check(value: Any) -> Any:
        if also is not None and also(value):
            return value
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, np.ndarray)):
            raise TypeError("not a sequence")
        if non_empty and len(value) == 0:
            raise ValueError("empty")
        return value

    return Kind(description, check, type_doc=type_doc)


def _kind_words(kind: Any) -> str:
    """A kind in words: a :class:`Kind`'s description as written (its option names keep their underscores), a
    converter function's name with spaces for underscores."""
    if isinstance(kind, Kind):
        return kind.description
    return getattr(kind, "__name__", "a value").replace("_", " ")


def _strict_int(value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError("not an integer")
    return int(value)


def _strict_float(value: Any) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError("not a number")
    out = float(value)
    if not math.isfinite(out):
        raise ValueError("not finite")
    return out


def _strict_bool(value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError("not a boolean")
    return bool(value)


def _strict_str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError("not a string")
    return value


# Estimator parameters are Python values, checked strictly: "5" is not an integer there.
_STRICT_FUNCS: dict[Any, Callable[[Any], Any]] = {int: _strict_int, float: _strict_float, bool: _strict_bool,
                                                  str: _strict_str}


def _real(value: Any) -> bool:
    """A number a parameter's bounds apply to: any real (np.int64, Fraction, Decimal), not a bool."""
    return isinstance(value, (numbers.Real, decimal.Decimal)) and not isinstance(value, (bool, np.bool_))


def _shown_bound(value: float, kind: Any = float) -> str:
    """A parameter's bound in a message: an integer parameter's in full (2147483647, not 2.14748e+09), else %g."""
    whole = kind is int and isinstance(value, int) and not isinstance(value, bool)
    return str(value) if whole else f"{value:g}"


def _interval(low: float | None, high: float | None, low_open: bool, high_open: bool, kind: Any = float) -> str:
    return (f"{'(' if low_open else '['}{_shown_bound(low, kind)}, {_shown_bound(high, kind)}"
            f"{')' if high_open else ']'}")


def _cut(text: str) -> str:
    """``text`` cut short when long (a converter's message may repeat the whole value)."""
    return text if len(text) <= 2 * MAX_ECHO else text[:MAX_ECHO] + f"... [{len(text)} characters]"


def show_value(value: Any) -> str:
    """``repr(value)`` for an error message, cut short when long (a big array is not echoed whole).

    A component is shown by its spec (``'pow:4'``), as a user writes it, not by its Python repr.
    """
    if isinstance(value, Component):
        return _cut(repr(value.spec))
    try:
        return _cut(repr(value))
    except ValueError:                  # an int of more digits than Python converts to text (10**5000)
        return f"<{type(value).__name__} too long to show>"


def show_given(value: Any) -> str:
    """What a refusal says was given: ``the loss 'exp'`` for a component (its family and spec, the words a user
    wrote), else :func:`show_value`."""
    return f"the {value.family} {value.spec!r}" if isinstance(value, Component) else show_value(value)


@dataclass(frozen=True)
class Parameter:
    """A declared parameter of a component.

    Parameters
    ----------
    name : str
        Keyword name (``p`` for ``pow:p``).
    kind : type or callable, default float
        ``float``, ``int``, ``bool``, ``str`` or a callable converting a text or
        Python value (raising ``ValueError`` with a reason when it cannot).
    default : object, default REQUIRED
        Value when the argument is omitted.
    minimum, maximum : float, optional
        Inclusive bounds; ``exclusive_minimum``/``exclusive_maximum`` make them
        strict.
    choices : tuple, optional
        Allowed values.
    doc : str
        What the parameter does.  Its first line is shown by ``rankcore
        plugins``; an estimator's docstring shows it whole, in its numpydoc
        "Parameters" section.
    nullable : bool, default False
        None is accepted too (estimator parameters).
    rule : str, optional
        The accepted values in words, replacing the text generated from the
        kind and the bounds in error messages (``"a fraction in (0, 1]"``).
    type_doc : str, optional
        The type in the numpydoc "Parameters" section (default: from the kind).
    saved_beyond_maximum : bool, default False
        The maximum came after model files could hold larger values (a fit
        that finished with them): within :func:`legacy_numbers` (a model file
        being restored) it is not checked, so such a file loads as it did;
        new input keeps it.
    """

    name: str
    kind: Any = float
    default: Any = REQUIRED
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False
    choices: tuple | None = None
    doc: str = ""
    nullable: bool = False
    rule: str = ""
    type_doc: str = ""
    saved_beyond_maximum: bool = False

    def describe(self) -> str:
        """Human-readable rule, used in error messages."""
        kind = _KIND_NAMES.get(self.kind, _kind_words(self.kind))
        parts = [kind]
        if self.minimum is not None:
            parts.append(f"{'>' if self.exclusive_minimum else '>='} {_shown_bound(self.minimum, self.kind)}")
        if self.maximum is not None:
            parts.append(f"{'and ' if self.minimum is not None else ''}"
                         f"{'<' if self.exclusive_maximum else '<='} {_shown_bound(self.maximum, self.kind)}")
        if self.choices is not None:
            parts.append("one of " + ", ".join(repr(c) for c in self.choices))
        return " ".join(parts)

    def convert(self, value: Any, *, owner: str) -> Any:
        """Convert and check one value; ``owner`` names the component in errors."""
        func = _KIND_FUNCS.get(self.kind, self.kind)
        try:
            out = func(value)
        except (TypeError, ValueError) as exc:
            message = f"{owner}: {self.name} must be {self.describe()}, got {show_value(value)} ({_cut(str(exc))})"
            if isinstance(exc, SpecError) and isinstance(exc, ArgumentRefusal):
                # a kind's refusal with fields (a learner's monotone value that holds no sign) keeps its class and
                # fields, said as the parameter's: a caller reads them, not the words
                message = abbreviate(message)
                raise exc.with_context(message, detail=message[len(owner) + 2:]) from None
            raise SpecError(message) from None
        bad = self._outside(out)
        if self.choices is not None:
            bad |= out not in self.choices
        if bad:
            raise SpecError(f"{owner}: {self.name} must be {self.describe()}, got {show_value(value)}")
        return out

    def _outside(self, value: Any) -> bool:
        """Whether a number breaks the bounds (a NaN always does); anything else is not for the bounds to judge.

        Any real: a converter may return np.int64, Fraction or Decimal, whose bounds hold as well.
        """
        if not _real(value):
            return False
        if (isinstance(value, decimal.Decimal) and value.is_nan()) or value != value:
            return self.minimum is not None or self.maximum is not None
        bad = False
        if self.minimum is not None:
            bad |= value <= self.minimum if self.exclusive_minimum else value < self.minimum
        if self.maximum is not None and not (self.saved_beyond_maximum and reading_model_file()):
            bad |= value >= self.maximum if self.exclusive_maximum else value > self.maximum
        return bool(bad)

    # ------------------------------------------------------------------
    # Estimator parameters: Python values, checked strictly
    # ------------------------------------------------------------------
    def expected(self) -> str:
        """What an estimator parameter accepts, in words: ``"an integer >= 1"``, ``"a number in (0, 1)"``.

        (A nullable parameter accepts None too: its docs say so, the message
        keeps to the rule a value broke.)
        """
        return self.rule or self._generated_rule()

    def _generated_rule(self) -> str:
        if self.kind is bool:
            return "True or False"
        if self.choices is not None:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        if self.kind not in (int, float):
            kind = _KIND_NAMES.get(self.kind) or _kind_words(self.kind)
            if self.minimum is None and self.maximum is None:
                return kind
            return self.describe()                      # a converter's kind with bounds: say the bounds too
        noun = "an integer" if self.kind is int else "a number"
        low, high = self.minimum, self.maximum
        if low is not None and high is not None:
            return f"{noun} in {_interval(low, high, self.exclusive_minimum, self.exclusive_maximum, self.kind)}"
        if low is not None:
            noun = "an integer" if self.kind is int else "a finite number"
            return f"{noun} {'>' if self.exclusive_minimum else '>='} {_shown_bound(low, self.kind)}"
        if high is not None:
            return f"{noun} {'<' if self.exclusive_maximum else '<='} {_shown_bound(high, self.kind)}"
        return "a finite number" if self.kind is float else noun

    def check(self, value: Any) -> Any:
        """Check one estimator parameter value; return the value to use.

        Raises
        ------
        ParameterError
            ``"<name>: expected <what it accepts>, got <value>"``.
        """
        if value is None and self.nullable:
            return None
        func = _STRICT_FUNCS.get(self.kind, self.kind)
        try:
            out = func(value)
        except (TypeError, ValueError, OverflowError) as exc:
            shown = type(value).__name__ if getattr(self.kind, "shows_type", False) else show_value(value)
            reason = f" ({exc})" if getattr(self.kind, "explains", False) and str(exc) else ""
            raise ParameterError(f"{self.name}: expected {self.expected()}, got {shown}{reason}") from None
        bad = self.choices is not None and out not in self.choices
        bad |= self._outside(out)
        if bad:
            raise ParameterError(f"{self.name}: expected {self.expected()}, got {show_value(value)}")
        return out

    def numpydoc(self) -> str:
        """This parameter's entry of a numpydoc "Parameters" section."""
        type_doc = self.type_doc or getattr(self.kind, "type_doc", None) or {
            float: "float", int: "int", bool: "bool", str: "str"}.get(self.kind, "object")
        if self.nullable and "None" not in type_doc:
            type_doc += " or None"
        head = f"{self.name} : {type_doc}"
        if self.default is not REQUIRED:
            head += f", default={self.default!r}"
        body = textwrap.indent(textwrap.dedent(self.doc).strip(), "    ")
        return head + ("\n" + body if body else "")


def _peer_spec_hints(family: str | None, name: str, unknown: list[str], known: Any = ()) -> str:
    """What other libraries' parameter names among ``unknown`` are called in this component's spec
    (``num_leaves``: ``trees:max_leaves=L``), each followed by ``"; "``, or ``""``.

    Someone coming from LightGBM writes ``trees:num_leaves=31``; the list of this component's own names
    alone does not say which of them it is.  A component of another family named as a learner (AutoRanker's
    candidate ``trees``) gets the learner's hint when it takes the parameter the hint names (one of ``known``).
    """
    from ._peer_names import PEER_NAMES, PEER_NAMES_WITHOUT, peer_name_hint

    prefixes = (f'{family}="{name}:', f'learner="{name}:')
    hints = []
    for word in unknown:
        if word in PEER_NAMES_WITHOUT and (family, name) == ("learner", "trees"):     # the learner's words
            hints.append(f"{peer_name_hint(word)}; ")
            continue
        peer = PEER_NAMES.get(word, "")
        prefix = next((p for p in prefixes if peer.startswith(p)), None)
        if prefix is None:
            continue
        spelled, _, note = peer[len(prefix):].partition('"')
        # the learner's hint holds for another family only where the component takes the same parameter
        if prefix == prefixes[0] or spelled.partition("=")[0] in known:
            hints.append(f"other libraries' {word} is {name}:{spelled} here{note}; ")
    return "".join(hints)


def _check_writable(owner: str, param: "Parameter", value: Any) -> None:
    """Refuse a text value that a spec string cannot hold (the spec is how a component is saved and resolved).

    Commas and ``=`` separate a spec's arguments, spaces around one are dropped, and an argument is never empty.
    """
    if not isinstance(value, str) or value == param.default:
        return
    if "," in value or "=" in value or value != value.strip() or value == "":
        raise SpecError(f"{owner}: {param.name}={show_value(value)} cannot be written in a spec string (no commas, "
                        "'=', surrounding spaces or empty text)")


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    return str(value)


#: ``(family, name) -> class or None``: the class the registry names so, set by :mod:`rankcore.registry` when it is
#: imported (this module sits below the registry and cannot import it); a component's repr asks it.
_registered_class: Callable[[str, str], Any] | None = None


def set_registered_class_lookup(lookup: Callable[[str, str], Any]) -> None:
    """Install the registry's ``(family, name) -> class or None`` lookup that :meth:`Component.__repr__` uses."""
    global _registered_class
    _registered_class = lookup


class Component:
    """Base of every registrable component (loss, price, learner, metric, ...).

    Subclasses set the class attributes below.  Instances are configured
    immutable values: their parameters are attributes of the same name, and
    two instances with the same class and parameters compare equal.

    Attributes
    ----------
    name : str
        The registered name, the first part of a spec string.
    aliases : tuple of str
        Other names the registry accepts for this class.
    parameters : tuple of Parameter
        Declared parameters, in spec-argument order.
    family : str
        Set by the family base class: ``"loss"``, ``"price"``, ``"learner"``,
        ``"metric"``, ``"objective"``, ``"filter"`` or ``"kernel"``.
    examples : tuple of str
        Spec strings the contract checks of :mod:`rankcore.testing` run on
        (default: the bare name, which needs every parameter to have a
        default).  List a few that exercise the parameters' range.
    unknown_parameter_notes : dict of str to str
        Why the component takes no parameter of that name (one a user may expect, as another metric's
        ``convention``), said in the refusal of a spec that gives it.
    """

    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    parameters: ClassVar[tuple[Parameter, ...]] = ()
    family: ClassVar[str] = ""
    examples: ClassVar[tuple[str, ...]] = ()
    unknown_parameter_notes: ClassVar[dict[str, str]] = {}

    @classmethod
    def example_specs(cls) -> tuple[str, ...]:
        """The spec strings to exercise in contract checks."""
        return cls.examples or (cls.name,)

    @classmethod
    def declaration_problem(cls) -> str | None:
        """Why the class's declared attributes cannot be used (checked when it is registered), or None.

        A family base overrides it for its own declarations (a metric's
        ``greater_is_better``, a candidate's ``default_specs``): a plugin's
        mistake there is then a registry problem naming the plugin, not a
        wrong result or a failure far from it.
        """
        return None

    @classmethod
    def _per_instance(cls, name: str) -> bool:
        """Whether the declaration ``name`` is a descriptor (a property, a ``functools.cached_property``...), set
        per instance from its parameters: not checked on the class."""
        static = inspect.getattr_static(cls, name, None)
        # a data descriptor or a cached property; a plain function (a forgotten @property) is no value
        return (hasattr(type(static), "__get__") and not inspect.isfunction(static)
                and not isinstance(static, (numbers.Number, str, bytes, tuple, list, staticmethod, classmethod)))

    @classmethod
    def _flags_problem(cls, names: tuple[str, ...]) -> str | None:
        """The first of the class attributes ``names`` that is not a bool (``"False"`` is true), or None."""
        for name in names:
            value = getattr(cls, name)
            if cls._per_instance(name):
                continue
            if not isinstance(value, (bool, np.bool_)):
                return f"{cls.__name__}.{name} must be True or False, got {value!r}"
        return None

    def __init__(self, **kwargs: Any) -> None:
        owner = f"{self.family or 'component'} {self.name!r}"
        known = {p.name: p for p in self.parameters}
        unknown = sorted(set(kwargs) - set(known))
        if unknown:
            expected = ", ".join(known) or "no parameters"
            notes = "".join(f"{self.unknown_parameter_notes[word]}; " for word in unknown
                            if word in self.unknown_parameter_notes)
            raise SpecError(f"{owner}: unknown parameter(s) {', '.join(unknown)}; {notes}"
                            f"{_peer_spec_hints(self.family, self.name, unknown, known)}expected {expected}")
        values = {}
        for index, param in enumerate(self.parameters):
            if param.name in kwargs:
                values[param.name] = param.convert(kwargs[param.name], owner=owner)
                _check_writable(owner, param, values[param.name])
            elif param.default is REQUIRED:
                # positionally only when it is the first parameter: 'name:<v>' would set the first one otherwise
                where = f"<{param.name}>" if index == 0 else f"{param.name}=<{param.name}>"
                raise SpecError(f"{owner}: missing parameter {param.name} ({param.describe()}); "
                                f"write it as '{self.name}:{where}'")
            else:
                values[param.name] = param.default
        self._params = values
        for key, value in values.items():
            setattr(self, key, value)
        self._validate()
        object.__setattr__(self, "_built", True)

    def __setattr__(self, name: str, value: Any) -> None:
        # a built component is a value: its spec (how a model file saves it, how == compares it) is its parameters
        # as built; one changed afterwards would be fitted with while the spec still said the old value
        if self.__dict__.get("_built") and any(p.name == name for p in self.parameters):
            raise AttributeError(
                f"{self.family or 'component'} {self.name!r}: parameter {name} cannot be changed after it is built "
                f"(its spec {self.spec!r} is what a model file saves); build another, "
                f"rankcore.registry.resolve({self.family!r}, '{self.name}:{name}=...')")
        object.__setattr__(self, name, value)

    def _validate(self) -> None:
        """Hook for cross-parameter checks; raise :class:`SpecError`."""

    # ------------------------------------------------------------------
    @classmethod
    def from_spec_args(cls, args: list[str], kwargs: dict[str, str], *, spec: str = "") -> "Component":
        """Build an instance from the text arguments of a parsed spec."""
        params = cls.parameters
        if len(args) > len(params):
            shown = spec or cls.name
            expected = ", ".join(p.name for p in params) or "no arguments"
            raise SpecError(f"{cls.family} {shown!r}: too many arguments ({len(args)}); expected {expected}")
        values: dict[str, Any] = {p.name: a for p, a in zip(params, args)}
        for key, value in kwargs.items():
            if key in values:
                raise SpecError(f"{cls.family} {spec or cls.name!r}: argument {key!r} given twice")
            values[key] = value
        return cls(**values)

    @property
    def params(self) -> dict[str, Any]:
        """The configured parameter values, in declaration order."""
        return dict(self._params)

    @property
    def spec(self) -> str:
        """Canonical spec string; ``registry().resolve(family, c.spec) == c``.

        Positional up to the last parameter that differs from its default; from a
        value that cannot be written positionally (an empty string, at its
        default), the later parameters that differ are written as ``name=value``.
        """
        shown = []
        by_name = False
        for param in self.parameters:
            value = self._params[param.name]
            at_default = param.default is not REQUIRED and value == param.default
            if by_name:
                if not at_default:
                    shown.append(f"{param.name}={_format_value(value)}")
                continue
            if at_default and not _later_params_differ(self.parameters, param, self._params):
                continue
            text = _format_value(value)
            if text == "":                 # (only ever a default here: the trees' categorical columns)
                by_name = True
                continue
            shown.append(text)
        return self.name + (":" + ",".join(shown) if shown else "")

    @property
    def named_spec(self) -> str:
        """The spec with every parameter that differs from its default written ``name=value`` (messages, AutoRanker
        candidates' task specs): a reader need not know the parameters' order (``push:gain_weighted=true,
        query_rmse=2`` where :attr:`spec` is ``push:exp,identity,true,none,0,false,2``).  It resolves to an equal
        component."""
        shown = [f"{p.name}={_format_value(self._params[p.name])}" for p in self.parameters
                 if p.default is REQUIRED or self._params[p.name] != p.default]
        return self.name + (":" + ",".join(shown) if shown else "")

    def __repr__(self) -> str:
        """``rankcore.resolve('loss', 'exp')`` for a registered component: Python that rebuilds an equal one, so
        that an estimator holding it prints as scikit-learn's reprs do (``PushBoost(loss=rankcore.resolve(...))``).
        A class no registry entry names (a user's subclass) cannot be rebuilt that way: it prints
        ``<unregistered loss exp (MyLoss)>``."""
        if _registered_class is not None and _registered_class(self.family, self.name) is type(self):
            return f"rankcore.resolve({self.family!r}, {self.spec!r})"
        return f"<unregistered {self.family} {self.spec} ({type(self).__qualname__})>"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._params == self._params  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), tuple(sorted(self._params.items(), key=lambda kv: kv[0]))))

    def __reduce__(self):
        # Components are rebuilt from their parameters (deepcopy/clone).
        return (_rebuild, (type(self), self._params))


def _later_params_differ(parameters, param, values) -> bool:
    """Whether a later parameter differs from its default (so ``param`` must be shown)."""
    later = parameters[parameters.index(param) + 1:]
    return any(p.default is REQUIRED or values[p.name] != p.default for p in later)


def _rebuild(cls, params):
    # a parameter at its default is left out: some defaults only mean "not set" ("" for ndcg@k's
    # gain, ties and empty) and are not values a caller may pass
    defaults = {p.name: p.default for p in cls.parameters}
    return cls(**{name: value for name, value in params.items()
                  if defaults.get(name, REQUIRED) is REQUIRED or value != defaults[name]})
