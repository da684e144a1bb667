"""Tests for the validate stage, with golden invalid specs and their exact diagnostics.

Each ``tests/compiler/language/specs_invalid/NAME.yaml`` has a sibling ``NAME.expected`` holding the rendered
diagnostics (``Diagnostic.render()`` joined by newlines) of loading and validating it from
the repository root, whichever stage rejects it.
"""

from __future__ import annotations

import doctest
import json
import re
import shutil
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from metricc import cli
from metricc.compiler import errors
from metricc.compiler.language import limits, load, validate

REPO = Path(__file__).resolve().parents[3]
INVALID = REPO / "tests" / "compiler" / "language" / "specs_invalid"
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
        validate.validate(load.load_spec(f"tests/compiler/language/specs_invalid/{name}.yaml"))
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
        validate.validate(load.load_spec("tests/compiler/language/specs_invalid/multiple_errors.yaml"))
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


# --- hostile specs (issue 13): names, formula texts, the CLI's exit code --------------------


@pytest.mark.parametrize("name", FIXTURES)
def test_cli_reports_each_fixture_once_as_a_spec_error(name, tmp_path, monkeypatch, capsys):
    """`metricc check` and `metricc build` exit 1 (bad spec) with the fixture's diagnostics, no traceback."""
    (tmp_path / name).mkdir()
    shutil.copy(INVALID / f"{name}.yaml", tmp_path / name / f"{name}.yaml")
    expected = (INVALID / f"{name}.expected").read_text(encoding="utf-8")
    expected = expected.replace("tests/compiler/language/specs_invalid/", f"{name}/")
    monkeypatch.chdir(tmp_path)
    for argv in (["check", name], ["build", "--specs", name, "--out", "out"]):
        code = cli.main(argv)
        out, err = capsys.readouterr()
        assert (code, out, err) == (1, "", expected), argv
    assert not (tmp_path / "out").exists()


def test_schema_patterns_refuse_a_trailing_line_break():
    """jsonschema matches patterns with re.search, where a bare $ matches before a final
    line break: every pattern must refuse "name\n" ("zz_o\n" once emitted a broken module)."""
    patterns = set()

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                patterns.add(node["pattern"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(validate.schema())
    names = patterns - {"\\S"}  # the formula pattern only asks for a non-blank text
    assert names == set(validate._PATTERNS)
    for pattern in names:
        examples = (("[0, 1)", "(-inf, 2.5]") if "inf" in pattern  # intervals of interpretation bands
                    else ("j", "k") if pattern.startswith("^[a-moq-su-z]") else ("abc", "s_2"))  # per_class: one letter
        for good in examples:
            assert re.search(pattern, good)
            assert not re.search(pattern, good + "\n") and not re.search(pattern, good + "\n\n")
            assert not re.search(pattern, "\n" + good)


@pytest.mark.parametrize("where", ["id", "alias", "param", "let"])
def test_names_ending_in_a_line_break_are_refused(tmp_path, where):
    text = MINIMAL.format(id="m", extra="level: matrix\n")
    if where == "id":
        text = text.replace("id: m", 'id: "m\\n"')
    elif where == "alias":
        text = text.replace("name:", 'aliases: ["m2\\n"]\nname:')
    elif where == "param":
        text = text.replace("level:", 'params:\n  "w\\n": {kind: scalar, default: 1}\nlevel:')
    else:
        text = text.replace("level:", 'let:\n  "s[j]\\n": M[j, j]\nlevel:')
    found = problems(tmp_path, text, "m")
    assert any("snake_case" in p for p in found), found


FORMULA_PLACES = {
    "formula": "formula: {f}\n",
    "let": "let:\n  s: {f}\n",
    "default": "params:\n  w:\n    kind: class_vector\n    default: {f}\n",
    "domain": "params:\n  b:\n    kind: scalar\n    default: 1\n    domain: {f}\n",
    "scale": "conditioning:\n  scale: {f}\n  reason: r\n",
}


def formula_spec(place: str, formula: str) -> str:
    """A matrix-level spec whose formula text at ``place`` is ``formula`` (YAML as written)."""
    text = MINIMAL.format(id="m", extra="level: matrix\n")
    if place == "formula":
        return text.replace("formula: TP / n\n", FORMULA_PLACES[place].format(f=formula))
    return text.replace("level:", FORMULA_PLACES[place].format(f=formula) + "level:")


@pytest.mark.parametrize("place", FORMULA_PLACES)
def test_hash_in_any_formula_text_is_refused(tmp_path, place):
    assert problems(tmp_path, formula_spec(place, '"n #1"'), "m") == [
        f"{_key(place)}: '#' is not allowed in a formula (Python would read the rest as a comment); remove it"
    ]
    comment = problems(tmp_path, formula_spec(place, "n # 1"), "m")
    assert comment == [f"{_key(place)}: a comment after a formula on the same line is ambiguous: "
                       "move it to its own line"]


def test_comment_on_its_own_line_or_after_a_quoted_formula_is_fine(tmp_path):
    text = MINIMAL.format(id="m", extra="").replace("formula: TP / n\n", "# why\nformula: 'TP / n'  # note\n")
    check(tmp_path, text.replace("range", "averages: [macro]\ndefault_average: macro\nrange"), "m")


def test_formula_size_limits(tmp_path):
    longest = "n" + " + n" * ((limits.MAX_FORMULA_CHARS - 1) // 4)
    assert len(longest) <= limits.MAX_FORMULA_CHARS
    check(tmp_path, formula_spec("formula", longest), "m")
    too_long = problems(tmp_path, formula_spec("let", longest + " + n"), "m")
    assert too_long == [f"$.let.s: formula too long: {len(longest) + 4:,} characters, more than the "
                        f"{limits.MAX_FORMULA_CHARS:,} allowed in a formula"]
    digits = limits.MAX_NUMBER_DIGITS
    check(tmp_path, formula_spec("formula", f"n / {'9' * (digits - 3)}.5e-9 + x{'1' * 99} + 0.5"), "m")
    for number in (f"1{'0' * digits}", f"{'9' * 10}.{'9' * 21}", f"1.{'0' * 28}e-99", f".{'1' * digits}5"):
        assert problems(tmp_path, formula_spec("scale", f"n + {number}"), "m") == [
            f"$.conditioning.scale: number too long: {digits + 1} digits, more than the {digits} allowed in a number"
        ]


def _key(place: str) -> str:
    return {"formula": "$.formula", "let": "$.let.s", "default": "$.params.w.default",
            "domain": "$.params.b.domain", "scale": "$.conditioning.scale"}[place]


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path
