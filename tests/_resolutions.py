"""A fixture counting every registry resolution while a test runs (import it into a test module)."""

from __future__ import annotations

import collections

import pytest

from rankcore.registry import Registry


@pytest.fixture
def resolutions(monkeypatch):
    """A Counter of (family, spec) resolved through the registry while the test runs."""
    counts = collections.Counter()
    original = Registry.resolve

    def counting(self, family, spec):
        counts[(family, spec if isinstance(spec, str) else getattr(spec, "spec", repr(spec)))] += 1
        return original(self, family, spec)

    monkeypatch.setattr(Registry, "resolve", counting)
    return counts
