"""Test-only helper: an AutoRanker candidate class registered as a plugin's while a block runs."""

from __future__ import annotations

from _plugin_registration import components_registered


def registered_candidate(candidate_class, name):
    """``candidate_class`` registered through the hook ``rankcore_register_auto_candidates`` while the block runs."""
    return components_registered("rankcore_register_auto_candidates", [candidate_class], name)
