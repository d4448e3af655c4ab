"""save_model and load_model show how they are called; the atomic writes they use keep their public names."""
import rankcore
import rankcore.persistence as persistence


def test_save_model_and_load_model_have_examples():
    """Before: neither had an Examples section (tests/docs/test_docstring_examples.py runs them)."""
    for function in (rankcore.save_model, rankcore.load_model):
        assert "\n    Examples\n    --------\n    >>> " in function.__doc__, function.__name__


def test_the_atomic_writes_keep_their_persistence_names():
    from rankcore import _atomic_files

    for name in ("write_text_atomically", "atomic_output", "writes_in_place", "open_output"):
        assert name in persistence.__all__ and getattr(persistence, name) is getattr(_atomic_files, name)


def _model_text():
    import numpy as np

    X = np.arange(6.0)[:, None]
    return persistence.model_text(rankcore.boost(learner="stumps", n_iter=2).fit(X, np.array([0, 0, 0, 1, 1, 1])))


def test_two_byte_order_marks_are_named_in_rankcores_words(tmp_path):
    """Before: Python's "Unexpected UTF-8 BOM (decode using utf-8-sig)", which the read had done."""
    import pytest

    text = _model_text().encode("utf-8")
    path = tmp_path / "m.json"
    path.write_bytes(b"\xef\xbb\xbf" + text)
    assert rankcore.load_model(path).n_features_in_ == 1          # one mark is read past, as before
    path.write_bytes(b"\xef\xbb\xbf" * 2 + text)
    for load in (lambda: rankcore.load_model(path), lambda: persistence.model_from_text(path.read_bytes())):
        with pytest.raises(persistence.ModelFormatError) as info:
            load()
        message = str(info.value)
        assert "starts with 2 UTF-8 byte-order marks" in message and "delete the first 3 bytes" in message
        assert "utf-8-sig" not in message
