"""The hook implementation rankcore loads through the entry point (``pyproject.toml``)."""

import rankcore

from .kernel import Cauchy


@rankcore.hookimpl
def rankcore_register_kernels():
    return [Cauchy]
