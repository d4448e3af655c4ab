"""The 'modified-huber' loss passes rankcore's contract checks, is found through its entry point
and is used by name."""

import pytest

from rankcore.testing import plugin_checks

from rankcore_modified_huber.loss import ModifiedHuber


@pytest.mark.parametrize("check", plugin_checks(ModifiedHuber), ids=str)
def test_plugin(check):
    check()
