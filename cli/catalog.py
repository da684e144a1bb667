"""``metricc list`` and ``metricc explain``: the compiled catalog, read from ``metricc.generated``.

``list`` writes its listing as a document of :mod:`metricc.api.formats`, so its ``--format``
offers every format of that table; ``explain --format latex`` is the metric's LaTeX file.
"""

from __future__ import annotations

import math

from metricc.api.formats import FORMATS, Note, Result, Table, render
from metricc.compiler.packages import package_dir
from metricc.compiler.errors import InternalError
from metricc.core.errors import InputError

__all__ = ["add_command"]


def add_command(commands) -> None:
    """Add ``list`` and ``explain`` to ``commands`` (an argparse sub-parser group)."""
    listing = commands.add_parser("list", help="list the compiled metrics")
    listing.add_argument("name", nargs="?", metavar="NAME",
                         help="only metrics whose id, alias or name contains NAME (any case; spaces, '-' and '_' ignored)")
    listing.add_argument("--format", choices=tuple(FORMATS), default="text")
    listing.add_argument("--peers", action="store_true",
                         help="how much of scikit-learn, torchmetrics and PyCM the catalog covers, one line per peer")
    listing.add_argument("--peer", metavar="PEER", help="each metric of PEER (scikit-learn, torchmetrics, PyCM) "
                                                        "and the catalog entries that answer it")
    listing.set_defaults(run=_cmd_list)

    explain = commands.add_parser("explain", help="show a metric's formula, undefined cases and sources")
    explain.add_argument("id", metavar="ID", help="metric id or alias")
    explain.add_argument("--format", choices=("text", "latex"), default="text")
    explain.set_defaults(run=_cmd_explain)


def _catalog():
    from metricc.generated import CATALOG

    return CATALOG


def _bound(value: float):
    """Range bounds as specs write them: a number, or "inf" / "-inf" (JSON has no infinity)."""
    return ("inf" if value > 0 else "-inf") if math.isinf(value) else value


def _info_json(info) -> dict:
    return {
        "id": info.id,
        "name": info.name,
        "aliases": list(info.aliases),
        "level": info.level,
        "averages": list(info.averages),
        "default_average": info.default_average,
        "params": [{"name": p.name, "kind": p.kind, "default": p.default, "domain": p.domain} for p in info.params],
        "range": [_bound(info.range[0]), _bound(info.range[1])],
        "higher_is_better": info.higher_is_better,
        "references": list(info.references),
        "interpretation": [{"id": s.id, "name": s.name, "references": list(s.references), "note": s.note,
                            "bands": [{"label": b.label, "interval": b.interval} for b in s.bands]}
                           for s in info.interpretation],
    }


def _direction(info) -> str:
    return {True: "higher is better", False: "lower is better", None: "no better direction"}[info.higher_is_better]


def _averages_text(info, sep: str = ", ") -> str:
    return sep.join(a + ("*" if a == info.default_average else "") for a in info.averages) or "-"


def _matching(name: str | None) -> list:
    """The catalog, or the metrics a user's name finds: by id or alias in any spelling, else by part."""
    from metricc.runtime.registry import name_key

    infos = _catalog().values()
    if name is None:
        return infos
    key = name_key(name)
    found = [i for i in infos if any(key in name_key(n) for n in (i.id, i.name, *i.aliases))]
    if found:
        return found
    try:
        return [_catalog().find(name)[0]]
    except InputError as error:
        raise InputError("NAME", error.message) from None


def _cmd_list(args) -> int:
    if args.peers or args.peer:
        print(render(_peers(args), args.format).rstrip("\n"))
        return 0
    infos = _matching(args.name)
    rows = tuple((info.id, info.level, _averages_text(info, ","), info.name, "; ".join(info.references)) for info in infos)
    header = ("ID", "LEVEL", "AVERAGES (*default)", "NAME", "REFERENCES")

    def text(digits: int) -> str:
        widths = [max(len(row[i]) for row in [header, *rows]) for i in range(4)]
        return "\n".join("  ".join(f"{cell:<{width}}" for cell, width in zip(row, widths)) + "  " + row[4]
                         for row in [header, *rows])

    print(render(Result("Metrics", [_info_json(info) for info in infos], (Table(header, rows, "Metrics"),),
                        {"text": text}), args.format).rstrip("\n"))
    return 0


def _peers(args) -> Result:
    """The peers' coverage (``--peers``), or each name of one peer and its catalog entries (``--peer``)."""
    from metricc.audit import peers as peer_table

    table = peer_table.load_peers()
    if args.peer is None:
        lines = peer_table.coverage_lines(table)
        return Result("Peer coverage", lines, (Table(("coverage",), tuple((line,) for line in lines)),),
                      {"text": lambda digits: "\n".join(lines)})
    found = [p for p in table.values() if p.name.lower() == args.peer.lower()]
    if not found:
        raise InputError("--peer", f"unknown peer {args.peer!r}; the peers: {', '.join(table)}")
    peer = found[0]
    data = {"peer": peer.name, "version": peer.version, "scope": peer.scope,
            "names": [{"name": n.name, "group": n.group, "status": n.status, "metrics": list(n.metrics),
                       "reason": n.reason or None} for n in peer.names]}
    rows = tuple((n.name, n.group, n.status, ", ".join(n.metrics), n.reason or "") for n in peer.names)

    def text(digits: int) -> str:
        width = max(len(n.name) for n in peer.names)
        lines = [f"{peer.name} {peer.version}: {peer.scope}"]
        for n in peer.names:
            answer = (", ".join(n.metrics) + (f" ({n.reason})" if n.reason else "") if n.metrics
                      else f"{n.status.replace('_', ' ')}: {n.reason}")
            lines.append(f"  {n.name:<{width}}  {answer}")
        return "\n".join(lines + peer_table.coverage_lines({peer.name: peer}))

    title = f"{peer.name} {peer.version}"
    return Result(title, data, (Note(f"{title}: {peer.scope}"),
                                Table(("name", "group", "status", "metrics", "reason"), rows, title)), {"text": text})


def _cmd_explain(args) -> int:
    try:
        info, _ = _catalog().find(args.id)  # "F1 Macro" explains f1
    except InputError as error:
        raise InputError("ID", error.message) from None
    if args.format == "latex":
        path = package_dir("metricc.generated") / "docs" / "metrics" / f"{info.id}.tex"
        try:
            print(path.read_text("utf-8"), end="")
        except OSError as error:
            raise InternalError(f"cannot read the LaTeX of {info.id} ({path}): {error.strerror}") from None
        return 0
    lo, hi = (f"{b:g}" for b in info.range)
    lines = [f"{info.id}: {info.name}"]
    if info.aliases:
        lines.append(f"  aliases: {', '.join(info.aliases)}")
    lines.append(f"  level: {info.level}" + (", one value per class (per_class)" if info.takes == "matrix" and info.averages else ""))
    if info.averages:
        lines.append(f"  averages: {_averages_text(info)}  (* default)")
    lines += [f"  range: [{lo}, {hi}], {_direction(info)}",
              "", info.description, "",
              f"formula:    {info.formula}", f"simplified: {info.simplified}"]
    if info.undefined:
        lines.append("undefined when (returns zero_division, default NaN):")
        lines += [f"  {case}" for case in info.undefined]
    if info.params:
        lines.append("params:")
        lines += [f"  {p.name}: {p.kind}, default {'computed from the counts' if p.default is None else p.default}"
                  + (f", {p.domain}" if p.domain else "") for p in info.params]
    if info.equivalences:
        lines.append("proved equivalences (where both sides are defined):")
        lines += [f"  {statement}" for statement in info.equivalences]
    lines.append("references:")
    lines += [f"  {reference}" for reference in info.references]
    lines += _scales_text(info)
    print("\n".join(lines))
    return 0


def _scales_text(info) -> list[str]:
    """The interpretation scales, bands upward; the first is what ``eval --interpret`` uses."""
    if not info.interpretation:
        return []
    lines = ["interpretation scales (metricc eval --interpret [SCALE]; the first is the default):"]
    for scale in info.interpretation:
        lines.append(f"  {scale.id}: {scale.name} ({'; '.join(scale.references)})")
        lines += [f"    {band.interval:<14} {band.label}" for band in scale.bands]
        if scale.gaps:
            lines.append("    values in no band have no label")
        if scale.note:
            lines.append(f"    {scale.note}")
    return lines
