"""Running the command line in-process for the tests: its status, standard output and standard error."""

import contextlib
import io
import sys
import warnings

from rankcore.cli import main


class PipedStdin:
    """Standard input as a pipe gives it: ``data`` (bytes) on ``.buffer``, and no terminal (``terminal``: one)."""

    def __init__(self, data: bytes = b"", terminal: bool = False):
        self.buffer = io.BytesIO(data)
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal


def run_main(*argv, stdin=None):
    """``rankcore ARGV...`` in this process: (exit status, stdout, stderr); warnings go to stderr as the CLI
    writes them.

    ``stdin``: bytes piped to the command's standard input (or a stream standing for it, e.g. :class:`PipedStdin`);
    by default the process's own.
    """
    out, err = io.StringIO(), io.StringIO()
    piped = PipedStdin(stdin) if isinstance(stdin, (bytes, bytearray)) else stdin
    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        stack.enter_context(warnings.catch_warnings())
        if piped is not None:
            stack.enter_context(_stdin_from(piped))
        status = main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def _stdin_from(stream):
    """``sys.stdin`` is ``stream`` within the block."""
    saved, sys.stdin = sys.stdin, stream
    try:
        yield
    finally:
        sys.stdin = saved


def one_line_error(status, err, *fragments):
    """A usage error: exit status 2 and one ``rankcore: error:`` line holding every fragment."""
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rankcore: error: "), err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def written_or_shown(command: str, tmp_path) -> tuple:
    """The options that keep a test's ``fit`` or ``compare`` to its temporary directory: ``fit`` writes its model
    there (``-o``), ``compare`` draws no plots."""
    return ("-o", tmp_path / "m.json") if command == "fit" else ("--no-plots",)


def usage_error(capsys, *argv) -> str:
    """The stderr of a command argparse refuses (exit status 2)."""
    import pytest

    with pytest.raises(SystemExit) as exit:
        main([str(a) for a in argv])
    assert exit.value.code == 2
    return capsys.readouterr().err


def write_binary_csv(path):
    """A 60-row CSV of two number columns ``a``, ``b`` and a 0/1 ``label`` (seeded), written to ``path``."""
    import numpy as np

    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(60, 2)), 3)
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    path.write_text("a,b,label\n" + "".join(f"{a!r},{b!r},{t}\n" for (a, b), t in zip(X.tolist(), y)))
    return path


def write_data_and_model(folder):
    """``folder/d.csv`` (60 rows: ``a``, ``b``, a 0/1 ``label``; seeded) and ``folder/m.json``, a 3-tree model of it;
    returns ``folder``."""
    import numpy as np

    import rankcore
    from rankcore.persistence import save_model

    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(60, 2)), 2)
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    (folder / "d.csv").write_text("a,b,label\n" + "".join(f"{a},{b},{c}\n" for (a, b), c in zip(X, y)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(X, y)
    save_model(model, folder / "m.json")
    return folder


def write_kept_sparse_libsvm(folder, monkeypatch):
    """``folder/t.svm`` (120 rows of 4 nonzero values among 20 features, 0/1 labels; seeded), read kept sparse as a
    file of benchmark size is (the size thresholds set to 0); returns its path."""
    import numpy as np

    import rankcore._sparse_checks
    import rankcore.validation
    from rankcore.cli.datasets import _libsvm

    monkeypatch.setattr(_libsvm, "SPARSE_FROM_BYTES", 0)
    monkeypatch.setattr(rankcore._sparse_checks, "DENSE_BYTES_LIMIT", 0)
    monkeypatch.setattr(rankcore.validation, "DENSE_BYTES_LIMIT", 0)
    rng = np.random.default_rng(5)
    rows = []
    for r in range(120):
        index = np.sort(rng.choice(20, 4, replace=False)) + 1
        rows.append(f"{r % 2} " + " ".join(f"{i}:{rng.normal():.3f}" for i in index))
    path = folder / "t.svm"
    path.write_text("\n".join(rows) + "\n")
    return path
