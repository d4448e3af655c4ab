"""The documentation checker itself (tests/_docs_blocks.py): it must catch drift, not just run."""

import pytest

from _docs_blocks import bash_commands, compare_output, inline_expectations, read_blocks, run_python


@pytest.mark.parametrize("expected, printed", [
    ("rmax 147  auc 0.9885", "rmax 147 auc 0.98851"),          # whitespace runs are one space
    ("pauc:0.1 0.09176", "pauc:0.1 0.0917612"),               # to the printed precision
    ("0.6667", "0.6666666666666666"),
    ("[1. 1. 0.95]", "[1.   1.   0.95]"),
    ("1.0e-3", "0.00104"),
    ("...invalid parameters: n_jobs ...", "RankBoost state: invalid parameters: n_jobs: expected None"),
    ("a\n...\nz", "a\nb\nc\nz"),
])
def test_compare_output_accepts(expected, printed):
    assert compare_output(expected, printed) is None


@pytest.mark.parametrize("expected, printed, says", [
    ("rmax 147", "rmax 146", "147 (printed 146)"),              # an integer is exact
    ("pauc:0.1 0.09341", "pauc:0.1 0.09176", "0.09341 (printed 0.09176)"),
    ("auc 0.9885", "auc 0.9886", "0.9885 (printed 0.9886)"),
    ("0.6667", "0.6", "0.6667 (printed 0.6)"),                # fewer digits printed than shown
    ("rmax 147", "rmax 147 extra", "the text differs"),
    ("ranking 'good' first", "ranking 'bad' first", "the text differs"),
    ("prec@k:10 1", "prec@k:20 1", "10 (printed 20)"),
])
def test_compare_output_catches_drift(expected, printed, says):
    problem = compare_output(expected, printed)
    assert problem is not None and says in problem


def test_inline_expectations_only_in_comments():
    code = 'print("# -> not a comment")\nprint(1)  # -> 1\nprint(2)  # the two -> 2\nx = 3  # no arrow\n'
    assert inline_expectations(code) == {2: "1", 3: "2"}


def _page(tmp_path, text):
    path = tmp_path / "page.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_directives_attach_to_the_next_block(tmp_path):
    page = _page(tmp_path, "x\n<!-- docs-test: skip needs the network -->\n\n```bash\npip install x\n```\n\n"
                           "- item:\n\n  ```python\n  print(1)\n  ```\n<!-- docs-test: output -->\n```text\n1\n```\n")
    skip, indented, output = read_blocks(page)
    assert (skip.directive, skip.argument, skip.line) == ("skip", "needs the network", 4)
    assert (indented.lang, indented.code, indented.directive) == ("python", "print(1)\n", None)
    assert output.directive == "output"


def test_a_skip_needs_a_reason_and_directives_are_known(tmp_path):
    with pytest.raises(AssertionError, match="needs a reason"):
        read_blocks(_page(tmp_path, "<!-- docs-test: skip -->\n```bash\nx\n```\n"))
    with pytest.raises(AssertionError, match="unknown docs-test directive"):
        read_blocks(_page(tmp_path, "<!-- docs-test: ignore -->\n```bash\nx\n```\n"))


def test_a_wrong_inline_output_fails_with_the_markdown_line(tmp_path):
    page = _page(tmp_path, "text\n\n```python\nx = 2\nprint(x + 1)  # -> 4\n```\n")
    (block,) = read_blocks(page)
    with pytest.raises(AssertionError, match=r"page.md:5: numbers differ: 4 \(printed 3\)"):
        run_python(block, {})


def test_python_errors_point_at_the_markdown_line(tmp_path):
    page = _page(tmp_path, "text\n\n```python\nx = 1\nraise ValueError(x)\n```\n")
    (block,) = read_blocks(page)
    with pytest.raises(ValueError) as info:
        run_python(block, {})
    assert info.traceback[-1].lineno + 1 == 5


def test_bash_lines_other_than_rankcore_must_be_marked(tmp_path):
    (ok, shell) = read_blocks(_page(tmp_path, "```bash\nrankcore fit a.csv \\\n  --out m.json  # a comment\n```\n"
                                              "```bash\nrankcore score m.json a.csv | head\n```\n"))
    assert bash_commands(ok) == [["rankcore", "fit", "a.csv", "--out", "m.json"]]
    with pytest.raises(AssertionError, match="not a plain rankcore command"):
        bash_commands(shell)
