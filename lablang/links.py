"""The one way an HTML writer turns data into an `href` or `src` attribute.

Reports name files after what an agent or a suite chose (a task file called
`javascript:alert(document.domain).lab`), so escaping the text is not enough: a kept
scheme runs when the link is clicked. Every `href=`/`src=` that an HTML writer builds
from data goes through `url_attribute`, which gives either an absolute URL of an allowed
scheme (`ALLOWED_SCHEMES`) or a relative path whose every segment is percent-encoded
(a `:` becomes `%3A`, so no scheme can survive), HTML-escaped for a quoted attribute.
`tests/hostile/test_links.py` runs every HTML writer on hostile names and fails for a
writer in `lablang/` that it does not list.

>>> url_attribute("javascript:alert(1).cert.json")
'javascript%3Aalert%281%29.cert.json'
>>> url_attribute("https://example.org/a b?x=1&y=2")
'https://example.org/a%20b?x=1&amp;y=2'
>>> url_attribute("/etc/passwd"), url_attribute("../up/file.json")
('etc/passwd', '../up/file.json')
"""

from __future__ import annotations

import html
from urllib.parse import quote, urlsplit

__all__ = ["ALLOWED_SCHEMES", "url_attribute", "url_of"]

ALLOWED_SCHEMES = ("http", "https")
# what may stay unencoded in an allowed absolute URL (RFC 3986's reserved and unreserved
# characters, and `%` for what is encoded already); quotes and spaces are encoded
_URL_SAFE = ":/?#[]@!$&'()*+,;=%~"


def url_of(target: str) -> str:
    """`target` as a URL that can only be an allowed scheme or a relative path."""
    try:
        parts = urlsplit(target.strip())
    except ValueError:  # e.g. an unbalanced `[` in the host part
        parts = None
    if parts is not None and parts.scheme.lower() in ALLOWED_SCHEMES and parts.netloc:
        return quote(target.strip(), safe=_URL_SAFE)  # control characters encoded too
    # anything else is a file path relative to the page: each segment encoded, so no
    # scheme (`javascript:`, `data:`), host (`//evil`) or absolute path can remain
    segments = [s for s in target.replace("\\", "/").split("/") if s]
    return "/".join(quote(s, safe="") for s in segments) or "."


def url_attribute(target: str) -> str:
    """`url_of(target)`, escaped for a double- or single-quoted HTML attribute."""
    return html.escape(url_of(target), quote=True)
