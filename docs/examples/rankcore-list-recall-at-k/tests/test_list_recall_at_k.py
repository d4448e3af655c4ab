"""The 'list-recall@k' metric passes rankcore's contract checks, is found through its entry point
and is used by name."""

import pytest

from rankcore.testing import plugin_checks

from rankcore_list_recall_at_k.metric import ListRecallAtK


@pytest.mark.parametrize("check", plugin_checks(ListRecallAtK), ids=str)
def test_plugin(check):
    check()
