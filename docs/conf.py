"""Sphinx configuration for the pytest-probability documentation.

Build with ``sphinx-build -W -b html docs docs/_build/html`` from the repository root.
Only Sphinx itself is required (``docs/requirements.txt``): the plugin does not need to be
installed. When ``import pytest_probability`` fails, the import package is assembled from
``../core`` and ``../extensions`` (the same mapping ``pyproject.toml`` gives setuptools), and
third-party imports that are missing (pytest, pluggy, importlib-metadata) are mocked for
autodoc.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _package(name: str, directory: Path) -> tuple[object, object]:
    """Create (not yet execute) the package in ``directory`` as ``name`` in sys.modules."""
    spec = importlib.util.spec_from_file_location(
        name, directory / "__init__.py", submodule_search_locations=[str(directory)]
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {name} from {directory}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)
    return module, spec.loader


try:
    import pytest_probability
except ImportError:
    for _name in [k for k in sys.modules if k.split(".")[0] == "pytest_probability"]:
        del sys.modules[_name]
    # both packages exist before either runs: the core's façade imports from extensions
    _core, _core_loader = _package("pytest_probability", ROOT / "core")
    _extensions, _extensions_loader = _package("pytest_probability.extensions", ROOT / "extensions")
    _extensions_loader.exec_module(_extensions)  # type: ignore[attr-defined]
    _core_loader.exec_module(_core)  # type: ignore[attr-defined]
    import pytest_probability


# Third-party modules the documented modules import; mocked only where they are absent, so
# a docs-only environment (Sphinx and nothing else) still renders every docstring.
autodoc_mock_imports = [
    name
    for name in ("pytest", "_pytest", "pluggy", "importlib_metadata")
    if importlib.util.find_spec(name) is None
]

# -- Project -----------------------------------------------------------------------------------
project = "pytest-probability"
author = "pytest-probability developers"
copyright = "pytest-probability developers"
release = pytest_probability.__version__
version = ".".join(release.split(".")[:2])

# -- General -----------------------------------------------------------------------------------
extensions = ["sphinx.ext.autodoc"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "requirements.txt"]
root_doc = "index"
default_role = "literal"
highlight_language = "python"
pygments_style = "sphinx"

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_preserve_defaults = True
add_module_names = False

# -- HTML --------------------------------------------------------------------------------------
html_theme = "alabaster"
html_title = f"pytest-probability {release}"
html_theme_options = {
    "description": "Run every benchmark case N times and report pass fractions.",
    "fixed_sidebar": True,
    "show_relbars": True,
}
html_static_path: list[str] = []
