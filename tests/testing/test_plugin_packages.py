"""Plugin packages for every family: `rankcore plugins new` writes them, docs/examples holds them, they pass.

The flow a plugin author follows, for each family: `rankcore plugins new
FAMILY NAME` writes a package; it is exactly the one in docs/examples/ that
docs/plugins.md walks through; installed (offline, without build isolation,
all in one pip call, into a scratch folder) it is found through its entry
point and its own tests -- rankcore's contract checks and a use by name --
pass as written.
"""

import contextlib
import importlib
import io
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

import rankcore
from rankcore.cli import main
from rankcore.cli._plugin_template import PluginNames, plugin_files, template_families
from rankcore.registry import register_plugin, unregister_plugin
from rankcore.testing import plugin_checks

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
#: The component each family's example package in docs/examples/ holds.
EXAMPLE_NAMES = {"loss": "modified-huber", "price": "quadratic", "learner": "comparisons",
                 "objective": "squared-auc", "metric": "list-recall@k", "filter": "softcut", "kernel": "cauchy",
                 "estimator": "pairwise-logistic"}
_BUILD_LEFTOVERS = ("build", "__pycache__", ".pytest_cache")


def test_every_family_has_a_template_and_an_example():
    assert set(template_families()) == set(EXAMPLE_NAMES)
    dists = {PluginNames.of(f, n).dist for f, n in EXAMPLE_NAMES.items()}
    assert {p.name for p in EXAMPLES.iterdir() if p.is_dir()} == dists


def _files_of(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in root.rglob("*")
            if p.is_file() and not any(part in _BUILD_LEFTOVERS or part.endswith(".egg-info")
                                       for part in p.relative_to(root).parts)}


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """`rankcore plugins new` for every family's example name, through the command line."""
    out = tmp_path_factory.mktemp("generated")
    for family, name in EXAMPLE_NAMES.items():
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert main(["plugins", "new", family, name, "--dir", str(out)]) == 0
    return out


@pytest.mark.parametrize("family", sorted(EXAMPLE_NAMES))
def test_examples_are_what_the_template_writes(generated, family):
    dist = PluginNames.of(family, EXAMPLE_NAMES[family]).dist
    assert _files_of(generated / dist) == _files_of(EXAMPLES / dist), (
        f"docs/examples/{dist} differs from `rankcore plugins new {family} {EXAMPLE_NAMES[family]}`: "
        f"regenerate it (rm -r docs/examples/{dist}; rankcore plugins new {family} {EXAMPLE_NAMES[family]} "
        "--dir docs/examples)")


@pytest.fixture(scope="module")
def installed(generated, tmp_path_factory):
    """All the generated packages installed into one folder, by one offline pip call."""
    target = tmp_path_factory.mktemp("site")
    packages = sorted(str(p) for p in generated.iterdir())
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
           "--target", str(target), *packages]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, f"installing the plugin packages failed:\n{done.stdout}\n{done.stderr}"
    env = {k: v for k, v in os.environ.items() if k != "RANKCORE_DISABLE_PLUGIN_AUTOLOAD"}
    env["PYTHONPATH"] = os.pathsep.join([str(target), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def test_plugin_packages_pass_their_own_tests(generated, installed):
    """Their tests (rankcore.testing.plugin_checks) also find each component through its entry point,
    provided by its own distribution, in this fresh interpreter."""
    tests = sorted(str(p / "tests") for p in generated.iterdir())
    cmd = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "--rootdir", str(generated), *tests]
    done = subprocess.run(cmd, capture_output=True, text=True, env=installed, cwd=generated)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout
    # scikit-learn's checks (the estimator's) include an array-API check that runs only with SCIPY_ARRAY_API=1
    skips = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert all("SCIPY_ARRAY_API" in line for line in skips), "\n".join(skips)


def test_cli_fits_the_installed_estimator_example(generated, installed, tmp_path, monkeypatch):
    """`rankcore fit --model NAME` finds the example estimator through its entry point; its model file loads."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 3))
    y = (X[:, 0] - X[:, 2] + 0.5 * rng.normal(size=150) > 0.5).astype(int)
    data, model = tmp_path / "train.csv", tmp_path / "model.json"
    np.savetxt(data, np.column_stack([X, y]), delimiter=",", header="a,b,c,label", comments="", fmt="%.17g")
    name = EXAMPLE_NAMES["estimator"]
    cmd = [sys.executable, "-m", "rankcore", "fit", str(data), "--model", name, "--n-iter", "30",
           "--param", "batch_size=32", "--out", str(model), "-q"]
    done = subprocess.run(cmd, capture_output=True, text=True, env=installed, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    names = PluginNames.of("estimator", name)
    saved = json.loads(model.read_text(encoding="utf-8"))
    assert saved["estimator"] == names.cls
    assert saved["params"]["n_iter"] == 30 and saved["params"]["batch_size"] == 32
    assert saved["params"]["random_state"] == 0                     # the command line's default seed
    with _registered(generated / names.dist, names, monkeypatch) as cls:
        loaded = rankcore.load_model(model)
        assert type(loaded) is cls and loaded.n_iter_ == 30
        assert rankcore.evaluate(y, loaded.decision_function(X), ["auc"])["auc"] > 0.8


@pytest.mark.parametrize("family", sorted(EXAMPLE_NAMES))
def test_template_for_another_name_passes_the_checks(family, tmp_path, monkeypatch):
    """Any valid name gives a package whose component passes the contract checks (run in this process)."""
    names = PluginNames.of(family, f"my-{family}@x")
    _write_package(tmp_path, names)
    config = tomllib.loads((tmp_path / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["project"]["entry-points"]["rankcore"] == {names.entry: f"{names.module}.plugin"}
    with _registered(tmp_path, names, monkeypatch) as component:
        for check in plugin_checks(component):
            check()


@pytest.mark.parametrize("field, value, message", [
    ("coef", np.zeros(3), "coef must be 4 finite float64 numbers"),
    ("objective", np.full(6, np.nan), "objective must be 6 finite float64 numbers"),
    ("n_iter", 9, "n_iter must be an integer in [0, 5], got 9"),
    ("classes", [1, 1], "classes must hold two distinct labels, got [1, 1]"),
    ("n_features_in", "4", "n_features_in must be a positive integer, got '4'"),
], ids=["coef", "objective", "n_iter", "classes", "n_features_in"])
def test_template_estimator_refuses_a_model_file_that_breaks_its_state(field, value, message, tmp_path, monkeypatch):
    """The generated ``_restore_fitted_state`` checks every field (the checksum is recomputed, as an attacker would)."""
    from rankcore import persistence

    names = PluginNames.of("estimator", "my-estimator@x")
    _write_package(tmp_path, names)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = (X[:, 0] > 0).astype(int)
    with _registered(tmp_path, names, monkeypatch) as cls:
        data = persistence.model_to_dict(cls(n_iter=5, random_state=0).fit(X, y))
        data["state"][field] = persistence._encode(value, "state")
        data["sha256"] = persistence._checksum({k: v for k, v in data.items() if k != "sha256"})
        with pytest.raises(persistence.ModelFormatError, match=re.escape(f"{names.cls} state: {message}")):
            persistence.model_from_dict(data)


def _write_package(root: Path, names: PluginNames) -> None:
    """What `rankcore plugins new` writes for ``names``, into ``root``; every Python file compiles."""
    for relative, text in plugin_files(names).items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if relative.endswith(".py"):
            compile(text, relative, "exec")


@contextlib.contextmanager
def _registered(root: Path, names: PluginNames, monkeypatch):
    """The package in ``root`` registered in this process, without installing it; yields the component class."""
    def forget():            # a module of that name imported earlier (from another folder) must not be reused
        for module in [m for m in sys.modules if m.split(".")[0] == names.module]:
            del sys.modules[module]

    forget()
    monkeypatch.syspath_prepend(str(root))
    try:
        plugin = importlib.import_module(f"{names.module}.plugin")
        component = getattr(importlib.import_module(f"{names.module}.{names.family}"), names.cls)
        register_plugin(plugin, name=names.entry, distribution=names.dist)
        try:
            yield component
        finally:
            unregister_plugin(names.entry)
    finally:
        forget()


def _run(*argv):
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, err.getvalue()


def test_plugins_new_refuses_what_it_cannot_write(tmp_path):
    assert _run("plugins", "new", "price", "quadratic", "--dir", str(tmp_path))[0] == 0
    status, err = _run("plugins", "new", "price", "quadratic", "--dir", str(tmp_path))
    assert status == 2 and "already exists" in err                   # nothing is overwritten
    status, err = _run("plugins", "new", "price", "Two Words", "--dir", str(tmp_path))
    assert status == 2 and "NAME: expected a component name" in err and "'Two Words'" in err
    status, err = _run("plugins", "new", "price", "cube", "--dir", str(tmp_path / "missing"))
    assert status == 2 and "is not a directory" in err
    # a built-in's name: once installed the registry would skip it, and its tests would test the built-in
    for family, name in (("metric", "auc"), ("price", "pow"), ("loss", "exponential")):
        status, err = _run("plugins", "new", family, name, "--dir", str(tmp_path))
        assert status == 2 and f"NAME: {name!r} is already a registered {family} (from rankcore)" in err
        assert not list(tmp_path.glob(f"rankcore-{name}"))
    with pytest.raises(SystemExit):
        _run("plugins", "new", "widget", "x")                        # argparse: not a family with a template
