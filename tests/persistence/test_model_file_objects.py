"""Loading a model from a file object or from its content, and saving one to a file object.

(Before: ``load_model(io.BytesIO(...))`` failed with Python's "expected str, bytes or os.PathLike object", bytes
were read as a file name ("File name too long"), and ``save_model`` took paths only.)
"""

import io

import numpy as np
import pytest

import rankcore
from rankcore.persistence import ModelFormatError, load_model, model_from_text, model_text, save_model

_RNG = np.random.default_rng(5)
_X = _RNG.normal(size=(60, 3))
_Y = (_X[:, 0] > 0).astype(int)


@pytest.fixture(scope="module")
def model():
    return rankcore.boost(learner="trees", n_iter=4, random_state=0).fit(_X, _Y)


def _same(loaded, model):
    assert type(loaded) is type(model)
    assert np.array_equal(loaded.decision_function(_X), model.decision_function(_X))


def test_binary_and_text_file_objects_round_trip(model):
    binary = io.BytesIO()
    save_model(model, binary)
    assert binary.getvalue() == model_text(model).encode("utf-8")
    binary.seek(0)
    _same(load_model(binary), model)
    text = io.StringIO()
    save_model(model, text)
    assert text.getvalue() == model_text(model)
    text.seek(0)
    _same(rankcore.load_model(text), model)


def test_open_files_round_trip(model, tmp_path):
    with open(tmp_path / "m.json", "wb") as fh:
        save_model(model, fh)
    with open(tmp_path / "m.json", "rb") as fh:
        _same(load_model(fh), model)
    with open(tmp_path / "m.json", encoding="utf-8") as fh:
        _same(load_model(fh), model)


def test_content_as_bytes_and_text(model):
    text = model_text(model)
    for data in (text, text.encode(), bytearray(text.encode()), memoryview(text.encode())):
        _same(model_from_text(data), model)


def test_bytes_are_not_a_path(model):
    with pytest.raises(TypeError, match=r"path: expected a file name .* got bytes .*model_from_text"):
        load_model(model_text(model).encode())


@pytest.mark.parametrize("bad", [3, None, 2.5, ["m.json"]])
def test_wrong_types_refused(bad):
    with pytest.raises(TypeError, match="path: expected a file name"):
        load_model(bad)
    with pytest.raises(TypeError, match="data: expected a model's content as str or bytes"):
        model_from_text(bad)


def test_save_refuses_what_cannot_be_written(model):
    with pytest.raises(TypeError, match="path: expected a file name .* or a file object with write"):
        save_model(model, b"m.json")
    with pytest.raises(TypeError, match="path: expected a file name"):
        save_model(model, 7)


def test_checksum_and_size_checked_for_file_objects_and_content(model, monkeypatch):
    text = model_text(model)
    edited = text.replace('"n_iter":4', '"n_iter":5')
    assert edited != text
    with pytest.raises(ModelFormatError, match="checksum"):
        load_model(io.BytesIO(edited.encode()))
    with pytest.raises(ModelFormatError, match="^model text: .*checksum"):
        model_from_text(edited)
    with pytest.raises(ModelFormatError, match="not a valid JSON"):
        model_from_text(text[:-30])
    monkeypatch.setattr(rankcore.persistence, "MAX_MODEL_BYTES", 100)
    with pytest.raises(ModelFormatError, match="larger than the model file size limit"):
        load_model(io.StringIO(text))
    with pytest.raises(ModelFormatError, match="larger than the model file size limit"):
        model_from_text(text)


def test_file_object_named_in_errors(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{}")
    with open(path, "rb") as fh, pytest.raises(ModelFormatError, match="bad.json"):
        load_model(fh)
    with pytest.raises(ModelFormatError, match="^<file object>: "):
        load_model(io.BytesIO(b"[1"))


def test_read_returning_other_types_refused():
    class Odd:
        def read(self, size=-1):
            return 42

    with pytest.raises(TypeError, match="read\\(\\) returned int"):
        load_model(Odd())


def test_save_model_writes_text_to_a_text_file_object_that_is_no_textiobase(model):
    # a spooled temporary file in text mode and a codecs writer take str only (before: TypeError from write())
    import codecs
    import tempfile

    with tempfile.SpooledTemporaryFile(mode="w+") as spooled:
        save_model(model, spooled)
        spooled.seek(0)
        assert spooled.read() == model_text(model)
    binary = io.BytesIO()
    save_model(model, codecs.getwriter("utf-8")(binary))
    assert binary.getvalue() == model_text(model).encode("utf-8")


def test_a_read_returning_none_is_refused_not_taken_for_the_end(model):
    # a non-blocking stream with nothing ready returns None: before, read as an empty (truncated) model file
    class NotReady:
        def read(self, size=-1):
            return None

    with pytest.raises(ValueError, match=r"read\(\) returned None.*blocking file object"):
        load_model(NotReady())


def test_bytes_path_refusal_points_to_fsdecode(tmp_path, model):
    # a file name held as bytes was a path before this release: the refusal says how to pass one now
    path = tmp_path / "m.json"
    save_model(model, path)
    with pytest.raises(TypeError, match=r"^path: .*model_from_text\(data\); for a file name held as bytes, "
                                        r"pass os\.fsdecode\(path\)"):
        load_model(bytes(path))
    _same(load_model(__import__("os").fsdecode(bytes(path))), model)
