"""Run by tests/run-all.sh's packaging leg in a venv where the built wheel or sdist is
installed (not editable, as pytest sees a user's install): a session in the current
directory must load the plugin with its modules out of assertion rewriting (only the
package's first modules, imported before it takes itself off pytest's list, are
rewritten). Exits non-zero, saying which modules, otherwise."""

from __future__ import annotations

import sys

import pytest

FIRST = {"pytest_probability.rewriting"}

code = pytest.main(["-q", "-p", "no:cacheprovider", "--prob-runs=2"])
ours = {
    name: module for name, module in sys.modules.items() if name.startswith("pytest_probability.")
}
rewritten = sorted(
    name
    for name, module in ours.items()
    if type(getattr(module, "__loader__", None)).__name__ == "AssertionRewritingHook"
)
if code != 0 or "pytest_probability.kernel" not in ours or not set(rewritten) <= FIRST:
    sys.exit(f"exit {int(code)}; rewritten plugin modules beyond {sorted(FIRST)}: {rewritten}")
print(f"installed start-up ok: {len(ours)} plugin modules, rewritten only {rewritten}")
