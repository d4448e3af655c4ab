"""Lines a reader sees whole: no source line over 120 characters in rankcore/, tests/, benchmarks/, studies/,
plugins/ or docs/examples/ (``.py``, ``.pyx``, ``.pxd``, ``.pxi``)."""

from pathlib import Path

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "rankcore" / "__init__.py").is_file())
FOLDERS = ("rankcore", "tests", "benchmarks", "studies", "plugins", "docs/examples")
SUFFIXES = (".py", ".pyx", ".pxd", ".pxi")
# build outputs and caches are not sources, and hidden folders (.venv, .git) are not the project's
SKIPPED_FOLDERS = {"build", "__pycache__"}
MAX_LINE = 120


def source_files(root: Path) -> list[Path]:
    """The source files under ``root``'s scanned folders, outside build, cache and hidden folders."""
    found = []
    for name in FOLDERS:
        for path in sorted((root / name).rglob("*")):
            folders = path.relative_to(root).parts[:-1]
            if (path.suffix in SUFFIXES and path.is_file()
                    and not any(f in SKIPPED_FOLDERS or f.startswith(".") for f in folders)):
                found.append(path)
    return found


def long_lines(root: Path) -> list[str]:
    """``path:line: length`` of every line over :data:`MAX_LINE` characters (not bytes) in the source files."""
    found = []
    for path in source_files(root):
        # split on "\n" only (read_text has turned "\r\n" into it): the numbers an editor shows
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
            if len(line) > MAX_LINE:
                found.append(f"{path.relative_to(root).as_posix()}:{number}: {len(line)} characters")
    return found


def test_no_source_line_over_120_characters():
    found = long_lines(ROOT)
    assert found == [], "wrap these lines (parenthesized continuation, adjacent string literals):\n" + "\n".join(found)


def test_the_scan_reads_every_folder():
    names = {p.relative_to(ROOT).as_posix() for p in source_files(ROOT)}
    for folder in FOLDERS:
        assert any(n.startswith(folder + "/") for n in names), folder
    assert "rankcore/learners/trees/_grow.pyx" in names and "rankcore/learners/trees/_treeshap_path.pxd" in names


def test_the_check_finds_a_long_line_and_names_file_and_line(tmp_path):
    def write(name, text):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    write("rankcore/__init__.py", "x = 1\n")
    write("rankcore/fits.py", "# " + "x" * 118 + "\n" + "y = 'é" + "é" * 113 + "'\n")        # 120 characters each
    write("rankcore/kernels.pyx", "x = 1\r\n" + "# " + "x" * 119 + "\r\n")                     # 121 characters
    write("docs/examples/plugin/module.pxd", "\n\n# " + "x" * 200 + "\n")
    write("tests/helper.pxi", "# " + "x" * 119)                                             # no final newline
    write("benchmarks/build/lib/copy.py", "# " + "x" * 200 + "\n")                         # a build output
    write("plugins/.venv/site.py", "# " + "x" * 200 + "\n")                                # a hidden folder
    write("studies/notes.md", "x" * 200 + "\n")                                            # not a source suffix
    write("docs/other.py", "# " + "x" * 200 + "\n")                                        # docs/ outside examples
    assert long_lines(tmp_path) == ["rankcore/kernels.pyx:2: 121 characters",
                                    "tests/helper.pxi:1: 121 characters",
                                    "docs/examples/plugin/module.pxd:3: 202 characters"]
