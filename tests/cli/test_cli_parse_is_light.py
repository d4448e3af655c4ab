"""Parsing the command line loads no estimator: only the help lists the model kinds (from the registry)."""

import contextlib
import io
import subprocess
import sys

from rankcore.cli import main

#: Modules that only a registry loaded with every plugin's components (the estimators) brings in.
_ESTIMATOR_MODULES = ("sklearn", "rankcore.push", "rankcore.precision_at_k", "rankcore.exactboost", "rankcore.rkhs")

_PARSE_ERROR = (
    "import sys\n"
    "from rankcore.cli import main\n"
    "try:\n"
    "    main(['fit', 'x.csv', '--no-such-option'])\n"
    "except SystemExit as exit:\n"
    "    assert exit.code == 2, exit.code\n"
    f"loaded = sorted(m for m in sys.modules if m.startswith({_ESTIMATOR_MODULES!r}))\n"
    "assert not loaded, loaded\n"
)


def test_a_usage_error_loads_no_estimator():
    done = subprocess.run([sys.executable, "-c", _PARSE_ERROR], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "unrecognized arguments: --no-such-option" in done.stderr


def _help(command):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            main([command, "--help"])
        except SystemExit as exit:
            assert exit.code == 0
    return out.getvalue()


def test_the_help_still_lists_every_model_kind():
    from rankcore.cli._models import KINDS

    for command in ("fit", "compare"):
        text = _help(command)
        assert "models:" in text and "a kind listed under 'models' below" in text
        for kind in KINDS:
            assert f"\n  {kind} " in text, (command, kind)
