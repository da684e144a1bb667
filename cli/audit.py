"""``metricc audit``: recompute the numbers papers print and report which ones hold.

Registered by :mod:`.app` (``add_command``); the audit engine and PyYAML
are imported when the command runs, so the other commands do not pay for them. The claims are
written as a document of :mod:`metricc.api.formats` (one line per claim in text, a table of
claims in the other formats).
"""

from __future__ import annotations

from pathlib import Path

from metricc.api.formats import FORMATS, Note, Result, Table, render
from metricc.core.errors import InputError

__all__ = ["add_command"]

_STATUS = {"agrees": "agrees", "erratum": "erratum", "explained": "EXPLAINED", "differs": "DIFFERS", "stale-erratum": "STALE"}


def add_command(commands) -> None:
    audit = commands.add_parser(
        "audit",
        help="recompute the claims of audit files (printed numbers) and report which hold",
        description="Exit 0 when every claim agrees with its data or is a known erratum; 1 otherwise. "
                    "A claim that differs is recomputed under the usual other conventions (transposed "
                    "matrix, other positive class, averaging, relatives, zero division, percent): "
                    "EXPLAINED names the ones that give the printed number (still exit 1).",
    )
    audit.add_argument("files", nargs="*", metavar="FILE", help="audit files or folders (default: ./audits)")
    audit.add_argument("--format", choices=tuple(FORMATS), default="text")
    audit.add_argument("--errata", metavar="FILE",
                       help="the errata whose ids claims may name (default: docs/errata.yaml beside the specs folder)")
    audit.set_defaults(run=_cmd_audit)


def _files(given: list[str]) -> list[Path]:
    paths = [Path(g) for g in given] or [Path("audits")]
    files = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(path.glob("*.yaml")))
        elif path.is_file():
            files.append(path)
        else:
            raise InputError("files", f"{path} is neither an audit file nor a folder" + ("" if given else " (give FILE)"))
    if not files:
        raise InputError("files", f"no .yaml audit files in {', '.join(map(str, paths))}")
    return files


def _line(result) -> str:
    from metricc.audit.claims import format_value
    from metricc.audit.conventions import describe

    where = f"{Path(result.file).name}:{result.line}"
    text = f"{where:<18} {_STATUS[result.status]:<8} {result.metric:<24} printed {result.printed:<22} recomputed {format_value(result.recomputed)}"
    if result.erratum:
        text += f"  [erratum {result.erratum}]"
    text += f"  {result.source}" + (f": {result.where}" if result.where else "")
    if result.explained_by:
        others = "".join(f"; or {describe(a)}" for a in result.alternatives)
        text += f"\n{'':<18} the printed value is reproduced {describe(result.explained_by)}{others}"
    if result.coincides_with:
        shown = ", ".join(_variant(c) for c in result.coincides_with[:5])
        more = f" and {len(result.coincides_with) - 5} more" if len(result.coincides_with) > 5 else ""
        text += f"\n{'':<18} other catalog metrics give the printed value: {shown}{more}"
    return text


def _variant(change: dict) -> str:
    return change["metric"] + (f" [{change['average']}]" if "average" in change else "")


def _errata_ids(given: str | None) -> frozenset:
    """The erratum ids a claim may name: ``--errata FILE``, else the catalog's errata file."""
    from metricc.cli.paths import spec_dir
    from metricc.compiler.errors import SpecError
    from metricc.compiler.language.load import load_errata

    if given is not None:
        path = Path(given)
        if not path.is_file():
            raise InputError("--errata", f"not a file: {given}")
        folder = path.parent.parent / "specs"  # load_errata reads FOLDER/../docs/errata.yaml
        if path.name != "errata.yaml" or path.parent.name != "docs":
            raise InputError("--errata", f"{given}: expected a docs/errata.yaml file")
    else:
        folder = spec_dir(None)
    try:
        return frozenset(entry["id"] for entry in load_errata(folder))
    except SpecError as error:
        raise InputError("--errata", error.render()) from None


def _cmd_audit(args) -> int:
    from metricc.audit.claims import audit_file, format_value

    errata = _errata_ids(args.errata)
    results = [result for path in _files(args.files) for result in audit_file(path, errata)]
    counts = {status: sum(r.status == status for r in results) for status in _STATUS}
    summary = (f"{len(results)} claims: {counts['agrees']} agree, {counts['erratum']} are known errata, "
               f"{counts['explained']} differ but another convention explains them, "
               f"{counts['differs']} differ, {counts['stale-erratum']} name an erratum but agree")
    rows = tuple((f"{Path(r.file).name}:{r.line}", r.status, r.metric, r.printed, format_value(r.recomputed),
                  r.erratum or "", r.source + (f": {r.where}" if r.where else "")) for r in results)
    document = Result(
        "Audit of printed claims",
        [{**r.__dict__, "alternatives": list(r.alternatives), "coincides_with": list(r.coincides_with)} for r in results],
        (Table(("claim", "status", "metric", "printed", "recomputed", "erratum", "source"), rows, "Claims"),
         Note(summary)),
        {"text": lambda digits: "\n".join([*(_line(r) for r in results), summary])})
    print(render(document, args.format).rstrip("\n"))
    return 0 if all(r.ok for r in results) else 1
