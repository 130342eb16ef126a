"""Keep the plugin's own modules out of pytest's assertion rewriting.

pytest rewrites every module of a distribution with a ``pytest11`` entry point: parsed,
rewritten and compiled again on every start where bytecode cannot be cached
(``PYTHONDONTWRITEBYTECODE=1``, read-only installs). The plugin has no assertions worth
rewriting, so :func:`keep_plugin_out_of_rewriting` takes the package off the hook's list as
soon as it is imported. It reads two private attributes of pytest's
``AssertionRewritingHook`` (the same from pytest 7.4 to 9.x); when they are not as expected
it does nothing, and the modules are merely rewritten as before.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import sys

PACKAGE = "pytest_probability"


def keep_plugin_out_of_rewriting() -> int:
    """Take :data:`PACKAGE` and its modules off every assertion-rewriting hook on
    ``sys.meta_path``; called when the package is first imported, in every process. Returns
    how many hooks were changed."""
    changed = 0
    for finder in sys.meta_path:
        if type(finder).__name__ != "AssertionRewritingHook":
            continue
        marked = getattr(finder, "_must_rewrite", None)
        cache = getattr(finder, "_marked_for_rewrite_cache", None)
        if not isinstance(marked, set) or not isinstance(cache, dict):
            continue
        ours = {name for name in marked if _ours(name)}  # also ``-p pytest_probability.plugin``
        if ours:
            marked.difference_update(ours)
            changed += 1
        for name in [name for name in cache if _ours(name)]:
            del cache[name]
    return changed


def _ours(name: str) -> bool:
    return name == PACKAGE or name.startswith(PACKAGE + ".")
