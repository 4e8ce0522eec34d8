"""The built documentation works offline: no page loads a script or a stylesheet from the
network, every local script or stylesheet a page names exists in the build, and every link
from one page of the build to another lands (the page exists, and so does its ``#anchor``:
the "[source]" and "[docs]" links of the API pages and their source pages among them).

Run after ``sphinx-build`` (``.ci/run`` does)::

    python tests/docs/check_offline.py docs/_build/html

Prints one line per problem and exits 1 when there is one (0 otherwise).
"""
from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Optional
from urllib.parse import urlsplit

__all__ = ["offline_problems", "page_problems"]


class _Page(HTMLParser):
    """The ``src`` of ``<script>`` tags and the ``href`` of ``<link rel="stylesheet">`` tags
    (``urls``), the ``href`` of ``<a>`` tags (``links``) and every ``id`` (``ids``)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs) -> None:
        a = {k: (v or "") for k, v in attrs}
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "script" and a.get("src"):
            self.urls.append(a["src"])
        elif tag == "link" and "stylesheet" in a.get("rel", "").lower().split() and a.get("href"):
            self.urls.append(a["href"])
        elif tag == "a" and a.get("href"):
            self.links.append(a["href"])


def _parsed(page: Path, cache: dict) -> _Page:
    if page not in cache:
        parser = cache[page] = _Page()
        parser.feed(page.read_text(encoding="utf-8", errors="replace"))
    return cache[page]


def page_problems(page: Path, root: Path, cache: Optional[dict] = None) -> list[str]:
    """The network or missing scripts and stylesheets of one HTML ``page`` of the build
    ``root``, and its links to a missing page or anchor of the build."""
    cache = {} if cache is None else cache
    parser = _parsed(page, cache)
    problems = []
    where = page.relative_to(root)
    for url in parser.links:
        parts = urlsplit(url)
        if parts.scheme or url.startswith("//") or not (parts.path.endswith(".html") or not parts.path):
            continue  # the network, a download or a non-page file: not checked here
        target = (page.parent / parts.path).resolve() if parts.path else page.resolve()
        if not target.is_file():
            problems.append(f"{where}: links to {url}, which is not in the build")
        elif parts.fragment and parts.fragment not in _parsed(target, cache).ids:
            problems.append(f"{where}: links to {url}, whose page has no anchor {parts.fragment!r}")
    for url in parser.urls:
        parts = urlsplit(url)
        if parts.scheme or url.startswith("//"):
            problems.append(f"{where}: loads {url} from the network")
            continue
        local = (page.parent / parts.path).resolve()
        if not local.is_file():
            problems.append(f"{where}: {url} is not in the build")
    return problems


def offline_problems(root) -> list[str]:
    """Every problem of the HTML pages under ``root`` (a ``sphinx-build -b html`` output)."""
    root = Path(root)
    # the pages a reader opens; _static/ holds assets, among them the theme's Jinja macro
    # templates (pydata-sphinx-theme's webpack-macros.html), which are not pages
    pages = sorted(p for p in root.rglob("*.html") if "_static" not in p.relative_to(root).parts)
    if not pages:
        return [f"{root}: no HTML page (build the documentation first)"]
    cache: dict = {}
    return [p for page in pages for p in page_problems(page, root, cache)]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tests/docs/check_offline.py BUILD_DIR", file=sys.stderr)
        return 2
    problems = offline_problems(argv[0])
    for line in problems:
        print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
