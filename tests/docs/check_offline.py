"""The built documentation works offline: no page loads a script or a stylesheet from the
network, and every local script or stylesheet a page names exists in the build.

Run after ``sphinx-build`` (``.ci/run`` does)::

    python tests/docs/check_offline.py docs/_build/html

Prints one line per problem and exits 1 when there is one (0 otherwise).
"""
from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

__all__ = ["offline_problems", "page_problems"]


class _Assets(HTMLParser):
    """The ``src`` of ``<script>`` tags and the ``href`` of ``<link rel="stylesheet">`` tags."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs) -> None:
        a = {k: (v or "") for k, v in attrs}
        if tag == "script" and a.get("src"):
            self.urls.append(a["src"])
        elif tag == "link" and "stylesheet" in a.get("rel", "").lower().split() and a.get("href"):
            self.urls.append(a["href"])


def page_problems(page: Path, root: Path) -> list[str]:
    """The network or missing scripts and stylesheets of one HTML ``page`` of the build ``root``."""
    parser = _Assets()
    parser.feed(page.read_text(encoding="utf-8", errors="replace"))
    problems = []
    for url in parser.urls:
        parts = urlsplit(url)
        where = page.relative_to(root)
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
    return [p for page in pages for p in page_problems(page, root)]


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
