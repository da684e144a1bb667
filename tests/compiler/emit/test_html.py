"""The site emitter (compiler/emit/html.py): complete, linked, offline, well-formed, deterministic."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path, PurePosixPath

from metricc.compiler.emit import html
from metricc.compiler.language import load

REPO = Path(__file__).resolve().parents[3]


def _links(text: str) -> list[str]:
    return re.findall(r'(?:href|src)="([^"]*)"', text)


def test_a_page_per_metric_and_the_index_links_each(site_files, compiled_metrics):
    pages = {name for name in site_files if name.startswith("metrics/")}
    assert pages == {f"metrics/{metric_id}.html" for metric_id in compiled_metrics}
    assert set(_links(site_files["index.html"])) >= pages
    assert {"index.html", "errata.html", "audits.html"} <= set(site_files)


def test_every_link_resolves_inside_the_site(site_files):
    anchors = {name: set(re.findall(r'id="([^"]+)"', text)) for name, text in site_files.items()}
    for name, text in site_files.items():
        for link in _links(text):
            assert not re.match(r"[a-z]+:", link), f"{name}: {link} leaves the site (no network, no CDN)"
            target, _, anchor = link.partition("#")
            path = str(PurePosixPath(name).parent / target) if target else name
            path = str(PurePosixPath(*[p for p in PurePosixPath(path).parts]))
            resolved = path.replace("metrics/../", "")
            assert resolved in site_files, f"{name}: broken link {link}"
            assert not anchor or anchor in anchors[resolved], f"{name}: no anchor {link}"
        assert "<script src" not in text


def test_math_is_well_formed_mathml(site_files):
    count = 0
    for name, text in site_files.items():
        for element in re.findall(r"<math.*?</math>", text, re.S):
            root = ET.fromstring(element)
            assert root.tag == "{http://www.w3.org/1998/Math/MathML}math", name
            count += 1
    assert count > 5 * len([n for n in site_files if n.startswith("metrics/")])


def test_equivalences_are_cross_linked(site_files, compiled_metrics):
    linked = 0
    for metric in compiled_metrics.values():
        page = site_files[f"metrics/{metric.id}.html"]
        for eq in (e for e in metric.equivalences if e.stated and e.other in compiled_metrics):
            assert f'href="{eq.other}.html"' in page, (metric.id, eq.other)
            linked += 1
    assert linked > 10


def test_worked_example_is_the_generated_codes_value(site_files):
    """Macro F1 of Wenzel's Figure 6 matrix, by hand: (18/23 + 12/19 + 14/18) / 3."""
    page = site_files["metrics/f1.html"]
    expected = (Fraction(18, 23) + Fraction(12, 19) + Fraction(14, 18)) / 3
    assert f"<td>average=macro</td><td><code>{float(expected):.6g}</code></td>" in page
    assert "mc.evaluate(&#39;f1&#39;, matrix=matrix, labels=labels, average=&#39;macro&#39;)" in page
    curve = site_files["metrics/roc_auc.html"]
    assert "scores=scores" in curve and "average=macro" in curve
    samples = site_files["metrics/exact_match_ratio.html"]
    assert "multilabel=True" in samples


def test_written_form_keeps_the_authors_grouping_and_lets(site_files):
    assert "<mn>0.5</mn>" in site_files["metrics/adjusted_f_measure.html"]
    rci = site_files["metrics/rci.html"]
    assert "h_d" in rci.split("<h2>Simplified</h2>")[0] and "xlogy" not in rci


def test_audits_and_errata(site_files):
    audits = site_files["audits.html"]
    statuses = re.findall(r'<tr class="([a-z-]+)">', audits)
    assert statuses and set(statuses) <= {"agrees", "erratum"}, set(statuses)
    assert "erratum" in statuses and 'href="errata.html#wenzel-s323-fig6-accuracy"' in audits
    errata = load.load_errata(REPO / "specs")
    for entry in errata:
        assert f'<section id="{entry["id"]}">' in site_files["errata.html"]


def test_search_covers_ids_names_and_aliases(site_files, compiled_metrics):
    f1 = compiled_metrics["f1"]
    entry = re.search(r'<li class="entry" data-search="([^"]*)"><a href="metrics/f1.html"', site_files["index.html"])
    assert set(entry.group(1).split()) >= {f1.id, *f1.aliases, *f1.name.lower().split()}


def test_output_is_deterministic(site_files, compiled_metrics):
    errata = load.load_errata(REPO / "specs")
    again = html.emit_site(dict(reversed(list(compiled_metrics.items()))), errata)
    example = re.compile(r'\n<h2 id="example">.*?</table>\n', re.S)
    assert example.sub("", site_files["metrics/mcc.html"]) == again["metrics/mcc.html"]
    assert again["index.html"] == site_files["index.html"]


def test_a_case_of_xlogy_at_zero_states_only_its_weight():
    """``xlogy(indicator(TP != 3), 0)`` is undefined where ``TP != 3``: one condition, no ``0 = 0``."""
    import sympy

    from metricc.compiler.language import symbols

    text = str(html._case(sympy.KroneckerDelta(3, symbols.TP)))
    assert text.count("<math") == 1 and "&#x2260;" in text and "<mo>=</mo>" not in text
