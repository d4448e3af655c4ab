"""The 'squared-auc' objective passes rankcore's contract checks, is found through its entry point
and is used by name."""

import pytest

from rankcore.testing import plugin_checks

from rankcore_squared_auc.objective import SquaredAuc


@pytest.mark.parametrize("check", plugin_checks(SquaredAuc), ids=str)
def test_plugin(check):
    check()
