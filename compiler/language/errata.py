"""The errata of the papers behind the specs: ``docs/errata.yaml`` beside the specs folder.

Read with the specs' strict YAML; every entry is checked for its text fields and for
repeating another (one entry per finding), each problem at its line.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from metricc.compiler.errors import Diagnostic, Location, SchemaError
from metricc.compiler.language.strict_yaml import load_data_file

__all__ = ["ERRATA_FIELDS", "load_errata"]

# Every erratum of ``docs/errata.yaml`` is a mapping with these text fields.
ERRATA_FIELDS = ("id", "paper", "location", "kind", "printed", "correct", "evidence", "resolution")


def load_errata(spec_dir: Path) -> list[dict]:
    """``docs/errata.yaml`` beside the specs folder (the project layout), if present.

    A list of entries, each a mapping with the string fields ``ERRATA_FIELDS``.
    """
    path = Path(spec_dir).parent / "docs" / "errata.yaml"
    if not path.is_file():
        return []
    shown = f"{Path(spec_dir).parent.name}/docs/errata.yaml" if Path(spec_dir).parent.name else "docs/errata.yaml"
    text = path.read_text(encoding="utf-8")
    entries = load_data_file(text, shown) or []
    problems = []
    if not isinstance(entries, list):
        entries, problems = [], [Diagnostic(Location(shown, 1, 1), "$", "errata must be a list of entries")]
    positions = _errata_positions(text)
    for number, entry in enumerate(entries):
        missing = [f for f in ERRATA_FIELDS if not isinstance(entry, dict) or not isinstance(entry.get(f), str)]
        if missing:
            line, column = positions[number].get("", (1, 1))
            problems.append(Diagnostic(Location(shown, line, column), f"$[{number}]", f"each erratum needs the text fields {', '.join(missing)}"))
    if not problems:
        problems = _duplicate_errata(entries, positions, shown)
    if problems:
        raise SchemaError(problems)
    return entries


def _errata_positions(text: str) -> list[dict[str, tuple[int, int]]]:
    """Per entry, the (line, column) of the entry ("") and of each key's value."""
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    if not isinstance(root, yaml.SequenceNode):
        return []
    positions = []
    for item in root.value:
        here = {"": (item.start_mark.line + 1, item.start_mark.column + 1)}
        if isinstance(item, yaml.MappingNode):
            here.update({k.value: (v.start_mark.line + 1, v.start_mark.column + 1) for k, v in item.value if isinstance(k, yaml.ScalarNode)})
        positions.append(here)
    return positions


def _same_text(text: str) -> str:
    """Text compared for duplicates: case, blanks and multiplication signs do not matter."""
    return re.sub(r"[\s*]+", "", text).casefold()


def _duplicate_errata(entries: list[dict], positions: list[dict], shown: str) -> list[Diagnostic]:
    """One erratum per id and per finding: a second entry with the same id, or the same paper
    and the same location or printed text, is an error at the second entry's key."""
    problems = []
    seen: dict[tuple[str, ...], int] = {}
    for number, entry in enumerate(entries):
        keys = {"id": (entry["id"].strip(),),
                "location": (_same_text(entry["paper"]), _same_text(entry["location"])),
                "printed": (_same_text(entry["paper"]), _same_text(entry["printed"]))}
        for field_name, key in keys.items():
            first = seen.setdefault((field_name, *key), number)
            if first != number:
                line, column = positions[number][field_name]
                problems.append(Diagnostic(Location(shown, line, column), f"$[{number}].{field_name}",
                                           f"erratum '{entry['id']}' repeats the {field_name} of erratum '{entries[first]['id']}' "
                                           f"(line {positions[first][field_name][0]}): keep one entry per finding"))
    return problems
