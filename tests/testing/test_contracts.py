"""Every registered component passes its family's contract checks (rankcore.testing)."""

import pytest

from rankcore.testing import registry_cases

CASES = list(registry_cases())


@pytest.mark.parametrize("check", CASES or [pytest.param(None, marks=pytest.mark.skip(reason="no checks yet"))],
                         ids=str)
def test_component_contract(check):
    check()


def test_every_family_with_components_has_checks():
    from rankcore.registry import FAMILIES, registry
    from rankcore.testing import _family_checks

    reg = registry()
    missing = [family for family in FAMILIES if reg.names(family) and not _family_checks(family)]
    assert not missing, f"families without contract checks in rankcore/testing: {missing}"
