"""Loading a small model file claims memory of the file's order, not the size limit's."""

import tracemalloc

import numpy as np
import pytest

import rankcore
from rankcore import persistence


def _small_model_file(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    path = tmp_path / "small.json"
    rankcore.save_model(rankcore.RankBoost(n_iter=5).fit(X, (X[:, 0] > 0).astype(int)), path)
    return path


def test_loading_a_small_file_does_not_reserve_the_size_limit(tmp_path):
    # fh.read(MAX_MODEL_BYTES + 1) reserved 256 MiB for every load: a service under a memory cap could not load a
    # 20 KB model, and two threads loading at once claimed 512 MiB
    path = _small_model_file(tmp_path)
    rankcore.load_model(path)                  # imports and caches outside the measured load
    tracemalloc.start()
    try:
        model = rankcore.load_model(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert model.n_features_in_ == 3
    assert peak < 16 << 20, peak


def test_a_file_over_one_block_is_read_whole(tmp_path, monkeypatch):
    # the bounded read goes on past its first block (1 MiB) up to the limit, and refuses past it
    path = _small_model_file(tmp_path)
    text = path.read_bytes()
    padded = tmp_path / "padded.json"
    padded.write_bytes(text.rstrip() + b" " * ((1 << 20) + 5) + b"\n")
    size = padded.stat().st_size
    monkeypatch.setattr(persistence, "MAX_MODEL_BYTES", size)
    assert rankcore.load_model(padded).n_features_in_ == 3
    monkeypatch.setattr(persistence, "MAX_MODEL_BYTES", size - 1)
    with pytest.raises(persistence.ModelFormatError, match="size limit"):
        rankcore.load_model(padded)


def test_a_file_over_the_limit_is_refused_by_its_size_without_being_read(tmp_path, monkeypatch):
    # the blocks read up to the limit and then joined held twice the limit (512 MiB) to refuse a file a byte over
    # it; a regular file says its size before a byte is read
    path = _small_model_file(tmp_path)
    padded = tmp_path / "large.json"
    padded.write_bytes(path.read_bytes().rstrip() + b" " * (8 << 20) + b"\n")
    monkeypatch.setattr(persistence, "MAX_MODEL_BYTES", padded.stat().st_size - 1)
    tracemalloc.start()
    try:
        with pytest.raises(persistence.ModelFormatError, match="size limit"):
            rankcore.load_model(padded)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, peak


def test_a_stream_over_the_limit_is_refused_holding_the_limit_once(monkeypatch):
    # /dev/zero has no size: it is read up to the limit, kept in one buffer (not blocks and their join)
    monkeypatch.setattr(persistence, "MAX_MODEL_BYTES", 6 << 20)
    with pytest.raises(persistence.ModelFormatError):
        rankcore.load_model(__file__)              # imports and caches outside the measured load
    tracemalloc.start()
    try:
        with pytest.raises(persistence.ModelFormatError, match="size limit"):
            rankcore.load_model("/dev/zero")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 9 << 20, peak
