"""The page's stylesheet and script (``page.css`` and ``page.js``, package data beside this
module), written for this report.

The stylesheet: light and dark (``prefers-color-scheme``), readable from phone width to a
wide screen, and printable. The script, plain JavaScript, sorts and filters the case table;
its state lives in the URL fragment, so a view can be shared or bookmarked:
``#filter=fail,flaky&fn=classify&gate=undecided&q=pii&sort=-fraction`` (``filter``: status
keys; ``sort``: a column key, ``-`` first for descending). Without the script the page is
complete, in report order. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

#: the stylesheet (``page.css``, beside this module)
CSS = Path(__file__).with_name("page.css").read_text(encoding="utf-8")

#: Sort keys: ``sort=KEY`` → the ``data-*`` attribute and how it compares.
SORT_KEYS = {
    "order": ("i", "n"),
    "case": ("", "t"),
    "function": ("fn", "t"),
    "fn": ("fn", "t"),
    "runs": ("n", "n"),
    "fraction": ("rate", "n"),
    "rate": ("rate", "n"),
    "low": ("low", "n"),
    "high": ("high", "n"),
    "status": ("status", "s"),
    "gate": ("gate", "g"),
    "latency": ("lat", "n"),
    "cost": ("cost", "n"),
}

_KEYS_JS = ",".join(f'"{key}":["{attr}","{kind}"]' for key, (attr, kind) in SORT_KEYS.items())

#: the script (``page.js``, beside this module), with the sort keys in place of its marker
SCRIPT = (
    Path(__file__)
    .with_name("page.js")
    .read_text(encoding="utf-8")
    .replace("/* SORT_KEYS */", _KEYS_JS)
)


def script_hash(script: str = SCRIPT) -> str:
    """The CSP source expression allowing exactly this script (``'sha256-…'``)."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"
