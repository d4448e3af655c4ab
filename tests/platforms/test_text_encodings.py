"""Every text file rankcore opens names its encoding.

Without ``encoding=``, Python uses the locale's: cp1252 on most Windows machines (until Python 3.15), so
a UTF-8 file would be misread there, and ``python -X warn_default_encoding`` (or
``PYTHONWARNDEFAULTENCODING``) shows an ``EncodingWarning`` for each such call.  The check reads the
source: a call the suite never reaches on Linux is caught too.
"""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "rankcore"

#: Calls that open text with the locale's encoding unless told otherwise.
TEXT_OPENERS = {"open", "read_text", "write_text", "TextIOWrapper", "NamedTemporaryFile", "TemporaryFile"}


def _mode(call):
    """The mode argument of an open-like call when it is a string literal, else None."""
    for keyword in call.keywords:
        if keyword.arg == "mode" and isinstance(keyword.value, ast.Constant):
            return keyword.value.value
    name = _name(call)
    position = 1 if name == "open" else 0
    if name in ("open", "NamedTemporaryFile", "TemporaryFile") and len(call.args) > position:
        argument = call.args[position]
        return argument.value if isinstance(argument, ast.Constant) else None
    return None


def _name(call):
    function = call.func
    if isinstance(function, ast.Name):
        return function.id
    return function.attr if isinstance(function, ast.Attribute) else None


def _locale_text_calls(tree):
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or _name(node) not in TEXT_OPENERS:
            continue
        function = node.func
        # os.open is a descriptor, a ZipFile's or a tarfile's open is binary: only the builtin and io.open count
        if _name(node) == "open" and isinstance(function, ast.Attribute) and not (
                isinstance(function.value, ast.Name) and function.value.id == "io"):
            continue
        if any(keyword.arg in ("encoding", None) for keyword in node.keywords):   # None: **kwargs
            continue
        mode = _mode(node)
        default_binary = _name(node) in ("NamedTemporaryFile", "TemporaryFile")   # "w+b" unless told
        if (mode is None and default_binary) or (mode is not None and "b" in mode):
            continue
        yield node.lineno


def test_no_text_opened_with_the_locale_encoding():
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}"
             for path in sorted(PACKAGE.rglob("*.py"))
             for line in _locale_text_calls(ast.parse(path.read_text(encoding="utf-8")))]
    assert not found, f"text opened without encoding= (the locale's, cp1252 on Windows): {found}"
