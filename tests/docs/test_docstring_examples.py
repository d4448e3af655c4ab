"""Every ``>>>`` example of a public docstring runs and prints what it shows, as ``help()`` shows it to a student.

The public names are those of ``rankcore``, ``rankcore.metrics``, ``rankcore.gbdt`` and ``rankcore.plotting``
(``__all__``, or the public names of a module without one), with their classes' methods.  The examples need
neither the data sets folder nor the network (scikit-learn's bundled data sets are read from its package); one that
imports an optional package (pandas, lightgbm, matplotlib, ...) is skipped where that package is not installed.
"""

import doctest
import importlib.util
import inspect
import re

import pytest

import rankcore
import rankcore.gbdt
import rankcore.metrics
import rankcore.plotting

_MODULES = (rankcore, rankcore.gbdt, rankcore.metrics, rankcore.plotting)


def _public(module):
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    for name in names:
        value = getattr(module, name)
        # a name a module imported from elsewhere (plotting's ``Mapping``) is not its documentation
        if (inspect.isclass(value) or inspect.isfunction(value)) and value.__module__.startswith("rankcore"):
            yield f"{module.__name__}.{name}", value


def _examples():
    finder = doctest.DocTestFinder(exclude_empty=True)
    seen = set()
    for module in _MODULES:
        for name, value in _public(module):
            for test in finder.find(value, name, globs={}):
                key = (test.filename, test.lineno, test.docstring)
                if test.examples and key not in seen:       # a class exported by two modules runs once
                    seen.add(key)
                    yield pytest.param(test, id=test.name)


_IMPORTED = re.compile(r"^\s*(?:import|from)\s+([A-Za-z_]\w*)", re.MULTILINE)


def _missing_module(test):
    """The first top-level package an example imports that is not installed, or None."""
    for example in test.examples:
        for name in _IMPORTED.findall(example.source):
            if importlib.util.find_spec(name) is None:
                return name
    return None


@pytest.mark.parametrize("test", list(_examples()))
def test_docstring_example_runs(test):
    missing = _missing_module(test)
    if missing:
        pytest.skip(f"the example imports {missing}, which is not installed")
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


def test_examples_are_found():
    """The collection above is not empty by mistake (a test that runs nothing cannot fail)."""
    names = {param.values[0].name for param in _examples()}
    assert {"rankcore.boost", "rankcore.metrics.auc", "rankcore.PushBoost"} <= names


def test_an_example_needing_an_absent_package_is_found():
    """An example importing a package this machine lacks is skipped, not failed (optional extras)."""
    parser = doctest.DocTestParser()
    absent = parser.get_doctest(">>> import numpy\n>>> from not_installed_zz import x\n", {}, "t", None, 0)
    assert _missing_module(absent) == "not_installed_zz"
    assert _missing_module(parser.get_doctest(">>> import numpy as np\n", {}, "t", None, 0)) is None


@pytest.mark.parametrize("func", [rankcore.boost, rankcore.PNormPush, rankcore.RankBoost])
def test_a_students_first_calls_have_examples(func):
    """``help()`` of a first call of the README shows an example of fitting an estimator."""
    doc = inspect.getdoc(func)
    assert "Examples\n--------" in doc and ">>>" in doc and ".fit(" in doc
