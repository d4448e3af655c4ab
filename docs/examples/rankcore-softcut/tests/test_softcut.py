"""The 'softcut' filter passes rankcore's contract checks, is found through its entry point
and is used by name."""

import pytest

from rankcore.testing import plugin_checks

from rankcore_softcut.filter import Softcut


@pytest.mark.parametrize("check", plugin_checks(Softcut), ids=str)
def test_plugin(check):
    check()
