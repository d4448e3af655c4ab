"""Test-only helpers: a runtime plugin registered while a block runs, and unregistered after it."""

from __future__ import annotations

import contextlib

import rankcore
from rankcore.registry import register_plugin, unregister_plugin


@contextlib.contextmanager
def plugin_registered(plugin, name, distribution="local"):
    """``plugin`` (an object with ``@rankcore.hookimpl`` methods) registered as ``name`` while the block runs."""
    register_plugin(plugin, name=name, distribution=distribution)
    try:
        yield
    finally:
        unregister_plugin(name)


def components_registered(hook, components, name, distribution="local"):
    """``components`` returned by the plugin hook ``hook`` (``"rankcore_register_kernels"``, ...) while the block
    runs."""

    def register(self):
        return list(components)

    plugin = type("Plugin", (), {hook: rankcore.hookimpl(register)})()
    return plugin_registered(plugin, name, distribution)
