"""Public callables' docstrings agree with their signatures.

A numpydoc ``Parameters`` section names every parameter of the signature and
none other, a default it states is the signature's, and a function that
returns something says what in ``Returns``.  Checked on the functions users
call by name (``rankcore.__all__``, ``rankcore.gbdt.__all__``,
``rankcore.metrics.__all__``) and on the
public estimators' constructors and ``fit`` methods.
"""

import ast
import inspect
import re

import numpy as np
import pytest

import rankcore
import rankcore.gbdt
import rankcore.metrics
from rankcore._estimators import BUILTIN_ESTIMATORS

_HEADER = re.compile(r"^(\S[^\n]*)\n-{3,}$", re.MULTILINE)
_ENTRY = re.compile(r"^(\*{0,2}[A-Za-z_][\w]*(?:\s*,\s*\*{0,2}[A-Za-z_]\w*)*)\s*(?::\s*(.*))?$")


def _sections(doc: str) -> dict:
    """The docstring's numpydoc sections: title -> body text."""
    heads = list(_HEADER.finditer(doc))
    return {h.group(1).strip(): doc[h.end():heads[i + 1].start() if i + 1 < len(heads) else len(doc)]
            for i, h in enumerate(heads)}


def _documented(body: str) -> dict:
    """The parameter names of a ``Parameters`` section (unindented entries) -> their type line."""
    out, pending = {}, ""
    for line in body.splitlines():
        if not line.strip() or line.startswith(" "):
            continue
        line = pending + line.strip()
        pending = line + " " if line.endswith(",") else ""      # names listed over several lines
        if pending:
            continue
        match = _ENTRY.match(line)
        if match:
            for name in match.group(1).split(","):
                out[name.strip().lstrip("*")] = match.group(2) or ""
    return out


def _same_default(text: str, default) -> bool:
    """Whether the default a docstring states (``"exp"``, ``None``, ``(20, 30)``, ``1e-6``) is ``default``."""
    try:
        return ast.literal_eval(text) == default
    except (ValueError, SyntaxError):
        return text == repr(default)


def _public_functions():
    for module in (rankcore, rankcore.gbdt, rankcore.metrics):
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isfunction(value):
                yield pytest.param(value, id=f"{module.__name__}.{name}")


def _estimator_methods():
    for target in BUILTIN_ESTIMATORS:
        cls = getattr(rankcore, target.partition(":")[2])
        yield pytest.param(cls, cls, id=cls.__name__)
        yield pytest.param(cls.fit, cls, id=f"{cls.__name__}.fit")


def _check(func, owner=None):
    doc = inspect.getdoc(owner if owner is func else func) or ""
    sections = _sections(doc)
    signature = inspect.signature(func)
    named = [n for n, p in signature.parameters.items() if n != "self"]
    assert "Parameters" in sections or not named, "no Parameters section"
    documented = _documented(sections.get("Parameters", ""))
    missing = [n for n in named if n not in documented]
    extra = [n for n in documented if n not in signature.parameters]
    assert not missing and not extra, f"undocumented {missing}, documented but absent {extra}"
    for name, type_line in documented.items():
        stated = re.search(r"default\s*[=:]?\s*(.+)$", type_line)
        default = signature.parameters[name].default
        if stated and default is not inspect.Parameter.empty:
            assert _same_default(stated.group(1).strip(), default), f"{name}: doc says {stated.group(1)!r}, " \
                                                                     f"not {default!r}"
    return signature, sections


@pytest.mark.parametrize("func", list(_public_functions()))
def test_public_functions_document_each_parameter_and_what_they_return(func):
    signature, sections = _check(func)
    if signature.return_annotation not in ("None", None):
        assert "Returns" in sections or "Yields" in sections, "no Returns section"


@pytest.mark.parametrize("func, cls", list(_estimator_methods()))
def test_estimators_document_each_parameter_with_its_default(func, cls):
    _check(func, cls if func is cls else None)


_SMALL_FITS = {"PushBoost": {"n_iter": 3}, "PNormPush": {"n_iter": 3}, "RankBoost": {"n_iter": 3},
               "ExactBoost": {"n_rounds": 2, "n_runs": 3}, "PerceptronAtK": {"n_epochs": 2}, "SGDAtK": {"n_epochs": 2},
               "KernelRanker": {}, "AutoRanker": {"candidates": ["linear"], "cv": 2, "blend": False}}


@pytest.mark.parametrize("name", sorted(_SMALL_FITS))
def test_every_public_fitted_attribute_is_documented(name):
    cls = getattr(rankcore, name)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + rng.normal(size=120) > 0).astype(int)
    model = cls(random_state=0, **_SMALL_FITS[name]).fit(X, y)
    documented = _documented(_sections(inspect.getdoc(cls))["Attributes"])
    fitted = [a for a in vars(model) if a.endswith("_") and not a.startswith("_")]
    assert [a for a in fitted if a not in documented] == []
