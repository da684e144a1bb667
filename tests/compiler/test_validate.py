"""Tests for the validate stage, with golden invalid specs and their exact diagnostics.

Each ``tests/compiler/specs_invalid/NAME.yaml`` has a sibling ``NAME.expected`` holding the rendered
diagnostics (``Diagnostic.render()`` joined by newlines) of loading and validating it from
the repository root, whichever stage rejects it.
"""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from metricc.compiler import errors
from metricc.compiler.language import load, validate

REPO = Path(__file__).resolve().parents[2]
INVALID = REPO / "tests" / "compiler" / "specs_invalid"
FIXTURES = sorted(p.stem for p in INVALID.glob("*.yaml"))

F_BETA = """\
id: f_beta
name: F-beta score
aliases: [f_measure]
description: Weighted harmonic mean of precision and recall.
references:
  - "Kozak et al. 2022, Eq. 8"
level: class
params:
  beta:
    kind: scalar
    default: 1
    domain: "beta > 0"
    description: Weight of recall relative to precision.
formula: (1 + beta**2) * precision * recall / (beta**2 * precision + recall)
averages: [none, binary, micro, macro, weighted]
default_average: macro
range: [0, 1]
higher_is_better: true
"""

MINIMAL = """\
id: {id}
name: Minimal
description: Only the required keys.
references: ["Nobody 2024"]
formula: TP / n
{extra}range: [0, 1]
higher_is_better: false
"""


def check(tmp_path: Path, text: str, name: str = "f_beta") -> load.SourceSpec:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return validate.validate(load.load_spec(path))


def problems(tmp_path: Path, text: str, name: str = "f_beta") -> list[str]:
    """``key: message`` of every diagnostic."""
    with pytest.raises(errors.SchemaError) as info:
        check(tmp_path, text, name)
    return [f"{d.key}: {d.message}" for d in info.value.diagnostics]


@pytest.mark.parametrize("name", FIXTURES)
def test_invalid_fixture(name, monkeypatch):
    monkeypatch.chdir(REPO)
    expected = (INVALID / f"{name}.expected").read_text(encoding="utf-8").rstrip("\n")
    with pytest.raises(errors.SpecError) as info:
        validate.validate(load.load_spec(f"tests/compiler/specs_invalid/{name}.yaml"))
    assert "\n".join(d.render() for d in info.value.diagnostics) == expected


def test_every_fixture_has_expected_output():
    expected = sorted(p.stem for p in INVALID.glob("*.expected"))
    assert expected == FIXTURES
    assert len(FIXTURES) >= 14


def test_valid_specs(tmp_path):
    spec = load.load_spec(_write(tmp_path, "f_beta", F_BETA))
    assert validate.validate(spec) is spec
    extra = "averages: [macro]\ndefault_average: macro\n"
    check(tmp_path, MINIMAL.format(id="minimal", extra=extra), "minimal")
    for level in ("aggregate", "matrix"):
        check(tmp_path, MINIMAL.format(id="m", extra=f"level: {level}\n"), "m")


def test_range_bounds_and_let_names(tmp_path):
    extra = (
        "level: matrix\n"
        "let:\n  s[j]: M[j, j]\n  q[i,j]: M[i, j]\n  total: n\n"
        "params:\n  w:\n    kind: class_vector\n    default: TP + FN\n"
    )
    text = MINIMAL.format(id="m", extra=extra).replace("[0, 1]", '["-inf", inf]')
    assert check(tmp_path, text, "m").data["range"] == ["-inf", "inf"]
    text = MINIMAL.format(id="m", extra="level: matrix\n").replace("[0, 1]", "[inf, 0]")
    assert problems(tmp_path, text, "m") == [
        "$.range: low bound inf must be less than high bound 0; write [low, high]"
    ]


def test_hostile_strings_are_plain_data(tmp_path):
    hostile = [
        "{{ config.__class__.__init__.__globals__ }}",
        "{% for x in y %}",
        "<% x %> <<x>> \\\\end{document} \\\\input{/etc/passwd}",
        "'''\\\"\\\"\\\" __import__('os').system('rm -rf /')",
        "'; DROP TABLE specs; --",
        "\\x1b[31m red \\u202e reversed \\0 nul",
    ]
    references = "".join(f'  - "{h}"\n' for h in hostile)
    text = F_BETA.replace('  - "Kozak et al. 2022, Eq. 8"\n', references)
    text = text.replace("name: F-beta score", f'name: "{hostile[0]}"')
    spec = check(tmp_path, text)
    assert spec.data["references"][5] == "\x1b[31m red \u202e reversed \0 nul"
    assert spec.data["name"] == hostile[0]


def test_unknown_key_suggestions(tmp_path):
    text = F_BETA.replace("formula:", "formla:").replace("level: class", "levle: class")
    assert problems(tmp_path, text) == [
        "$: missing required key 'formula'",
        "$.levle: unknown key; did you mean 'level'?",
        "$.formla: unknown key; did you mean 'formula'?",
    ]


def test_messages_never_dump_big_objects(tmp_path):
    text = F_BETA.replace("level: class", "level: {a: [1, 2, 3], b: {c: d}}")
    text = text.replace("name: F-beta score", "name: [" + ", ".join(["x" * 20] * 10) + "]")
    messages = problems(tmp_path, text)
    assert messages == [
        "$.name: expected a string, got a list",
        "$.level: a mapping is not one of class, aggregate, matrix, curve, score",
    ]


def test_class_level_requires_averages(tmp_path):
    text = F_BETA.replace("averages: [none, binary, micro, macro, weighted]\n", "")
    assert problems(tmp_path, text) == [
        "$: missing required key 'averages' (required for level 'class')"
    ]


def test_diagnostics_sorted_by_location(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    with pytest.raises(errors.SchemaError) as info:
        validate.validate(load.load_spec("tests/compiler/specs_invalid/multiple_errors.yaml"))
    positions = [(d.location.line, d.location.column) for d in info.value.diagnostics]
    assert positions == sorted(positions)
    assert len(positions) > 10


def test_schema_is_valid_draft_2020_12():
    schema = json.loads((REPO / "specs" / "schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] and schema["title"]
    assert schema == validate.schema()


def test_schema_objects_are_closed():
    """additionalProperties is false (or a schema for maps) wherever properties are listed."""

    def walk(node):
        if isinstance(node, dict):
            if node.get("type") == "object":
                assert "additionalProperties" in node, node
            yield node
            for value in node.values():
                yield from walk(value)
        elif isinstance(node, list):
            for value in node:
                yield from walk(value)

    nodes = list(walk(validate.schema()))
    closed = [n for n in nodes if "properties" in n and n.get("type") == "object"]
    assert closed and all(n["additionalProperties"] is False for n in closed)


def test_shipped_specs_are_valid(monkeypatch):
    monkeypatch.chdir(REPO)
    for spec in load.load_catalog("specs"):
        validate.validate(spec)


def test_doctests():
    assert doctest.testmod(validate).failed == 0


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path
