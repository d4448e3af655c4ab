"""Delimited files as other systems export them: decimal commas, and what they must never be read as."""

import numpy as np
import pytest
from _cli_run import one_line_error, run_main

from rankcore.cli.datasets import DataError, TextColumnsError, load_data


def european_csv(path, n=60, seed=0):
    """A spreadsheet's export: ``;`` between fields, a decimal comma in the numbers, CRLF line ends, a BOM."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)).round(3)
    y = (X[:, 0] + rng.normal(size=n) > 0).astype(int)
    lines = ["id;a;b;label"] + [f"r{i};{str(a).replace('.', ',')};{str(b).replace('.', ',')};{label}"
                                for i, ((a, b), label) in enumerate(zip(X, y))]
    path.write_bytes(("\ufeff" + "\r\n".join(lines) + "\r\n").encode())
    return path


def test_decimal_commas_are_not_offered_as_categories(tmp_path):
    """The error names the numbers written with a comma and how to convert them, never --categorical for them."""
    data = european_csv(tmp_path / "euro.csv")
    with pytest.raises(TextColumnsError) as caught:
        load_data(data, drop=["id"])
    assert caught.value.comma_columns == ["a", "b"]
    status, _, err = run_main("fit", data, "--drop", "id", "--out", tmp_path / "m.json")
    one_line_error(status, err, "euro.csv, line 2, column 'a'", "'0,126'", "numbers written with a comma",
                   "decimal=','")
    assert "--categorical" not in err


def test_text_beside_decimal_commas_keeps_its_advice(tmp_path):
    """Only the columns of comma numbers are told to convert; a real column of text still gets --categorical."""
    data = european_csv(tmp_path / "euro.csv")
    status, _, err = run_main("fit", data, "--out", tmp_path / "m.json")
    one_line_error(status, err, "text in 3 columns: id, a, b", "these columns a, b hold numbers written with a comma",
                   "for the other columns of text: split it by category with --categorical auto")


def test_categorical_auto_refuses_decimal_comma_columns(tmp_path):
    """``--categorical auto`` took '0,126' for a category: every number a name of its own, the order lost silently."""
    data = european_csv(tmp_path / "euro.csv")
    with pytest.raises(DataError, match=r"euro\.csv, line 2, column 'a': '0,126' is a number written with a comma"):
        load_data(data, drop=["id"], categorical="auto")
    status, _, err = run_main("fit", data, "--drop", "id", "--categorical", "auto", "--learner", "trees",
                              "--out", tmp_path / "m.json")
    one_line_error(status, err, "'0,126' is a number written with a comma", "--categorical a")
    assert not (tmp_path / "m.json").exists()


def test_categorical_auto_still_splits_text_and_named_columns(tmp_path):
    """Text stays a category under ``auto``; a column of comma numbers named explicitly is split as asked."""
    data = european_csv(tmp_path / "euro.csv")
    read = load_data(data, categorical=["id", "a", "b"])
    assert sorted(read.categories) == ["a", "b", "id"]
    codes = tmp_path / "codes.csv"
    codes.write_text("code,x,label\n" + "".join(f"{c},{i},{i % 2}\n" for i, c in enumerate(["A1", '"1,2,x"', "B"] * 4)))
    assert list(load_data(codes, categorical="auto").categories) == ["code"]


def test_lists_of_ids_in_quoted_fields_are_text_not_comma_numbers(tmp_path):
    """``"1,2,3"`` (ids in a quoted field) is no number in any convention: ``auto`` refused it as a decimal comma,
    and the error without --categorical told to convert it instead of offering --categorical."""
    tags = tmp_path / "tags.csv"
    values = ['"1,2,3"', '"4,5,6"', '"7"', '"10,200,3000"']
    tags.write_text("x,tags,label\n" + "".join(f"{i},{values[i % 4]},{i % 2}\n" for i in range(16)))
    read = load_data(tags, categorical="auto")
    assert sorted(read.categories["tags"]) == ["1,2,3", "10,200,3000", "4,5,6", "7"]
    with pytest.raises(TextColumnsError) as caught:
        load_data(tags)
    assert caught.value.comma_columns == []
    status, _, err = run_main("fit", tags, "--out", tmp_path / "m.json")
    one_line_error(status, err, "text in 1 column: tags", "--categorical auto")
    assert "written with a comma" not in err


def test_a_comma_number_after_plain_ones_is_the_one_named(tmp_path):
    """``auto``'s refusal named the column's first value, ``'7'`` at line 2, as "a number written with a comma";
    the value and line to name are the first that has the comma (line 3); one column "holds", not "hold"."""
    mixed = tmp_path / "mixed.csv"
    mixed.write_text('x,v,label\n1,7,1\n2,"0,5",0\n3,"1,5",1\n4,8,0\n')
    with pytest.raises(DataError, match=r"mixed\.csv, line 3, column 'v': '0,5' is a number written with a comma"):
        load_data(mixed, categorical="auto")
    status, _, err = run_main("fit", mixed, "--out", tmp_path / "m.json")
    one_line_error(status, err, "line 3, column 'v'", "the column v holds numbers written with a comma")


def test_tab_header_with_commas_in_quoted_names(tmp_path):
    """A TSV header whose quoted names hold commas is read by its tabs, not split at the commas inside names."""
    data = tmp_path / "prices.tsv"
    data.write_text('id\t"price, EUR, net"\t"size, cm"\tlabel\n'
                    + "".join(f"r{i}\t{i + 0.5}\t{i % 3}\t{i % 2}\n" for i in range(8)))
    read = load_data(data, drop=["id"])
    assert read.feature_names == ["price, EUR, net", "size, cm"]
    np.testing.assert_array_equal(read.X, [[i + 0.5, i % 3] for i in range(8)])


@pytest.mark.parametrize("kind, tool", [("bz2", "bzcat"), ("xz", "xzcat"), ("zip", "unzip -p")])
def test_other_compressions_are_named(tmp_path, kind, tool):
    """bzip2, xz and zip data are said to be compressed, with the way to read them, not 'a binary file'."""
    import bz2
    import lzma
    import zipfile

    text = "a,b,label\n" + "".join(f"{i},{i % 3},{i % 2}\n" for i in range(10))
    data = tmp_path / f"rows.csv.{kind}"
    if kind == "zip":
        with zipfile.ZipFile(data, "w") as archive:
            archive.writestr("rows.csv", text)
    else:
        data.write_bytes({"bz2": bz2, "xz": lzma}[kind].compress(text.encode()))
    name = {"bz2": "bzip2"}.get(kind, kind)
    for options in ((), ("--format", "csv"), ("--format", "libsvm")):
        status, _, err = run_main("fit", data, *options, "--out", tmp_path / "m.json")
        one_line_error(status, err, f"rows.csv.{kind}: {name}-compressed data", f"({tool} FILE | rankcore")
    status, _, err = run_main("fit", "-", "--out", tmp_path / "m.json", stdin=data.read_bytes())
    one_line_error(status, err, f"standard input: {name}-compressed data", tool)


def test_a_repeated_header_is_named_not_read_as_a_row(tmp_path):
    """Two exports joined with ``cat``: the second header is no data row (text in every column, a third label)."""
    part = "id,a,b,label\n" + "".join(f"r{i},{i / 4},{i % 3},{i % 2}\n" for i in range(8))
    data = tmp_path / "joined.csv"
    data.write_text(part + part)
    with pytest.raises(DataError, match=r"joined\.csv, line 10: the header line \(line 1\) again"):
        load_data(data, drop=["id"], categorical="auto")
    first, model = tmp_path / "first.csv", tmp_path / "m.json"
    first.write_text(part)
    assert run_main("fit", first, "--drop", "id", "--n-iter", "3", "--out", model, "--progress", "none")[0] == 0
    status, _, err = run_main("score", model, data, "--id", "id")
    one_line_error(status, err, "joined.csv, line 10: the header line (line 1) again", "tail -n +2")
    data.write_text("\ufeff" + part + "\ufeff" + part, encoding="utf-8")      # each file with its byte-order mark
    for categorical in ("auto", None):
        with pytest.raises(DataError, match=r"line 10: the header line \(line 1\) again"):
            load_data(data, drop=["id"], categorical=categorical)


def test_a_comment_line_is_not_taken_for_the_header(tmp_path):
    """An export's banner (``# exported by ...``) before the header is named; a header ``#id,...`` is still one."""
    rows = "".join(f"r{i},{i / 4},{i % 2}\n" for i in range(8))
    banner = tmp_path / "banner.csv"
    banner.write_text("# exported by etl, 2024\n" + "id,a,label\n" + rows)
    with pytest.raises(DataError, match=r"banner\.csv, line 1: a comment line \('# exported by etl', 2 fields; "
                                        r"the next line 3\)"):
        load_data(banner, drop=["id"])
    status, _, err = run_main("fit", "-", "--drop", "id", "--out", tmp_path / "m.json", stdin=banner.read_bytes())
    one_line_error(status, err, "standard input, line 1: a comment line", "grep -v '^#'")
    hashed = tmp_path / "hashed.csv"
    hashed.write_text("#id,a,label\n" + rows)
    assert load_data(hashed, drop=["#id"]).feature_names == ["a"]


def test_a_trailing_delimiter_is_named(tmp_path):
    """A spreadsheet's trailing delimiter leaves an empty last name: the error says where it comes from."""
    data = tmp_path / "trailing.csv"
    data.write_text("a;b;label;\n" + "".join(f"{i};{i % 3};{i % 2};\n" for i in range(6)))
    with pytest.raises(DataError, match=r"line 1: the header has an empty column name \(column 4\); a delimiter at "
                                        r"the end of the line\?"):
        load_data(data)


def labelled_csv(path, labels, n=80, seed=3):
    """Rows of two features whose first class is ``labels[0]`` and second ``labels[1]`` (the second ranks first)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)).round(3)
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    path.write_text("a,b,label\n" + "".join(f"{a},{b},{labels[k]}\n" for (a, b), k in zip(X, y)))
    return path


@pytest.mark.parametrize("command", ["fit", "auto"])
@pytest.mark.parametrize("coding", [(1, 2), ("No", "Yes")])
def test_validation_labels_coded_otherwise_are_refused(tmp_path, command, coding):
    """A --validation file coding the classes {1, 2} (or Yes/No) beside training {0, 1} (yes/no) was scored by the
    training file's relevant label: {1, 2} as the inverse ranking (auc 1 - auc), Yes/No as no relevant row."""
    training = labelled_csv(tmp_path / "train.csv", (0, 1) if coding == (1, 2) else ("no", "yes"))
    validation = labelled_csv(tmp_path / "valid.csv", coding, seed=4)
    options = ("--n-iter", "5") if command == "fit" else ("--candidates", "linear")
    status, _, err = run_main(command, training, "--validation", validation, *options, "--out", tmp_path / "m.json",
                              "--progress", "none")
    unseen = "2" if coding == (1, 2) else "'No'"
    one_line_error(status, err, f"--validation {validation}: the label {unseen} never occurs in the training data",
                   "--positive LABEL")
    assert not (tmp_path / "m.json").exists()
    agreed = labelled_csv(tmp_path / "agreed.csv", (0, 1) if coding == (1, 2) else ("no", "yes"), seed=4)
    assert run_main(command, training, "--validation", agreed, *options, "--out", tmp_path / "m.json",
                    "--progress", "none")[0] == 0


def test_a_byte_that_is_not_utf8_is_found_in_the_whole_file(tmp_path):
    """The offset was the one within the reader's block (7,823 for a byte at 138,895), and no line was named."""
    lines = ["a,b,label"] + [f"{i},{i % 3},{i % 2}" for i in range(20000)]
    lines[15000] = "1,caf\xe9,1"                           # Latin-1, as a spreadsheet saves CSV
    data = tmp_path / "latin.csv"
    raw = ("\n".join(lines) + "\n").encode("latin-1")
    data.write_bytes(raw)
    offset = raw.index(b"\xe9")
    with pytest.raises(DataError, match=rf"latin\.csv, line 15001: not UTF-8 text \(invalid continuation byte: "
                                        rf"byte b'\\xe9' at offset {offset:,}\); a Latin-1 or Windows-1252 file"):
        load_data(data)


def test_utf16_and_workbooks_are_named(tmp_path):
    """Excel's 'Unicode Text' (UTF-16) and a workbook are named as what they are, not as a binary file."""
    import zipfile

    text = "a\tb\tlabel\n" + "".join(f"{i}\t{i % 3}\t{i % 2}\n" for i in range(6))
    utf16 = tmp_path / "sheet.txt"
    utf16.write_bytes(text.encode("utf-16"))
    with pytest.raises(DataError, match=r"sheet\.txt: UTF-16 text .*iconv -f UTF-16 -t UTF-8"):
        load_data(utf16)
    book = tmp_path / "sheet.xlsx"
    with zipfile.ZipFile(book, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/workbook.xml", "<workbook/>")
    for options, stdin in (((book,), None), (("-",), book.read_bytes())):
        status, _, err = run_main("fit", *options, "--out", tmp_path / "m.json", stdin=stdin)
        one_line_error(status, err, "a spreadsheet workbook (.xlsx, .xls, .ods), not a data file")


def test_an_identifier_column_left_in_the_training_file_is_named(tmp_path):
    # a row or customer id left in the file was fitted as a feature without a word (the trees split on it)
    rng = np.random.default_rng(0)
    path = tmp_path / "loans.csv"
    lines = ["loan_id,Customer ID,amount,idea,label"]
    lines += [f"{1000 + 7 * i},{int(rng.integers(0, 10**9))},{rng.normal():.4f},{i},{int(rng.random() < 0.3)}"
              for i in range(60)]
    path.write_text("\n".join(lines) + "\n")
    status, _, err = run_main("fit", path, "--n-iter", "2", "-o", tmp_path / "m.json")
    assert status == 0, err
    said = [line for line in err.splitlines() if "row identifier" in line]
    assert len(said) == 2 and "'loan_id'" in said[0] and "--drop loan_id" in said[0], err
    assert "--drop 'Customer ID'" in said[1] and "'idea'" not in err      # named like no identifier
    status, _, err = run_main("fit", path, "--drop", "loan_id,Customer ID", "--n-iter", "2", "-o", tmp_path / "n.json")
    assert status == 0 and "row identifier" not in err, err
    status, _, err = run_main("compare", path, "--model", "push", "--n-iter", "2", "--out-dir", tmp_path / "f")
    assert status == 0 and err.count("row identifier") == 2, err


def test_evaluating_a_model_fitted_with_an_identifier_column_does_not_advise_dropping_it(tmp_path):
    # the model needs the column it was fitted with: `evaluate --drop id` is refused, so the advice was wrong there
    rng = np.random.default_rng(1)
    path = tmp_path / "rows.csv"
    path.write_text("id,amount,label\n" + "".join(f"{i},{rng.normal():.4f},{int(rng.random() < 0.4)}\n"
                                                  for i in range(40)))
    status, _, err = run_main("fit", path, "--n-iter", "2", "-o", tmp_path / "m.json")
    assert status == 0 and err.count("row identifier") == 1, err
    for command in (("evaluate", tmp_path / "m.json", path, "--metrics", "auc"), ("score", tmp_path / "m.json", path)):
        status, _, err = run_main(*command)
        assert status == 0 and "row identifier" not in err, (command[0], err)
