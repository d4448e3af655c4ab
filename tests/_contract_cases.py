"""Test-only helper: a test that each contract check of rankcore.testing fails on a component built to break it."""

from __future__ import annotations

import numpy as np
import pytest


def contract_checks_catch(cases):
    """A parametrized test: for each ``(broken_class, check)`` in ``cases``, ``check`` raises AssertionError.

    Assign it to a module-level ``test_*`` name so that pytest collects it.
    """

    @pytest.mark.parametrize("broken, check", cases, ids=lambda v: getattr(v, "__name__", str(v)))
    def test(broken, check):
        with pytest.raises(AssertionError):
            check(broken(), np.random.default_rng(0))

    return test
