"""Rendering a review for ``metricc review``: text, JSON, Markdown, and one HTML page.

The last stage (read -> find -> check -> render). Text and Markdown list what is wrong first,
then what could not be read, then what checks out; the HTML page holds the same findings,
each linked to an anchored copy of the paper's lines (``#L123``), and every line that a
finding is about links back to it. Everything printed from the paper is escaped.
"""

from __future__ import annotations

import html
import json

from metricc.audit.review import Report
from metricc.audit.review_items import Finding

__all__ = ["FORMATS", "render"]

FORMATS = ("text", "json", "markdown", "html")
_ORDER = {"wrong": 0, "explained": 1, "unreadable": 2, "unchecked": 3, "ok": 4}
_TITLES = {"wrong": "Wrong", "explained": "Differs, explained by another convention", "unreadable": "Could not be read",
           "unchecked": "Not in the catalog (not checked)", "ok": "Checks out"}


def render(report: Report, form: str) -> str:
    if form not in FORMATS:
        raise ValueError(f"format {form!r} is not one of {', '.join(FORMATS)}")
    return {"text": _text, "json": _json, "markdown": _markdown, "html": _html}[form](report)


def _ordered(report: Report) -> list[Finding]:
    return sorted(report.findings, key=lambda f: (_ORDER[f.status], f.line))


def _where(finding: Finding) -> str:
    parts = [p for p in (finding.section, finding.name) if p]
    return f"line {finding.line}" + (f" ({'; '.join(parts)})" if parts else "")


def _summary_line(report: Report) -> str:
    summary = report.summary()
    status, wrong = summary["status"], summary["wrong"]
    failed = ", ".join(f"{n} {s}" for s, n in wrong.items() if n)
    return (f"{report.paper.name}: {len(report.findings)} checks ({summary['checked']['formula']} formulas, "
            f"{summary['checked']['number']} numbers, {summary['checked']['consistency']} score tables): "
            f"{status['ok']} check out, {status['wrong'] + status['explained']} wrong"
            + (f" ({failed})" if failed else "")
            + f", {status['unreadable']} could not be read, {status['unchecked']} not in the catalog")


def _one_line(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _text(report: Report) -> str:
    lines = []
    for finding in _ordered(report):
        mark = finding.status.upper() if finding.status != "ok" else "ok"
        severity = f" [{finding.severity}]" if finding.severity and finding.failed else ""
        lines.append(f"{mark:<10} {finding.kind:<11} {_where(finding)}{severity}")
        lines.append(f"{'':<11}printed: {_one_line(finding.printed)}")
        lines.append(f"{'':<11}{_one_line(finding.sentence, 400)}")
    lines.append(_summary_line(report))
    return "\n".join(lines)


def _json(report: Report) -> str:
    return json.dumps(report.to_json(), indent=2, ensure_ascii=False)


def _md(text: str) -> str:
    return html.escape(_one_line(text, 400)).replace("|", "\\|").replace("`", "'")


def _markdown(report: Report) -> str:
    out = [f"# Review of {_md(report.paper.name)}", "", _md(_summary_line(report)), ""]
    for status in ("wrong", "explained", "unreadable", "unchecked", "ok"):
        chosen = [f for f in _ordered(report) if f.status == status]
        if not chosen:
            continue
        out += [f"## {_TITLES[status]} ({len(chosen)})", "", "| where | kind | printed | finding |", "|---|---|---|---|"]
        for f in chosen:
            severity = f" ({f.severity})" if f.severity and f.failed else ""
            out.append(f"| {_md(_where(f))} | {f.kind}{severity} | {_md(f.printed)} | {_md(f.sentence)} |")
        out.append("")
    return "\n".join(out)


_STYLE = """body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .5em;vertical-align:top;text-align:left}
.wrong,.explained{background:#fde2e2}.unreadable{background:#fff4ce}.unchecked{background:#eef}.ok{background:#e6f4ea}
pre{margin:0;white-space:pre-wrap}.paper td{border:none;padding:0 .5em}.paper .n{color:#888;text-align:right;user-select:none}
.paper tr.hit{background:#fff4ce}.paper tr:target{outline:2px solid #c00}"""


def _html(report: Report) -> str:
    e = html.escape
    rows, hits = [], {}
    for index, f in enumerate(_ordered(report)):
        hits.setdefault(f.line, []).append(index)
        severity = f" ({e(f.severity)})" if f.severity and f.failed else ""
        rows.append(f'<tr id="F{index}" class="{f.status}"><td><a href="#L{f.line}">{e(_where(f))}</a></td>'
                    f"<td>{e(f.status)}{severity}</td><td>{e(f.kind)}</td><td><pre>{e(_one_line(f.printed, 400))}</pre></td>"
                    f"<td>{e(f.sentence)}</td></tr>")
    paper = []
    for number, line in enumerate(report.paper.lines, 1):
        links = " ".join(f'<a href="#F{i}">[{i + 1}]</a>' for i in hits.get(number, []))
        marked = ' class="hit"' if number in hits else ""
        paper.append(f'<tr id="L{number}"{marked}><td class="n">{number}</td><td><pre>{e(line)}</pre></td><td>{links}</td></tr>')
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Review of {e(report.paper.name)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>Review of {e(report.paper.name)}</h1>", f"<p>{e(_summary_line(report))}</p>",
        "<table><tr><th>where</th><th>status</th><th>kind</th><th>printed</th><th>finding</th></tr>", *rows, "</table>",
        "<h2>The paper</h2>", '<table class="paper">', *paper, "</table>", "</body></html>", ""])
