"""Every ``>>>`` example of a public docstring runs and prints what it shows, as ``help()`` shows it to a student.

The public names are those of ``rankcore``, ``rankcore.metrics``, ``rankcore.gbdt`` and ``rankcore.plotting``
(``__all__``, or the public names of a module without one), with their classes' methods.  The examples need
neither the data sets folder nor the network (scikit-learn's bundled data sets are read from its package).
"""

import doctest
import inspect

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


@pytest.mark.parametrize("test", list(_examples()))
def test_docstring_example_runs(test):
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


def test_examples_are_found():
    """The collection above is not empty by mistake (a test that runs nothing cannot fail)."""
    names = {param.values[0].name for param in _examples()}
    assert {"rankcore.boost", "rankcore.metrics.auc", "rankcore.PushBoost"} <= names


@pytest.mark.parametrize("func", [rankcore.boost])
def test_a_students_first_calls_have_examples(func):
    """``help(rankcore.boost)``, the first call of the README, shows an example of fitting what it returns."""
    doc = inspect.getdoc(func)
    assert "Examples\n--------" in doc and ">>>" in doc and ".fit(" in doc
