"""The 'comparisons' learner passes rankcore's contract checks, is found through its entry point
and is used by name."""

import pytest

from rankcore.testing import plugin_checks

from rankcore_comparisons.learner import Comparisons


@pytest.mark.parametrize("check", plugin_checks(Comparisons), ids=str)
def test_plugin(check):
    check()
