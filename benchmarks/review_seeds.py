"""How much of the hand-written audits does ``metricc review`` find on its own?

Reviews the five source papers (``/work/shared/seeds``, or ``--seeds DIR``) and compares the
findings with what people recorded by hand:

- every claim of ``audits/<first author>.yaml`` (a number printed for a printed matrix):
  found when a number finding recomputed on that matrix reads the same printed value, ``ok``
  for a claim that holds and failed (wrong or explained) for a claim with an erratum;
- every erratum of ``docs/errata.yaml`` of the paper that a review can see (every kind but
  ``text``, prose against prose): found when a failed finding points at it (the equation
  number, or a number the erratum quotes as printed).

The paper of a seed file is its row of the seeds' README (first author's surname). Nothing
of the papers' text is special-cased here or in the review. Prints the fractions found, the
misses, and the failed findings that no record names (new finds or false alarms, to read).

    python benchmarks/review_seeds.py                # about a minute per paper with formulas
    python benchmarks/review_seeds.py --no-formulas  # seconds
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT.parent))

from metricc.audit.conventions import RELATIVES  # noqa: E402
from metricc.audit.review import review_file  # noqa: E402
from metricc.audit.review_numbers import arithmetic, printed_number  # noqa: E402

PROSE = ("text",)  # prose against prose: nothing a review recomputes


def authors(seeds: Path) -> dict[str, str]:
    """Seed file -> first author's surname, from the README's table."""
    found = {}
    for line in (seeds / "README.md").read_text(encoding="utf-8").splitlines():
        match = re.match(r"\|\s*(\S+\.txt)\s*\|\s*([^|]+)\|", line)
        if match:
            found[match.group(1)] = match.group(2).split(",")[0].split(".")[0].split()[0].strip()
    return found


def _value(text: str) -> tuple[float, float] | None:
    """The value a finding's printed text ends with, and the tolerance its digits allow."""
    text = text.split("=")[-1].strip()
    number = printed_number(text)
    if number is not None:
        return number.value, number.tolerance
    exact = arithmetic(text)
    return (float(exact), 1e-9) if exact is not None else None


def _same(finding, target: float, tolerance: float) -> bool:
    """The finding reads the claim's number: within the looser of the two printed precisions
    (the audit writes 11/15 as 0.733333333333 where the paper prints 0.733)."""
    read = _value(finding.printed)
    return read is not None and abs(read[0] - target) <= max(tolerance, read[1]) + 1e-9


def _related(a: str, b: str) -> bool:
    return a == b or any(a in group and b in group for group in RELATIVES)


def claims_found(report, audit: Path):
    """(claim description, found, flagged-by-mistake) for every claim of the audit file."""
    out = []
    for example in yaml.safe_load(audit.read_text(encoding="utf-8")):
        matrix = example.get("matrix")
        for claim in example.get("claims", []):
            label = f"{example.get('source', '?')}: {claim['metric']}" + (f" [{claim['average']}]" if claim.get("average") else "") \
                + f" = {claim['printed']}"
            if matrix is None or isinstance(claim["printed"], list):
                out.append((label, False, False))
                continue
            printed = printed_number(str(claim["printed"]))
            tolerance = claim.get("tolerance", printed.tolerance if printed else 1e-9)
            target = printed.value if printed else None
            hits = [f for f in report.findings if f.kind == "number" and f.matrices
                    and [list(r) for r in f.matrices[0]] == matrix and f.metric and _related(f.metric, claim["metric"])
                    and target is not None and _same(f, target, tolerance)]
            wanted_failed = bool(claim.get("erratum"))
            out.append((label, any(f.failed == wanted_failed for f in hits), any(f.failed != wanted_failed for f in hits)))
    return out


def _numbers(text: str) -> set[str]:
    text = re.sub(r"\\frac\{(\d+)\}\{(\d+)\}", r"\1/\2", text)
    return set(re.findall(r"\d+/\d+|\d+\.\d+", text))


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _conflicting(finding) -> list[str]:
    """The metrics of a failed score table's smallest conflicting sets."""
    tail = finding.sentence.partition("cannot hold together: ")[2].partition(" (totals from")[0]
    return [part.split(":")[0] for group in tail.split("; ") for part in group.split(" + ") if part]


def errata_found(report, errata: list[dict]):
    """(erratum, the failed finding that points at it or None), and the failed findings no
    erratum names. An equation erratum: a failed formula finding of that equation number (or
    of the table row it names); a number: the failed finding that quotes most of the numbers
    the erratum quotes as printed, or a failed score table whose conflicting scores include a
    metric the erratum's location names."""
    out, used = [], set()
    failed = [f for f in report.findings if f.failed]
    for erratum in errata:
        hit = None
        if erratum["kind"] in ("equation", "formula"):
            numbers = set(re.findall(r"Eq\.?\s*\(?(\d+(?:\.\d+)?)\)?", erratum["location"]))
            hit = next((f for f in failed if f.kind == "formula" and f.name.removeprefix("Eq. (").rstrip(")") in numbers), None)
            if hit is None:
                hit = next((f for f in failed if f.kind == "formula" and f.name.startswith("Table")
                            and f.name in erratum["location"] and f.metric and f.metric.split()[0] in erratum["id"]), None)
        if hit is None:
            quoted = _numbers(erratum["printed"])
            scored = [(len(quoted & _numbers(f.printed)), -i, f) for i, f in enumerate(failed)
                      if f.kind in ("number", "consistency")]
            best = max(scored, key=lambda t: t[:2], default=(0, 0, None))
            hit = best[2] if best[0] else None
        if hit is None:
            location = _key(erratum["location"])
            hit = next((f for f in failed if f.kind == "consistency" and any(_key(m) in location for m in _conflicting(f))), None)
        if hit is not None:
            used.add(id(hit))
        out.append((erratum, hit))
    unnamed = [f for f in failed if id(f) not in used]
    return out, unnamed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="/work/shared/seeds", type=Path)
    parser.add_argument("--no-formulas", action="store_true", help="skip identify (numbers and tables only)")
    args = parser.parse_args(argv)
    errata = yaml.safe_load((ROOT / "docs" / "errata.yaml").read_text(encoding="utf-8"))
    totals = {"claims": [0, 0], "false": 0, "errata": [0, 0], "text": 0}
    for name, author in sorted(authors(args.seeds).items()):
        start = time.process_time()
        report = review_file(args.seeds / name, formulas=not args.no_formulas, progress=True)
        cpu = time.process_time() - start
        summary = report.summary()
        print(f"\n== {name} ({author}): {len(report.findings)} findings, {summary['status']}, {cpu:.1f} s CPU")
        audit = ROOT / "audits" / f"{author.lower()}.yaml"
        if audit.exists():
            found = claims_found(report, audit)
            hits = sum(f for _, f, _ in found)
            mistakes = sum(m for _, _, m in found)
            totals["claims"][0] += hits
            totals["claims"][1] += len(found)
            totals["false"] += mistakes
            print(f"   audit claims found: {hits}/{len(found)}; claims flagged though the audit says they hold: {mistakes}")
            for label, hit, _ in found:
                if not hit:
                    print(f"     missed claim: {label}")
        mine = [e for e in errata if author.lower() in e["paper"].lower()]
        checkable = [e for e in mine if e["kind"] not in PROSE]
        matched, unnamed = errata_found(report, checkable)
        hits = sum(hit is not None for _, hit in matched)
        totals["errata"][0] += hits
        totals["errata"][1] += len(checkable)
        totals["text"] += len(mine) - len(checkable)
        print(f"   errata found: {hits}/{len(checkable)} (and {len(mine) - len(checkable)} prose errata a review cannot see)")
        for erratum, hit in matched:
            print(f"     {'found' if hit else 'MISSED'} {erratum['id']}" + (f" at line {hit.line}" if hit else ""))
        for finding in unnamed:
            print(f"     flagged, no record names it: line {finding.line} {finding.kind} {finding.status}: {finding.sentence[:140]}")
    claims, errata_hits = totals["claims"], totals["errata"]
    print(f"\nTOTAL: audit claims found {claims[0]}/{claims[1]} ({claims[0] / max(1, claims[1]):.0%}), "
          f"claims that hold but were flagged {totals['false']}; "
          f"errata found {errata_hits[0]}/{errata_hits[1]} ({errata_hits[0] / max(1, errata_hits[1]):.0%}); "
          f"{totals['text']} prose errata not counted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
