"""What files exported by other systems bring that the readers must name rather than misread.

Numbers written with a comma (a European spreadsheet's ``0,126``),
compressions other than gzip, a header line repeated by files joined with
``cat``, quoted header names that hold a delimiter.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ._dataset import DataError, Dataset

#: A number as spreadsheets write it: plain (``7``, ``0.5``, ``1.234.567``), with a decimal comma (``0,5``,
#: ``-1.234,5``) or with thousands separators (``1,234``, ``1,234,567.5``).  One decimal comma at most, and
#: thousands groups of three digits: a list such as ``1,2,3`` (ids in a quoted field) is text, not a number.
_COMMA_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d+)?|\.\d+|\d{1,3}(?:\.\d{3})+"    # plain
                           r"|\d{1,3}(?:\.\d{3})+,\d+|\d+,\d+|,\d+"               # a decimal comma
                           r"|\d{1,3}(?:,\d{3})+(?:\.\d+)?)")                      # thousands separators

#: What to do about numbers written with a comma, said by the errors that meet them.
COMMA_ADVICE = ("rankcore reads numbers written 1234.5 (a decimal point, no thousands separator): convert the file "
                "first, e.g. pandas.read_csv(PATH, sep=';', decimal=',') or thousands=',', then to_csv")


def comma_number(text: Any) -> bool:
    """Whether ``text`` is a number written with a comma (``0,126``, ``1.234,5``, ``1,234``): not text to split by
    category, but a number this reader would misread."""
    stripped = str(text).strip()
    return "," in stripped and _COMMA_NUMBER.fullmatch(stripped) is not None


def sniff_delimiter(header: str) -> str:
    """The delimiter of a header line: the most frequent of comma, tab and semicolon outside quoted names (a TSV
    header's ``"price, EUR, net"`` holds commas that separate nothing)."""
    unquoted = re.sub(r'"[^"]*"', "", header)
    counts = {d: unquoted.count(d) for d in (",", "\t", ";")}
    best = max(counts, key=counts.get)
    return best if counts[best] else ","


def refuse_comma_categories(data: Dataset, categorical: Any) -> None:
    """Refuse a column taken as text by ``categorical="auto"`` whose values are numbers written with a comma, all of
    them or all but a stray few (``n/a``, ``oops``: a word among the numbers does not make them names).

    ``0,126`` (a decimal comma, as a European spreadsheet exports) is not
    text: split by category, each such number would be a name of its own
    and the order of the values lost, without a word.  A column named
    explicitly is read by category as asked.  The refusal names the stray
    words and their lines.
    """
    if not (isinstance(categorical, str) and categorical == "auto"):
        return
    for name, categories in data.categories.items():
        column = data.X[:, data.feature_names.index(name)]
        words = _words_among_numbers(categories, column)
        if words is None:
            continue
        with_comma = np.flatnonzero([comma_number(c) for c in categories])
        if not with_comma.size:
            continue
        # the first row of a number written with a comma (the column's first value may be a plain one, 7)
        row = int(np.flatnonzero(np.isin(column, with_comma))[0])
        value = categories[int(column[row])]
        stray = f"; its other values are numbers but {_word_places(data, column, words, categories)}" if words.size \
            else ""
        raise DataError(f"{data.where(row)}, column {name!r}: {value!r} is a number written with a comma (a decimal "
                        f"comma or a thousands separator), not a category{stray}; {COMMA_ADVICE} (or name the column "
                        f"with --categorical {name} to split it by category all the same)")


def _words_among_numbers(categories: np.ndarray, column: np.ndarray) -> np.ndarray | None:
    """The category codes of a column's values that are no numbers (as spreadsheets write them), when they are
    stray: in at most one row in twenty of the column's values (two rows in a short column), or at most one
    distinct value in a hundred (a missing-value word, ``k.A.``, in many rows), and in no more than a third as
    many rows as the numbers; None when they are more (a column of text), or when there are no numbers.

    Judged on rows, and on distinct values: two typos among 150 distinct numbers are as stray as among 15,000, and
    one word for a missing value is stray in any number of rows the numbers outnumber three to one.
    ``column``: the column's category codes by row (NaN where missing).  A column of text (ids, names) stops at
    its first few values that are no numbers: a handful of regex matches, not one per value.
    """
    counts = np.bincount(column[~np.isnan(column)].astype(np.int64), minlength=categories.size)
    allowed = max(2, int(counts.sum()) // 20)
    words: list[int] = []
    for code, category in enumerate(categories):
        if _COMMA_NUMBER.fullmatch(str(category).strip()) is None:
            words.append(code)
            # each word holds a row at least; words outnumbering the numbers met so far: a column of text
            if len(words) > allowed or (len(words) > 16 and 2 * len(words) > code + 1):
                return None
    word_rows = int(counts[words].sum())
    few_words = len(words) <= max(1, categories.size // 100)      # never past ``allowed``, the loop's limit
    if (word_rows > allowed and not few_words) or 3 * word_rows > int(counts.sum()) - word_rows:
        return None
    return np.asarray(words, dtype=np.int64)


def _word_places(data: Dataset, column: np.ndarray, words: np.ndarray, categories: np.ndarray, shown: int = 4,
                 per_word: int = 3) -> str:
    """``"'oops' at line 19 and 'n.a.' at lines 213, 250 and 2 more (missing values or typos?)"``: the stray words
    of a column of numbers (the first ``shown``, in file order) and their lines (the first ``per_word`` each)."""
    rows = {int(code): np.flatnonzero(column == code) for code in words}
    order = sorted(rows, key=lambda code: rows[code][0])
    unit = "line" if data.row_lines is not None else "row"
    places = []
    for code in order[:shown]:
        found = rows[code]
        where = [str(int(data.row_lines[r]) if data.row_lines is not None else r) for r in found[:per_word]]
        more = f" and {found.size - per_word} more" if found.size > per_word else ""
        places.append(f"{categories[code]!r} at {unit}{'s' if found.size > 1 else ''} {', '.join(where)}{more}")
    if len(order) > shown:
        places.append(f"{len(order) - shown} other word{'s' if len(order) - shown > 1 else ''}")
    listed = places[0] if len(places) == 1 else ", ".join(places[:-1]) + " and " + places[-1]
    return f"{listed} ({'a missing value or a typo' if len(order) == 1 else 'missing values or typos'}?)"


def refuse_odd_header(source: str, header_lineno: int, names: list[str], delimiter: str) -> None:
    """Refuse a header with an empty column name, and a comment line read as the header.

    A ``#`` line whose field count is not that of the line after it is a
    comment (an export's banner), not the names: read as the header, every
    column would be misnamed.  A header whose first name merely starts with
    ``#`` (``#id,a,label``) is kept.
    """
    fields = _next_line_fields(source, header_lineno, delimiter) if names[0].startswith("#") else None
    if fields is not None and fields != len(names):
        raise DataError(f"{source}, line {header_lineno}: a comment line ({names[0][:40]!r}, {len(names)} fields; "
                        f"the next line {fields}) where the header line of column names is expected (the first line "
                        "that is not blank); remove the comment lines first (grep -v '^#' FILE | rankcore COMMAND "
                        "... -)")
    if any(not n for n in names):
        trailing = not names[-1]
        raise DataError(f"{source}, line {header_lineno}: the header has an empty column name "
                        f"(column {(len(names) if trailing else names.index('') + 1)})"
                        + ("; a delimiter at the end of the line? remove it, on every line" if trailing else ""))


def _next_line_fields(source: str, header_lineno: int, delimiter: str) -> int | None:
    """How many fields the first non-blank line after line ``header_lineno`` has, or None if there is none."""
    import csv

    from ._dataset import _open_text

    with _open_text(source) as fh:
        for _ in range(header_lineno):
            next(fh, None)
        for row in csv.reader(fh, delimiter=delimiter):
            if row and not (len(row) == 1 and not row[0].strip()):
                return len(row)
    return None


def refuse_repeated_header(row: list[str], names: list[str], source: str, lineno: int, header_lineno: int) -> None:
    """Refuse a data row that is the header again: files joined with ``cat``, each with its header.

    Read as data, its names would be text in every column (categories under
    ``--categorical auto``) and a label of their own.
    """
    # the second file's byte-order mark, if it has one, is within the row
    if row[0].strip().lstrip("\ufeff") == names[0] and [value.strip() for value in row[1:]] == names[1:]:
        raise DataError(f"{source}, line {lineno}: the header line (line {header_lineno}) again, as a data row; "
                        "were files joined with their headers? keep the first header only "
                        "(e.g. tail -n +2 on every file but the first)")


#: Compressed data that rankcore does not decompress (it reads gzip): its magic bytes, its name, the tool that
#: writes it out decompressed.
_OTHER_COMPRESSIONS = ((b"BZh", "bzip2", "bzcat"), (b"\xfd7zXZ\x00", "xz", "xzcat"),
                       (b"\x28\xb5\x2f\xfd", "zstd", "zstdcat"), (b"PK\x03\x04", "zip", "unzip -p"))


def other_compression(source: str) -> str | None:
    """What to say of a file compressed otherwise than with gzip (bzip2, xz, zstd, zip), or of UTF-16 text, or None.

    Such bytes are no UTF-8 text: the readers would call them a binary file,
    when all that is missing is the decompression.
    """
    try:
        with open(source, "rb") as fh:
            head = fh.read(6)
    except OSError:
        return None
    if head.startswith(b"\xd0\xcf\x11\xe0") or (head.startswith(b"PK\x03\x04") and _is_workbook(source)):
        return (f"{source}: a spreadsheet workbook (.xlsx, .xls, .ods), not a data file; save the sheet as CSV "
                "(UTF-8) and read that")
    for magic, name, tool in _OTHER_COMPRESSIONS:
        if head.startswith(magic):
            return (f"{source}: {name}-compressed data, which rankcore does not decompress (it reads gzip, .gz, "
                    f"and plain text): decompress it first ({tool} FILE | rankcore COMMAND ... -) or gzip it")
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        # Excel's "Unicode Text" export: tab-separated UTF-16 with a byte-order mark
        return (f"{source}: UTF-16 text (as Excel's 'Unicode Text' export writes it); rankcore reads UTF-8: convert "
                "it first (iconv -f UTF-16 -t UTF-8 FILE | rankcore COMMAND ... -)")
    return None


def _is_workbook(source: str) -> bool:
    """Whether a zip archive is an Office Open XML or OpenDocument file (a workbook), not a zipped data file."""
    import zipfile

    try:
        with zipfile.ZipFile(source) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError):
        return False
    return "[Content_Types].xml" in names or "mimetype" in names


def not_text_error(source: str, exc: UnicodeDecodeError) -> DataError:
    """The error for a text file that is not UTF-8: compressed data or UTF-16 named as such, else where the first
    byte that is not UTF-8 is, in the whole file.

    ``exc`` comes from a text reader that decodes a block at a time: its
    offset is within that block, so the file is read again to find the
    byte's own offset and line (once, on the way out; memory one block).
    """
    said = other_compression(source)
    if said is not None:
        return DataError(said)
    found = _first_bad_byte(source)
    if found is None:
        return DataError(f"{source}: not UTF-8 text ({exc.reason}); is it a binary file?")
    offset, line, reason, byte = found
    return DataError(f"{source}, line {line}: not UTF-8 text ({reason}: byte {byte!r} at offset {offset:,}); a "
                     "Latin-1 or Windows-1252 file, as spreadsheets save CSV? convert it first (iconv -f CP1252 -t "
                     "UTF-8 FILE | rankcore COMMAND ... -); or is it a binary file?")


def _first_bad_byte(source: str, block_size: int = 1 << 20) -> tuple[int, int, str, bytes] | None:
    """``(offset, line, reason, byte)`` of the first byte of ``source`` (its content, if gzipped) that is not
    UTF-8, or None if there is none."""
    import codecs
    import gzip

    with open(source, "rb") as probe:
        gzipped = probe.read(2) == b"\x1f\x8b"
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    offset = lines = 0
    with (gzip.open(source, "rb") if gzipped else open(source, "rb")) as fh:
        while True:
            block = fh.read(block_size)
            pending = decoder.getstate()[0]     # the bytes of a character cut at the end of the last block
            try:
                decoder.decode(block, final=not block)
            except UnicodeDecodeError as bad:
                data = pending + block
                at = offset - len(pending) + bad.start
                return at, lines + data[:bad.start].count(b"\n") + 1, bad.reason, data[bad.start:bad.start + 1]
            if not block:
                return None
            offset += len(block)
            lines += block.count(b"\n")
