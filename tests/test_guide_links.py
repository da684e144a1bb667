"""The README and the user guide (docs/guide/): every relative link names a file of the repository
and, with ``#anchor``, a heading of that Markdown file (GitHub's anchors), so moving a section
breaks a test rather than a reader's link."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs" / "guide").glob("*.md"))]


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation but hyphens dropped, spaces as hyphens."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    headings = re.findall(r"^#+ (.+)$", text, re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings}


def _links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    return [link for link in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"[a-z]+:", link)]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(REPO).as_posix())
def test_links_resolve(page):
    for link in _links(page):
        target, _, anchor = link.partition("#")
        path = (page.parent / target).resolve() if target else page
        assert path.exists(), f"{page.relative_to(REPO)}: broken link {link}"
        assert not anchor or anchor in _anchors(path), f"{page.relative_to(REPO)}: no heading for {link}"


def test_every_guide_page_is_reached_from_the_index():
    index = REPO / "docs" / "guide" / "index.md"
    linked = {(index.parent / link.partition("#")[0]).resolve() for link in _links(index)}
    assert set(PAGES[1:]) - {index} <= linked
