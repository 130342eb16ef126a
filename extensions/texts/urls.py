"""The judge's URLs: checked once at configuration, redacted wherever one is printed.

A base URL may not carry a user name or password (``http://alice:secret@host/v1``): the
plugin would otherwise print it in messages, the JSON and the HTML report. Nor may it hold
control characters, spaces or non-ASCII characters, which ``http.client`` would refuse (or
worse, send) on every request. Printed URLs never show userinfo or a query string
(``?api-version=…``, or a proxy's ``?key=…``): :func:`redact_url` replaces them with ``***``.
Pure module.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import urllib.parse

from pytest_probability.api import visible

from .settings import TextsConfigError, authority, without_secrets


def redact_url(url: str) -> str:
    """``url`` fit to print: userinfo and query replaced with ``***``, fragment dropped,
    control characters made visible."""
    return visible(without_secrets(url))


def check_url(setting: str, url: str) -> str:
    """``url`` if the judge can be asked there; else :class:`.settings.TextsConfigError`
    naming ``setting``, saying what is wrong and what would be valid (the URL is shown
    redacted, never the secret)."""

    def refused(why: str) -> TextsConfigError:
        return TextsConfigError(f"{setting}='{redact_url(url)}': {why}")

    if "@" in authority(url):
        raise refused(
            "the URL holds a user name or password, which would be printed in messages and "
            "reports; give the URL without it and the key in OPENAI_API_KEY (or "
            "AZURE_OPENAI_API_KEY)"
        )
    for index, char in enumerate(url):
        if char <= " " or char == "\x7f":
            what = "a space" if char == " " else f"the control character {char!r}"
            raise refused(
                f"{what} at position {index}; a URL has none (percent-encode it, e.g. %20 "
                "for a space)"
            )
        if not char.isascii():
            raise refused(
                f"a non-ASCII character at position {index}; percent-encode it (its UTF-8 "
                "bytes as %XX) or use the host's punycode (xn--) name"
            )
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise refused(f"not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise refused("not an http(s) URL; expected e.g. https://api.openai.com/v1")
    if parts.fragment:
        raise refused("a URL sent to a server has no #fragment")
    return url


def mask(text: str, secret: str | None) -> str:
    """``text`` with every occurrence of ``secret`` (as given, or as Python would quote it
    inside a repr) replaced with ``***``."""
    if not secret:
        return text
    for form in {secret, repr(secret)[1:-1]}:
        text = text.replace(form, "***")
    return text
