"""Test-only helper: an AutoRanker candidate class registered as a plugin's while a block runs."""

from __future__ import annotations

import contextlib

import rankcore
from rankcore.registry import register_plugin, unregister_plugin


@contextlib.contextmanager
def registered_candidate(candidate_class, name):
    """``candidate_class`` registered through the hook ``rankcore_register_auto_candidates`` while the block runs."""

    class Plugin:
        @rankcore.hookimpl
        def rankcore_register_auto_candidates(self):
            return [candidate_class]

    register_plugin(Plugin(), name=name)
    try:
        yield
    finally:
        unregister_plugin(name)
