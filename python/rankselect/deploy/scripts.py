"""Text that lands in the files a user runs or reads: shell words, URL segments, Markdown.

A name never reaches a shell unquoted: :func:`curl` writes one request of ``load.sh`` with
every URL segment percent-encoded and single-quoted (``shlex.quote``), the server's address
from the engine's environment variable, ``--fail`` (an HTTP error stops the script) and the
user's own options from ``RANKSELECT_CURL_OPTS`` (authentication, TLS:
``RANKSELECT_CURL_OPTS='-u admin:secret --cacert ca.pem'``).
"""
from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from urllib.parse import quote

__all__ = ["CURL_OPTS", "script_header", "curl", "url_segment", "markdown_code"]

#: the environment variable whose words ``load.sh`` adds to every ``curl``
CURL_OPTS = "RANKSELECT_CURL_OPTS"


def url_segment(text: str) -> str:
    """``text`` percent-encoded as one URL path segment (``/``, ``?``, ``#``, ``&`` included).

    Examples
    --------
    >>> from rankselect.deploy.scripts import url_segment
    >>> url_segment("a b/#?&..")
    'a%20b%2F%23%3F%26..'
    """
    return quote(text, safe="")


def _https(url: str) -> str:
    return url.replace("http://", "https://", 1).replace("localhost", "search.example.com", 1)


def script_header(what: str, variable: str, default: str) -> list[str]:
    """The first lines of a ``load.sh``: what it does, ``set -eu``, the server's address in
    ``variable`` (default ``default``), and the documented hooks.

    Examples
    --------
    >>> from rankselect.deploy.scripts import script_header
    >>> print("\\n".join(script_header("Load it.", "ES", "http://localhost:9200")[-3:]))
    set -eu
    ES="${ES:-http://localhost:9200}"
    CURL="curl --fail --silent --show-error ${RANKSELECT_CURL_OPTS:-}"
    """
    return ["#!/bin/sh", f"# {what}", "#",
            f"# {variable}: the server's address (default {default}; https://... behind TLS).",
            f"# {CURL_OPTS}: extra curl options, e.g. authentication and TLS:",
            f"#   {CURL_OPTS}='-u admin:secret --cacert ca.pem' {variable}={_https(default)} sh load.sh",
            "set -eu", f'{variable}="${{{variable}:-{default}}}"',
            f'CURL="curl --fail --silent --show-error ${{{CURL_OPTS}:-}}"']


def curl(method: str, variable: str, segments: Sequence[str], body: str = "", content_type: str = "application/json",
         suffix: str = "") -> str:
    """One request: ``$CURL -X METHOD "$VARIABLE"/seg/seg [-H ... --data-binary @body]``, each
    segment URL-encoded and single-quoted.

    Examples
    --------
    >>> from rankselect.deploy.scripts import curl
    >>> print(curl("PUT", "ES", ["_ml", "trained_models", "$(touch x)"], "model.json"))
    $CURL -X PUT "$ES"/_ml/trained_models/%24%28touch%20x%29 -H 'Content-Type: application/json' \
--data-binary @model.json
    """
    path = "".join("/" + url_segment(s) for s in segments) + suffix
    line = f'$CURL -X {method} "${variable}"{shlex.quote(path)}'
    if body:
        line += f" -H {shlex.quote('Content-Type: ' + content_type)} --data-binary @{shlex.quote(body)}"
    return line


_BACKTICKS = re.compile(r"`+")


def markdown_code(text: str) -> str:
    """``text`` as one Markdown code span: control characters shown as escapes (``\\n``), a
    fence longer than any run of backticks inside.

    Examples
    --------
    >>> from rankselect.deploy.scripts import markdown_code
    >>> markdown_code("a`b"), markdown_code("x\\ny")
    ('``a`b``', '`x\\\\ny`')
    """
    shown = "".join(json.dumps(c)[1:-1] if ord(c) < 32 or ord(c) == 127 else c for c in text)
    fence = "`" * (max((len(m) for m in _BACKTICKS.findall(shown)), default=0) + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") else ""
    return f"{fence}{pad}{shown}{pad}{fence}"
