"""The site in a real browser: headless Chromium (Debian's package; CI installs it) loads
the index and metric pages, runs the search, and renders the MathML as mathematics."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest


def _load(name: str, path: Path):
    """A helper module of the test tree by path (the tests are not a package)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


_browser = _load("metricc_docs_browser", Path(__file__).with_name("browser.py"))
CHROMIUM, dump_dom, screenshot = _browser.CHROMIUM, _browser.dump_dom, _browser.screenshot

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (CI installs Debian's package)")


def _visible_entries(dom: str) -> list[str]:
    return re.findall(r'<li class="entry" data-search="[^"]*"><a href="metrics/([a-z0-9_]+)\.html"', dom)


def test_index_and_two_metric_pages_load(site, compiled_metrics):
    index = dump_dom((site / "index.html").as_uri())
    assert len(re.findall(r'<li class="entry"', index)) == len(compiled_metrics)
    for metric_id, name in (("f1", "F1 score"), ("mcc", compiled_metrics["mcc"].name)):
        page = dump_dom((site / "metrics" / f"{metric_id}.html").as_uri())
        assert f"<h1 id=\"top\">{name} <code>{metric_id}</code></h1>" in page
        assert page.count("<math") >= 2  # as written and simplified


def test_search_finds_a_metric_by_an_alias(site):
    dom = dump_dom((site / "index.html").as_uri() + "?q=dice")
    assert _visible_entries(dom) == ["f1"]  # hidden entries carry hidden="" before the link
    assert "1 of " in dom
    both = dump_dom((site / "index.html").as_uri() + "?q=youden")
    assert _visible_entries(both) == ["youden_j"]


def _ink(rows: list[list[int]]) -> tuple[int, int]:
    """(height of the rows holding dark pixels, longest run of dark pixels in one row)."""
    dark = [[value < 128 for value in row] for row in rows]
    inked = [y for y, row in enumerate(dark) if any(row)]
    longest = 0
    for row in dark:
        run = 0
        for pixel in row:
            run = run + 1 if pixel else 0
            longest = max(longest, run)
    return (inked[-1] - inked[0] + 1 if inked else 0), longest


def test_screenshot_shows_rendered_math(site, tmp_path):
    """The simplified precision TP/(FP + TP), cut out of its page, rendered alone: a fraction
    stacks two lines over a bar; the same characters as text (what a browser shows of markup it
    does not render) make one line and no bar."""
    page = (site / "metrics" / "precision.html").read_text("utf-8")
    fraction = re.search(r"<h2>Simplified</h2>\s*(<math.*?</math>)", page, re.S).group(1)
    text = re.sub(r"<[^>]+>", "", fraction)
    style = "<style>body{margin:40px;font-size:32px;background:#fff;color:#000}</style>"
    (tmp_path / "math.html").write_text(f"<!DOCTYPE html><html><head>{style}</head><body>{fraction}</body></html>", "utf-8")
    (tmp_path / "text.html").write_text(f"<!DOCTYPE html><html><head>{style}</head><body><p>{text}</p></body></html>", "utf-8")
    math_height, bar = _ink(screenshot((tmp_path / "math.html").as_uri()))
    text_height, _ = _ink(screenshot((tmp_path / "text.html").as_uri()))
    assert text_height > 10, "the text control rendered nothing"
    assert math_height > 1.6 * text_height, (math_height, text_height)
    assert bar > 60, f"no fraction bar (longest dark run {bar} px)"
