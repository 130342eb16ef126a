"""The catalog of the bundled extensions (``pytest_probability/bundled.json``) says what the
extensions declare: start-up declares every ``--prob-*`` flag and ``prob_*`` ini key from it
without importing them. When this fails, write it again: ``python -m pytest_probability.catalog``.
"""

from __future__ import annotations

from pytest_probability import catalog, loader


def test_the_catalog_is_what_the_extensions_declare() -> None:
    written = loader.CATALOG_PATH.read_text(encoding="utf-8")
    assert written == catalog.dumps(catalog.describe()), (
        "pytest_probability/bundled.json is out of date: run python -m pytest_probability.catalog"
    )


def test_the_catalog_lists_the_bundled_extensions_in_order() -> None:
    assert [(e["name"], e["package"]) for e in loader.catalog()] == list(loader.BUNDLED)
    assert all(entry["hooks"] for entry in loader.catalog())  # (every hookspecs declares one)


def test_defaults_survive_the_round_trip() -> None:
    for value in (None, 1, 0.5, "x", True, (1.0, 1.0), ((1, 2), 3)):
        assert loader.decoded_default(catalog.encode_default(value)) == value
