"""The plugin registry (rankcore.registry): discovery, attribution, containment."""

import sys
import textwrap
import types
import warnings

import pytest

import rankcore
from rankcore import registry as reg_mod
from rankcore.metrics import Metric
from rankcore.spec import Parameter, SpecError


class _Scratch(Metric):
    """A scratch metric used only by these tests."""

    name = "scratch-metric"
    aliases = ("scratch_alias",)
    parameters = (Parameter("level", float, default=1.0, minimum=0),)

    def compute(self, y, scores):
        return float(self.level)


def _plugin(*classes, hook="rankcore_register_metrics", raises=None):
    module = types.ModuleType("scratch_plugin")

    def register():
        if raises is not None:
            raise raises
        return list(classes)

    register.__name__ = hook
    setattr(module, hook, rankcore.hookimpl(register))
    return module


@pytest.fixture
def fresh_registry():
    """A plugin manager rebuilt for the test and again afterwards.

    List it before ``monkeypatch`` in a test's arguments: teardown runs in
    reverse order, so the environment and ``sys.path`` are restored first and
    the rebuilt registry is the normal one for the tests that follow.
    """
    reg_mod.registry(refresh=True)
    yield
    reg_mod.registry(refresh=True)


def test_builtin_hookimpls_match_hookspecs():
    pm = reg_mod.get_plugin_manager(refresh=True)
    pm.check_pending()  # a misspelled hook name in a built-in would fail here
    for module_name in reg_mod.DEFAULT_PLUGINS:
        assert pm.get_plugin(module_name) is not None


def test_import_rankcore_loads_no_plugin():
    code = "import rankcore, rankcore.registry as r; assert r._state['pm'] is None; print('ok')"
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_public_modules_are_attributes_after_a_bare_import():
    # rankcore.metrics.compare, as the README writes it, right after ``import rankcore`` in a fresh process
    code = ("import rankcore; print(rankcore.metrics.compare.__name__, "
            "rankcore.validation.ArgumentTypeRefusal.__name__, rankcore.gbdt.__name__, "
            "hasattr(rankcore, 'no_such_module'))")
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["compare", "ArgumentTypeRefusal", "rankcore.gbdt", "False"]


def test_register_plugin_resolves_by_name_and_alias(fresh_registry):
    reg_mod.register_plugin(_plugin(_Scratch), name="scratch", distribution="scratch-dist 1.0")
    reg = rankcore.get_registry()
    assert "scratch-metric" in reg.names("metric")
    m = reg.resolve("metric", "scratch-metric:2.5")
    assert isinstance(m, _Scratch) and m.level == 2.5
    assert reg.resolve("metric", "scratch_alias") == _Scratch()
    entry = reg.entry("metric", "scratch_alias")
    assert entry.distribution == "scratch-dist 1.0" and entry.plugin == "scratch"
    records = [r for r in rankcore.list_plugins() if r["name"] == "scratch-metric"]
    assert records == [
        {
            "family": "metric",
            "name": "scratch-metric",
            "spec": "scratch-metric:level",
            "aliases": ["scratch_alias"],
            "distribution": "scratch-dist 1.0",
            "plugin": "scratch",
            "summary": "A scratch metric used only by these tests.",
        }
    ]
    assert "scratch-metric:level" in reg.format_table()
    reg_mod.unregister_plugin("scratch")
    assert "scratch-metric" not in rankcore.get_registry().names("metric")


def test_unknown_name_lists_registered(fresh_registry):
    reg_mod.register_plugin(_plugin(_Scratch), name="scratch")
    with pytest.raises(rankcore.UnknownComponentError,
                       match=r"unknown metric 'nope'; registered metrics: .*scratch-metric"):
        rankcore.resolve("metric", "nope:3")


def test_malformed_spec_lists_registered(fresh_registry):
    reg_mod.register_plugin(_plugin(_Scratch), name="scratch")
    with pytest.raises(SpecError, match=r"registered metrics: .*scratch-metric"):
        rankcore.resolve("metric", "scratch-metric:")
    with pytest.raises(SpecError, match=r"level must be a number >= 0, got '-1'"):
        rankcore.resolve("metric", "scratch-metric:-1")


def test_resolve_rejects_wrong_types(fresh_registry):
    reg_mod.register_plugin(_plugin(_Scratch), name="scratch")
    with pytest.raises(TypeError, match="expected a spec string"):
        rankcore.resolve("metric", 3)
    with pytest.raises(ValueError, match="family: expected one of"):
        rankcore.resolve("metrics", "auc")
    instance = _Scratch(level=3)
    assert rankcore.resolve("metric", instance) is instance
    with pytest.raises(TypeError, match="expected a spec string or a Price"):
        rankcore.resolve("price", instance)


def test_duplicate_name_is_reported_and_first_wins(fresh_registry):
    class Impostor(_Scratch):
        """Same name, other provider."""

    reg_mod.register_plugin(_plugin(_Scratch), name="first", distribution="first-dist")
    reg_mod.register_plugin(_plugin(Impostor), name="second", distribution="second-dist")
    with pytest.warns(RuntimeWarning, match="second-dist.*already registered by first-dist"):
        reg = rankcore.get_registry()
    assert reg.get("metric", "scratch-metric") is _Scratch
    assert [p.distribution for p in reg.problems] == ["second-dist"]


def test_broken_hook_and_wrong_class_are_contained(fresh_registry):
    reg_mod.register_plugin(_plugin(raises=RuntimeError("boom")), name="broken", distribution="broken-dist")
    reg_mod.register_plugin(_plugin(int), name="wrong", distribution="wrong-dist")
    reg_mod.register_plugin(_plugin(_Scratch), name="good", distribution="good-dist")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reg = rankcore.get_registry()
    messages = [str(p) for p in reg.problems]
    assert any("broken-dist" in m and "raised RuntimeError: boom" in m for m in messages)
    assert any("wrong-dist" in m and "not a subclass of rankcore.Metric" in m for m in messages)
    assert len(caught) == 2
    assert "scratch-metric" in reg.names("metric")  # everything else keeps working


def _write_distribution(root, dist, module, source, entry_point):
    (root / f"{module}.py").write_text(textwrap.dedent(source))
    info = root / f"{dist}-1.2.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.2\n")
    (info / "entry_points.txt").write_text(f"[rankcore]\n{entry_point} = {module}\n")


def test_entry_point_plugins_discovered_and_failures_contained(fresh_registry, tmp_path, monkeypatch):
    good = '''
        import rankcore
        from rankcore.metrics import Metric

        class Half(Metric):
            """Always one half."""
            name = "always-half"
            def compute(self, y, scores):
                return 0.5

        @rankcore.hookimpl
        def rankcore_register_metrics():
            return [Half]
    '''
    _write_distribution(tmp_path, "good-plugin", "good_plugin_mod", good, "good")
    _write_distribution(tmp_path, "bad-plugin", "bad_plugin_mod", "raise ImportError('missing dependency xyz')\n",
                        "bad")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv(reg_mod.DISABLE_AUTOLOAD_ENV, raising=False)
    with pytest.warns(RuntimeWarning, match="bad-plugin 1.2.*failed to import.*missing dependency xyz"):
        reg = rankcore.get_registry(refresh=True)
    assert reg.entry("metric", "always-half").distribution == "good-plugin 1.2"
    assert reg.resolve("metric", "always-half")([0, 1], [0.0, 1.0]) == 0.5
    # Autoloading can be switched off.
    monkeypatch.setenv(reg_mod.DISABLE_AUTOLOAD_ENV, "1")
    reg = rankcore.get_registry(refresh=True)
    assert "always-half" not in reg.names("metric")
    assert reg.problems == []


def test_registry_restored_after_entry_point_test():
    """The entry-point test above leaves the normal registry behind (plugins autoloaded)."""
    import importlib.metadata

    reg = rankcore.get_registry()
    assert "always-half" not in reg.names("metric")
    try:
        importlib.metadata.distribution("rankcore-example-plugin")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("example plugin not installed in this environment")
    # loaded afresh: another test worker (pytest -n) may have installed the plugin after this one's registry loaded
    assert "cubic" in rankcore.get_registry(refresh=True).names("price")


def test_registry_repr_counts_families():
    text = repr(rankcore.get_registry())
    for family in reg_mod.FAMILIES:
        assert family in text


# --------------------------------------------------------------------------
# A plugin can fail in any way; rankcore stays usable
# --------------------------------------------------------------------------


class _NonIterableAliases(_Scratch):
    """Aliases that are not a tuple."""

    name = "bad-aliases"
    aliases = 5


class _StringAliases(_Scratch):
    """A bare string where a tuple belongs."""

    name = "string-aliases"
    aliases = "oops"


class _NumericName(_Scratch):
    """A name that is not a string."""

    name = 7
    aliases = ()


class _NumericAlias(_Scratch):
    """An alias that is not a string."""

    name = "numeric-alias"
    aliases = ("fine", 3)


class _RaisingMeta(type(_Scratch)):
    @property
    def aliases(cls):
        raise SystemExit(4)


class _RaisingAliases(_Scratch, metaclass=_RaisingMeta):
    """Reading its aliases exits."""

    name = "raising-aliases"


def _hook_returning(value, hook="rankcore_register_metrics"):
    module = types.ModuleType("scratch_plugin")

    def register():
        return value() if callable(value) else value

    register.__name__ = hook
    setattr(module, hook, rankcore.hookimpl(register))
    return module


def _generator_that_exits():
    yield _Scratch
    raise SystemExit(3)


def _generator_that_raises():
    yield _Scratch
    raise RuntimeError("half-way")


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (5, "TypeError"),
        (_generator_that_raises, "RuntimeError: half-way"),
        (_generator_that_exits, "did not return a list of classes: SystemExit: 3"),
        ([_NonIterableAliases], "aliases must be a tuple of strings, got int"),
        ([_StringAliases], "aliases must be a tuple of strings, got str"),
        ([_NumericName], "has no 'name' class attribute"),
        ([_NumericAlias], "tuple of non-empty strings, got 3"),
        ([_RaisingAliases], "could not be inspected: SystemExit: 4"),
        (["not a class"], "not a subclass of rankcore.Metric"),
        ([object()], "not a subclass of rankcore.Metric"),
    ],
    ids=["non-iterable", "generator-raises", "generator-exits", "aliases-int", "aliases-str", "name-int",
         "alias-int", "aliases-property-exits", "string-class", "object-class"],
)
def test_broken_hook_results_are_reported_and_skipped(fresh_registry, result, expected):
    reg_mod.register_plugin(_hook_returning(result), name="broken", distribution="broken-dist 0.1")
    reg_mod.register_plugin(_plugin(), name="empty", distribution="empty-dist")
    with pytest.warns(RuntimeWarning, match="broken-dist 0.1") as caught:
        reg = rankcore.get_registry()
    assert [p.distribution for p in reg.problems] == ["broken-dist 0.1"]
    assert reg.problems[0].plugin == "broken"
    assert expected in reg.problems[0].message
    assert any(expected in str(w.message) for w in caught)
    # Everything else keeps working, through the public API.
    assert rankcore.evaluate([0, 1, 1], [0.1, 0.9, 0.5], ["auc"])["auc"] == 1.0
    assert "auc" in reg.names("metric")


_EXIT_AT_IMPORT = "import sys\nsys.exit(3)\n"
_GOOD_PLUGIN = '''
    import rankcore
    from rankcore.metrics import Metric

    class Third(Metric):
        """Always one third."""
        name = "always-third"
        def compute(self, y, scores):
            return 1 / 3

    @rankcore.hookimpl
    def rankcore_register_metrics():
        return [Third]
'''
_NON_ITERABLE_PLUGIN = '''
    import rankcore

    @rankcore.hookimpl
    def rankcore_register_prices():
        return 5
'''
_BAD_SIGNATURE_PLUGIN = '''
    import rankcore

    @rankcore.hookimpl
    def rankcore_register_prices(unknown_argument):
        return []
'''


def _install_fake_plugins(tmp_path, monkeypatch):
    _write_distribution(tmp_path, "exits-plugin", "exits_plugin_mod", _EXIT_AT_IMPORT, "exits")
    _write_distribution(tmp_path, "fives-plugin", "fives_plugin_mod", _NON_ITERABLE_PLUGIN, "fives")
    _write_distribution(tmp_path, "signature-plugin", "signature_plugin_mod", _BAD_SIGNATURE_PLUGIN, "signature")
    _write_distribution(tmp_path, "third-plugin", "third_plugin_mod", _GOOD_PLUGIN, "third")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv(reg_mod.DISABLE_AUTOLOAD_ENV, raising=False)


_EXPECTED_PROBLEMS = {
    ("exits-plugin 1.2", "exits"): "failed to import: SystemExit: 3",
    ("fives-plugin 1.2", "fives"): "rankcore_register_prices() did not return a list of classes: TypeError",
    ("signature-plugin 1.2", "signature"): "could not be registered",
}


def test_entry_point_that_exits_or_misbehaves_is_skipped(fresh_registry, tmp_path, monkeypatch):
    _install_fake_plugins(tmp_path, monkeypatch)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reg = rankcore.get_registry(refresh=True)
    found = {(p.distribution, p.plugin): p.message for p in reg.problems}
    assert set(found) == set(_EXPECTED_PROBLEMS)
    for key, expected in _EXPECTED_PROBLEMS.items():
        assert expected in found[key]
    assert len([w for w in caught if issubclass(w.category, RuntimeWarning)]) == 3
    assert reg.resolve("metric", "always-third")([0, 1], [0.0, 1.0]) == pytest.approx(1 / 3)
    assert rankcore.evaluate([0, 1], [0.0, 1.0], ["auc"])["auc"] == 1.0


def test_cli_plugins_reports_broken_entry_points(fresh_registry, tmp_path, monkeypatch, capsys):
    import json

    from rankcore.cli import main

    _install_fake_plugins(tmp_path, monkeypatch)
    reg_mod.get_plugin_manager(refresh=True)
    monkeypatch.setenv("COLUMNS", "1000")  # one line per problem (tests/test_terminal_width.py wraps them)
    assert main(["plugins"]) == 0
    text = capsys.readouterr().out
    for (dist, plugin), expected in _EXPECTED_PROBLEMS.items():
        line = next(line for line in text.splitlines() if f"'{plugin}'" in line)
        assert line.startswith("PROBLEM:") and dist in line and expected in line
    assert "always-third" in text
    assert main(["plugins", "--json"]) == 0
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert {(p["distribution"], p["plugin"]) for p in problems} == set(_EXPECTED_PROBLEMS)


def _declared(base, **attrs):
    """A subclass of ``base`` named "declared" whose class attributes ``attrs`` are a plugin author's mistake."""
    return type("Declared", (base,), {"name": "declared", **attrs})


@pytest.mark.parametrize("hook, base, attrs, message", [
    ("rankcore_register_metrics", Metric, {"greater_is_better": "False"},
     "Declared.greater_is_better must be True, False or None, got 'False'"),
    ("rankcore_register_metrics", Metric, {"task": "weird"}, "Declared.task must be 'bipartite' or 'graded'"),
    ("rankcore_register_metrics", Metric, {"monotone": 1}, "Declared.monotone must be True or False, got 1"),
    ("rankcore_register_metrics", Metric, {"greater_is_better": lambda self: False},   # @property forgotten
     "Declared.greater_is_better must be True, False or None, got <function"),
    ("rankcore_register_auto_candidates", None, {"default_specs": "declared"},
     "Declared.default_specs must be a tuple of spec strings"),
    ("rankcore_register_auto_candidates", None, {"default_specs": ("declared:depth=3",)},
     "Declared.default_specs: candidate 'declared': unknown parameter(s) depth"),
    ("rankcore_register_auto_candidates", None, {"small_data_specs": ("other",)},
     "Declared.small_data_specs: 'other' is not a spec of 'declared'"),
    ("rankcore_register_auto_candidates", None, {"priority": "high"}, "Declared.priority must be a finite number"),
    ("rankcore_register_auto_candidates", None, {"relative_cost": -1.0},
     "Declared.relative_cost must be a finite number > 0, got -1.0"),
    ("rankcore_register_auto_candidates", None, {"relative_cost": float("nan")}, "relative_cost must be"),
    ("rankcore_register_auto_candidates", None, {"max_rows": 0}, "Declared.max_rows must be None or a whole number"),
], ids=["greater_is_better", "task", "flag", "method", "specs-text", "specs-typo", "small-data-other", "priority",
        "cost", "cost-nan", "max_rows"])
def test_a_plugins_unusable_declarations_are_a_problem_naming_it(fresh_registry, hook, base, attrs, message):
    # checked once, when registered: before, a string greater_is_better made AutoRanker maximise a loss, and a
    # typo in default_specs broke every default AutoRanker fit far from the plugin
    from _plugin_registration import components_registered
    from rankcore.auto import Candidate

    cls = _declared(base or Candidate, **attrs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with components_registered(hook, [cls], "declaring", distribution="declaring-dist"):
            reg = rankcore.get_registry()
            problems = [p for p in reg.problems if p.distribution == "declaring-dist"]
            assert len(problems) == 1 and message in problems[0].message
            family = "metric" if base is Metric else "candidate"
            assert "declared" not in reg.names(family)


def test_a_plugin_name_taken_is_refused_in_one_line(fresh_registry):
    # pluggy's own error dumped the repr of every registered plugin
    reg_mod.register_plugin(_plugin(_Scratch), name="twice")
    with pytest.raises(ValueError, match=r"^name: a plugin named 'twice' is already registered; "
                                         r"unregister_plugin\('twice'\) first"):
        reg_mod.register_plugin(_plugin(_Scratch), name="twice")
    plugin = _plugin(_Scratch)
    reg_mod.register_plugin(plugin, name="once")
    with pytest.raises(ValueError, match="plugin: this object is already registered, as 'once'"):
        reg_mod.register_plugin(plugin, name="again")


def test_a_hook_of_no_rankcore_name_is_a_problem_naming_it(fresh_registry):
    # pluggy keeps such an implementation and never calls it: the plugin registered nothing, silently
    plugin = type("Typo", (), {"rankcore_register_metric": rankcore.hookimpl(lambda self: [_Scratch])})()
    reg_mod.register_plugin(plugin, name="typo", distribution="typo-dist")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        reg = rankcore.get_registry()
    [problem] = [p for p in reg.problems if p.distribution == "typo-dist"]
    assert problem.plugin == "typo"
    assert problem.message == ("rankcore_register_metric is not a rankcore hook, so it is never called; did you "
                               "mean 'rankcore_register_metrics'?")


def test_declarations_set_per_instance_or_as_numpy_values_are_accepted(fresh_registry):
    # the declaration checks refused what plugins had used all along: a cached_property, np.True_, max_rows=1e6
    import functools

    import numpy as np

    from _plugin_registration import components_registered
    from rankcore.auto import Candidate

    metric = _declared(Metric, bounded=np.True_,
                       greater_is_better=functools.cached_property(lambda self: True))
    candidate = _declared(Candidate, max_rows=1e6, relative_cost=np.float64(0.5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with components_registered("rankcore_register_metrics", [metric], "m", distribution="m-dist"), \
                components_registered("rankcore_register_auto_candidates", [candidate], "c", distribution="c-dist"):
            reg = rankcore.get_registry()
            assert [p for p in reg.problems if p.distribution in ("m-dist", "c-dist")] == []
            assert "declared" in reg.names("metric") and "declared" in reg.names("candidate")


def test_dir_lists_the_public_subpackages_before_they_are_imported():
    """(Before: ``dir(rankcore)`` named none of them in a fresh process, so tab completion offered none.)"""
    import subprocess

    code = "import rankcore, sys; print(sorted(set(rankcore._MODULES) - set(dir(rankcore))), 'rankcore.rkhs' in " \
           "sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[]", "False"]
