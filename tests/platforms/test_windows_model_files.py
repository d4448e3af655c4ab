"""Model files as Windows editors leave them: CRLF line ends and a UTF-8 byte-order mark.

A model file is JSON; a user who opens it in Notepad to look at it and saves it gets CRLF (harmless JSON
whitespace) and, with "UTF-8 with BOM", a byte-order mark, which JSON parsers may ignore.  The checksum
covers the canonical JSON of the content, so neither is an edit of the model.
"""

import numpy as np
import pytest

from rankcore import PushBoost
from rankcore.persistence import ModelFormatError, load_model, save_model


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] + rng.normal(size=80) > 0).astype(int)
    return PushBoost(n_iter=5, learner="stumps").fit(X, y), X


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"], ids=["crlf", "crlf-bom"])
def test_model_saved_by_a_windows_editor_loads(fitted, tmp_path, bom):
    model, X = fitted
    path = tmp_path / "model.json"
    save_model(model, path)
    path.write_bytes(bom + path.read_bytes().replace(b"\n", b"\r\n"))
    np.testing.assert_array_equal(load_model(path).decision_function(X), model.decision_function(X))


def test_a_byte_order_mark_inside_is_still_refused(fitted, tmp_path):
    model, _ = fitted
    path = tmp_path / "model.json"
    save_model(model, path)
    raw = path.read_bytes()
    path.write_bytes(raw[:1] + b"\xef\xbb\xbf" + raw[1:])   # only a leading mark is an editor's
    with pytest.raises(ModelFormatError, match="not a valid JSON model file"):
        load_model(path)


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-32"])
def test_a_utf16_model_file_is_refused_saying_so(fitted, tmp_path, codec):
    # Notepad's "Unicode" is UTF-16: the refusal names the encoding and what to do, not a UTF-8 decoding error
    model, _ = fitted
    path = tmp_path / "model.json"
    save_model(model, path)
    path.write_bytes(path.read_text(encoding="utf-8").encode(codec))
    with pytest.raises(ModelFormatError, match=f"not a valid JSON model file .its text is {codec[:6].upper()}, "
                                               "not UTF-8: open it and save it again as UTF-8"):
        load_model(path)
