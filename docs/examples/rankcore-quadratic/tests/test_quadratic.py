"""The 'quadratic' price passes rankcore's contract checks, is found through its entry point
and is used by name."""

import pytest

from rankcore.testing import plugin_checks

from rankcore_quadratic.price import Quadratic


@pytest.mark.parametrize("check", plugin_checks(Quadratic), ids=str)
def test_plugin(check):
    check()
