"""The bundled extensions of pytest-probability, one subpackage each.

Each has ``hookspecs.py`` (its own hooks), ``plugin.py`` (its pytest hooks) and pure
modules for its math or I/O. The kernel registers them in the order of
:data:`pytest_probability.loader.BUNDLED` as ``probability.<name>``.

PYTEST_DONT_REWRITE
"""
