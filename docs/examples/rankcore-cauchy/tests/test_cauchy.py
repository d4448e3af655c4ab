"""The 'cauchy' kernel passes rankcore's contract checks, is found through its entry point
and is used by name."""

import pytest

from rankcore.testing import plugin_checks

from rankcore_cauchy.kernel import Cauchy


@pytest.mark.parametrize("check", plugin_checks(Cauchy), ids=str)
def test_plugin(check):
    check()
