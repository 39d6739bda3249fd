"""MkDocs hook: links from the docs pages into the repository, made right for the site.

In the repository, ``docs/*.md`` link to ``../notebooks/NAME.ipynb`` and to test files
(``../tests/...``), which resolve on GitHub and in a checkout. On the site a notebook is a page of
the gallery (``docs/notebooks`` links to ``notebooks/``), and files outside the docs have no page,
so such a link keeps its text and loses its target.
"""

from __future__ import annotations

import re

LINK = re.compile(r"\[([^\]]*)\]\(\.\./([^)\s]+)\)")


def _fix(match: re.Match) -> str:
    text, target = match.groups()
    if target.startswith("notebooks/"):
        return f"[{text}]({target})"
    return text


def on_page_markdown(markdown, page, config, files):  # noqa: ARG001 - MkDocs' hook signature
    if page.file.src_uri.count("/"):  # pages in sub-folders (the API, the notebooks) have none
        return markdown
    return LINK.sub(_fix, markdown)
