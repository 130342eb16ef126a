"""Keep the plugin's own modules out of pytest's assertion rewriting.

pytest marks every module of a distribution with a ``pytest11`` entry point for assertion
rewriting, so each plugin module imported during a session goes through pytest's import
hook: read, parsed, rewritten and compiled again on every start where bytecode cannot be
cached (``PYTHONDONTWRITEBYTECODE=1``, read-only installs), and never loaded from the
interpreter's own ``__pycache__``. The plugin has no assertions worth rewriting (every
module says ``PYTEST_DONT_REWRITE``), so :func:`keep_plugin_out_of_rewriting` takes the
package off the hook's list as soon as the package is imported: its later modules load
through Python's own import system. Bench files, test files and conftest files are
rewritten as always.

This reads two private attributes of pytest's ``AssertionRewritingHook``
(``_must_rewrite`` and ``_marked_for_rewrite_cache``, unchanged from pytest 7.4 to 9.x);
when they are missing or not what they were, it does nothing, and the modules are merely
rewritten as before.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import sys

PACKAGE = "pytest_probability"


def keep_plugin_out_of_rewriting() -> int:
    """Take :data:`PACKAGE` and its modules off every pytest assertion-rewriting hook on
    ``sys.meta_path``.

    Called once, when the package is first imported (in every process that imports it).
    Returns how many hooks were changed (0 outside a pytest session or when the hook's
    private attributes are not as expected).
    """
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
