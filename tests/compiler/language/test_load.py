"""Tests for the load stage: plain data, source locations, forbidden YAML features."""

from __future__ import annotations

import dataclasses
import doctest
from pathlib import Path

import pytest

from metricc.compiler import errors
from metricc.compiler.language import limits, load, positions

REPO = Path(__file__).resolve().parents[3]
INVALID = REPO / "tests" / "compiler" / "language" / "specs_invalid"

# Fixtures in tests/specs_invalid that fail while loading (the others load, then fail
# validation); their expected diagnostics are checked in test_compiler_validate.py.
YAML_STAGE = [
    "anchors",
    "bad_yaml",
    "control_character",
    "duplicate_key",
    "empty",
    "explicit_tag",
    "float_out_of_range",
    "multiple_documents",
    "nesting_too_deep",
    "non_string_key",
    "not_a_mapping",
    "not_utf8",
    "number_too_long",
    "tab_before_comment",
    "tab_indentation",
]

PRECISION = """\
id: precision
name: Precision
description: Fraction of predicted positives that are correct.
references:
  - "Sokolova and Lapalme 2009, Table 3"
params:
  beta:
    kind: scalar
    default: 1
formula: TP / (TP + FP)
averages: [none, macro]
default_average: macro
range: [0, 1]
higher_is_better: true
"""


def write(tmp_path: Path, text: str | bytes, name: str = "precision.yaml") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def scalar_spec(tmp_path: Path, body: str) -> load.SourceSpec:
    """A file whose ``value`` key holds the scalar written as ``body``."""
    return load.load_spec(write(tmp_path, "value: " + body, "s.yaml"))


def char_at(spec: load.SourceSpec, location: errors.Location) -> str:
    line = spec.text.splitlines()[location.line - 1]
    return line[location.column - 1 : location.column]


def test_plain_data_and_locations(tmp_path):
    spec = load.load_spec(write(tmp_path, PRECISION))
    assert spec.data["params"] == {"beta": {"kind": "scalar", "default": 1}}
    assert spec.data["references"] == ["Sokolova and Lapalme 2009, Table 3"]
    assert spec.data["higher_is_better"] is True
    assert spec.data["range"] == [0, 1]
    default = spec.locate(("params", "beta", "default"))
    assert (default.line, default.column, default.line_text) == (9, 14, "    default: 1")
    assert spec.locate(("references", 0)).column == 5
    assert spec.locate_key(("params", "beta")).column == 3
    assert spec.locate(()).line == 1


def test_locate_falls_back_to_nearest_ancestor(tmp_path):
    spec = load.load_spec(write(tmp_path, PRECISION))
    assert spec.locate(("params", "beta", "domain")) == spec.locate(("params", "beta"))
    assert spec.locate(("nothing", "here")) == spec.locate(())


def test_key_name():
    assert load.SourceSpec.key_name(()) == "$"
    assert load.SourceSpec.key_name(("params", "beta", "default")) == "$.params.beta.default"
    assert load.SourceSpec.key_name(("references", 0)) == "$.references[0]"
    assert load.SourceSpec.key_name(("let", "s[j]")) == "$.let['s[j]']"
    assert load.SourceSpec.key_name(("x\x1b",)) == "$['x\\x1b']"


def test_source_spec_is_frozen(tmp_path):
    spec = load.load_spec(write(tmp_path, PRECISION))
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.path = "other.yaml"  # type: ignore[misc]
    with pytest.raises(TypeError):
        spec.locations[("id",)] = spec.locate(())  # type: ignore[index]


def test_path_is_kept_as_given(tmp_path, monkeypatch):
    write(tmp_path, PRECISION)
    monkeypatch.chdir(tmp_path)
    spec = load.load_spec("precision.yaml")
    assert spec.path == "precision.yaml"
    assert str(spec.locate(("formula",))) == "precision.yaml:10:10"


def test_scalars_resolve_with_the_yaml_1_2_core_schema(tmp_path):
    text = "a: 1.5\nb: true\nc: ~\nd: '1'\ne: 2024-01-02\nf: 0x10\ng: -.inf\n"
    data = load.load_spec(write(tmp_path, text, "s.yaml")).data
    assert data["a"] == 1.5 and data["b"] is True and data["c"] is None and data["d"] == "1"
    assert data["e"] == "2024-01-02"  # dates stay the text written: specs are JSON-like
    assert data["f"] == 16 and data["g"] == float("-inf")


def test_bom_and_crlf(tmp_path):
    spec = load.load_spec(write(tmp_path, b"\xef\xbb\xbfid: x\r\nname: y\r\n", "s.yaml"))
    assert spec.data == {"id": "x", "name": "y"}
    location = spec.locate(("name",))
    assert (location.line, location.column, location.line_text) == (2, 7, "name: y")
    assert spec.locate(("id",)).column == 5


# --- locate_in_value -----------------------------------------------------------------------


def test_locate_in_plain_scalar(tmp_path):
    spec = scalar_spec(tmp_path, "TP / (TP + FP)\n")
    location = spec.locate_in_value(("value",), 6)
    assert (location.line, location.column) == (1, 14)
    assert char_at(spec, location) == "T"
    # Just past the end, e.g. for "unexpected end of formula"; larger offsets are clamped.
    assert spec.locate_in_value(("value",), 14).column == 8 + 14
    assert spec.locate_in_value(("value",), 99).column == 8 + 14


@pytest.mark.parametrize(
    "body, offset, char",
    [
        ("'TP / n'\n", 5, "n"),
        ("'it''s n'\n", 5, "n"),  # '' is one quote in the value
        ('"TP / n"\n', 5, "n"),
        ('"a\\tb + n"\n', 6, "n"),  # \t is one character in the value
        ('"\\x41 + n"\n', 4, "n"),
    ],
)
def test_locate_in_quoted_scalar(tmp_path, body, offset, char):
    spec = scalar_spec(tmp_path, body)
    assert spec.data["value"][offset] == char
    assert char_at(spec, spec.locate_in_value(("value",), offset)) == char


def test_locate_in_literal_block(tmp_path):
    spec = scalar_spec(tmp_path, "|\n  TP / n\n    + FP\n")
    assert spec.data["value"] == "TP / n\n  + FP\n"
    location = spec.locate_in_value(("value",), spec.data["value"].index("FP"))
    assert (location.line, location.column) == (3, 7)
    assert spec.locate_in_value(("value",), 0).line == 2


def test_locate_in_folded_block(tmp_path):
    spec = scalar_spec(tmp_path, ">-\n  TP / (TP\n  + FP)\n\n  * n\n")
    value = spec.data["value"]
    assert value == "TP / (TP + FP)\n* n"
    for offset, ch in enumerate(value):
        location = spec.locate_in_value(("value",), offset)
        if not ch.isspace():
            assert char_at(spec, location) == ch, offset
    assert spec.locate_in_value(("value",), value.index("n")).line == 5


def test_locate_in_multiline_flow_scalars(tmp_path):
    spec = scalar_spec(tmp_path, '"TP /\n  (TP + \\\n  FP)"\n')
    value = spec.data["value"]
    assert value == "TP / (TP + FP)"
    location = spec.locate_in_value(("value",), value.index("FP"))
    assert (location.line, location.column) == (3, 3)
    spec = scalar_spec(tmp_path, "TP /\n  n\n")
    location = spec.locate_in_value(("value",), 5)
    assert (location.line, location.column, char_at(spec, location)) == (2, 3, "n")


def test_locate_in_value_of_number_and_missing_path(tmp_path):
    spec = load.load_spec(write(tmp_path, PRECISION))
    assert spec.locate_in_value(("params", "beta", "default"), 0).column == 14
    assert spec.locate_in_value(("params", "beta"), 3) == spec.locate(("params", "beta"))
    assert spec.locate_in_value(("nope",), 0) == spec.locate(())
    with pytest.raises(ValueError):
        spec.locate_in_value(("formula",), -1)


# --- forbidden YAML ------------------------------------------------------------------------


@pytest.mark.parametrize("name", YAML_STAGE)
def test_yaml_stage_fixtures_fail_while_loading(name, monkeypatch):
    monkeypatch.chdir(REPO)
    with pytest.raises(errors.YamlSyntaxError) as info:
        load.load_spec(f"tests/compiler/language/specs_invalid/{name}.yaml")
    assert all(d.location.file == f"tests/compiler/language/specs_invalid/{name}.yaml"
               for d in info.value.diagnostics)


def test_other_fixtures_load(monkeypatch):
    monkeypatch.chdir(REPO)
    names = sorted(p.stem for p in INVALID.glob("*.yaml"))
    assert set(YAML_STAGE) <= set(names)
    for name in sorted(set(names) - set(YAML_STAGE)):
        load.load_spec(f"tests/compiler/language/specs_invalid/{name}.yaml")


def test_duplicate_key_names_key_and_both_lines(tmp_path):
    with pytest.raises(errors.YamlSyntaxError) as info:
        load.load_spec(write(tmp_path, "id: a\nname: b\nid: c\n", "s.yaml"))
    (diagnostic,) = info.value.diagnostics
    assert diagnostic.key == "$.id"
    assert "'id'" in diagnostic.message and "lines 1 and 3" in diagnostic.message
    assert diagnostic.location.line == 3


def test_all_problems_of_a_file_are_collected(tmp_path):
    text = "a: &x 1\nb: *x\nc: 1\nc: 2\n3: d\n"
    with pytest.raises(errors.YamlSyntaxError) as info:
        load.load_spec(write(tmp_path, text, "s.yaml"))
    lines = [d.location.line for d in info.value.diagnostics]
    assert lines == [1, 2, 4, 5]


def test_empty_file(tmp_path):
    with pytest.raises(errors.YamlSyntaxError, match="file is empty"):
        load.load_spec(write(tmp_path, "", "s.yaml"))


def test_unknown_tags_are_rejected(tmp_path):
    with pytest.raises(errors.YamlSyntaxError, match="tag"):
        load.load_spec(write(tmp_path, "a: !!python/object:os.system x\n", "s.yaml"))
    with pytest.raises(errors.YamlSyntaxError, match="tag"):
        load.load_spec(write(tmp_path, "a: !!set {x}\n", "s.yaml"))


# --- catalog -------------------------------------------------------------------------------


def test_load_catalog_sorted(tmp_path):
    for name in ("recall", "accuracy", "precision"):
        write(tmp_path, f"id: {name}\n", f"{name}.yaml")
    write(tmp_path, "not a spec", "notes.txt")
    specs = load.load_catalog(tmp_path)
    assert [s.data["id"] for s in specs] == ["accuracy", "precision", "recall"]
    assert specs[0].path == str(tmp_path / "accuracy.yaml")


def test_load_catalog_collects_errors_of_all_files(tmp_path):
    write(tmp_path, "id: [\n", "b.yaml")
    write(tmp_path, "id: ok\n", "c.yaml")
    write(tmp_path, "- a\n", "a.yaml")
    with pytest.raises(errors.YamlSyntaxError) as info:
        load.load_catalog(tmp_path)
    files = [Path(d.location.file).name for d in info.value.diagnostics]
    assert files == ["a.yaml", "b.yaml"]


def test_load_catalog_of_missing_directory(tmp_path):
    with pytest.raises(NotADirectoryError):
        load.load_catalog(tmp_path / "missing")


def test_doctests():
    assert doctest.testmod(load).failed == 0


# --- YAML 1.2 core schema, explicit tags, limits, linear locations (issue 13) --------------


@pytest.mark.parametrize("body", ["yes", "no", "on", "off", "y", "n", "Yes", "OFF", "1:30", "-1:30:00",
                                  "0b101", "1_000", "2024-01-02", "=", ".5.", "0x", "1e", "tru"])
def test_yaml_1_1_values_are_text(tmp_path, body):
    assert scalar_spec(tmp_path, body + "\n").data["value"] == body


@pytest.mark.parametrize("body, value", [
    ("true", True), ("True", True), ("FALSE", False), ("~", None), ("null", None), ("", None),
    ("010", 10), ("-007", -7), ("0o17", 15), ("0x1F", 31), ("+5", 5), ("1e3", 1000.0), (".5", 0.5),
    ("5.", 5.0), ("-2.5E-3", -0.0025), ("0e999", 0.0), ("5e-324", 5e-324), ("1.7976931348623157e308", 1.7976931348623157e308),
])
def test_core_schema_values(tmp_path, body, value):
    data = scalar_spec(tmp_path, body + "\n").data["value"]
    assert data == value and type(data) is type(value)


@pytest.mark.parametrize("body", ["!!int abc", "!!str x", "!!float 1", "!foo x", "! x", "!!binary aGk=",
                                  "!!map {a: 1}", "!!seq [1]", "!<tag:yaml.org,2002:str> x", "!!timestamp 2024-01-02"])
def test_explicit_tags_are_refused_without_constructing(tmp_path, body):
    with pytest.raises(errors.YamlSyntaxError) as info:
        scalar_spec(tmp_path, body + "\n")
    (diagnostic,) = info.value.diagnostics
    assert diagnostic.message.startswith("explicit YAML tags are not allowed (")
    assert (diagnostic.key, diagnostic.location.line, diagnostic.location.column) == ("$.value", 1, 8)


def test_merge_keys_are_still_named(tmp_path):
    with pytest.raises(errors.YamlSyntaxError, match="merge keys"):
        load.load_spec(write(tmp_path, "a: 1\n<<: {b: 2}\n", "s.yaml"))
    assert load.load_spec(write(tmp_path, "'<<': 1\n", "s.yaml")).data == {"<<": 1}


@pytest.mark.parametrize("flow", [True, False])
def test_nesting_limit(tmp_path, flow):
    def nested(depth: int) -> str:  # depth levels, the top mapping included
        if flow:
            return "value: " + "[" * (depth - 1) + "]" * (depth - 1) + "\n"
        return "".join("  " * level + "a:\n" for level in range(depth - 1)) + "  " * (depth - 1) + "a: 1\n"

    load.load_spec(write(tmp_path, nested(limits.MAX_NESTING), "s.yaml"))
    for depth in (limits.MAX_NESTING + 1, 5_000 if flow else 250):  # 250 block levels: 63 KB
        with pytest.raises(errors.YamlSyntaxError) as info:
            load.load_spec(write(tmp_path, nested(depth), "s.yaml"))
        (diagnostic,) = info.value.diagnostics
        assert diagnostic.message == (f"nested too deeply: {limits.MAX_NESTING + 1} levels of mappings and lists, "
                                      f"more than the {limits.MAX_NESTING} allowed in a spec")


def test_number_limits(tmp_path):
    digits = limits.MAX_NUMBER_DIGITS
    assert scalar_spec(tmp_path, "9" * digits + "\n").data["value"] == int("9" * digits)
    assert scalar_spec(tmp_path, "0x" + "f" * digits + "\n").data["value"] == 16**digits - 1
    for body, count in (("9" * (digits + 1), digits + 1), ("1" * 4_400, 4_400), ("0x" + "f" * (digits + 1), digits + 1),
                        ("1." + "0" * digits, digits + 1), ("-" + "1" * 400, 400)):
        with pytest.raises(errors.YamlSyntaxError) as info:
            scalar_spec(tmp_path, f"[{body}]\n")
        (diagnostic,) = info.value.diagnostics
        assert diagnostic.key == "$.value[0]" and diagnostic.location.column == 9
        assert diagnostic.message == f"number too long: {count:,} digits, more than the {digits} allowed in a number"
    for body in ("1e309", "-1e400", "1e-400", "-2.5e-999"):
        with pytest.raises(errors.YamlSyntaxError, match=f"number {body} is outside the float range"):
            scalar_spec(tmp_path, body + "\n")


def test_file_size_limit(tmp_path):
    text = "id: x\n"
    padding = "#" * (limits.MAX_SPEC_BYTES - len(text) - 1) + "\n"
    assert load.load_spec(write(tmp_path, text + padding, "s.yaml")).data == {"id": "x"}
    with pytest.raises(errors.YamlSyntaxError) as info:
        load.load_spec(write(tmp_path, text + "#" + padding, "s.yaml"))
    (diagnostic,) = info.value.diagnostics
    assert (diagnostic.location.line, diagnostic.location.column) == (1, 1)
    assert diagnostic.message == (f"file too large: {limits.MAX_SPEC_BYTES + 1:,} bytes, more than the "
                                  f"{limits.MAX_SPEC_BYTES:,} allowed in a spec file")


def test_locations_are_linear_in_the_line_length(tmp_path, monkeypatch):
    """5,000 values on one line took 25 s: each location made the whole line printable again."""
    calls = []
    original = positions.printable
    monkeypatch.setattr(positions, "printable", lambda line: calls.append(line) or original(line))
    text = "references: [" + ", ".join(['"Eq. 1"'] * 5_000) + "]\nformula: " + " + ".join(["TP"] * 1_000) + "\n"
    spec = load.load_spec(write(tmp_path, text, "s.yaml"))
    assert len(calls) <= 2  # one per line that holds a value
    assert spec.locate(("references", 4_999)).line_text == spec.locate(("references", 0)).line_text

    computed = []
    monkeypatch.setattr(load, "scalar_positions", lambda *args: computed.append(args) or positions.scalar_positions(*args))
    columns = [spec.locate_in_value(("formula",), offset).column for offset in range(0, 5_000, 5)]
    assert columns == list(range(10, 5_010, 5)) and len(computed) == 1


@pytest.mark.parametrize("body, column", [
    ("TP / (TP + FP) # + FN\n", 23), ("TP   # x\n", 13), ("TP /\n  FP  # x\n", 7),
    ("'TP' # x\n", None), ("TP#x\n", None), ("|\n  TP # x\n", None), ("TP\n# x\n", None),
])
def test_comment_after_a_plain_scalar(tmp_path, body, column):
    spec = scalar_spec(tmp_path, body)
    found = spec.comment_after(("value",))
    assert (found.column if found else None) == column
    if found:
        assert char_at(spec, found) == "#"


def test_limits_are_documented():
    table = (REPO / "docs" / "spec-language.md").read_text(encoding="utf-8")
    guide = (REPO / "docs" / "guide" / "performance.md").read_text(encoding="utf-8")
    for name in ("MAX_SPEC_BYTES", "MAX_NESTING", "MAX_FORMULA_CHARS", "MAX_NUMBER_DIGITS", "MAX_EXPONENT"):
        value = f"{getattr(limits, name):,}"
        rows = [line for line in guide.splitlines() if line.startswith("| `compiler/language/limits.py`")]
        assert f"| {value}" in table and any(f"`{name}`" in row and f"| {value}" in row for row in rows), name

# --- errata --------------------------------------------------------------------------

_ERRATUM = """\
- id: {id}
  kind: working
  base_catalog: true
  paper: "Wenzel"
  location: "{location}"
  printed: "{printed}"
  correct: "c"
  evidence: "e"
  resolution: "r"
"""


def _errata(tmp_path: Path, *entries: dict) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "errata.yaml").write_text("".join(_ERRATUM.format(**e) for e in entries), encoding="utf-8")
    (tmp_path / "specs").mkdir()
    return tmp_path / "specs"


def test_errata_load_one_entry_per_finding(tmp_path):
    specs = _errata(tmp_path, {"id": "a", "location": "Section 1", "printed": "x = 1"},
                    {"id": "b", "location": "Section 2", "printed": "y = 2"})
    assert [e["id"] for e in load.load_errata(specs)] == ["a", "b"]


def test_errata_refuse_a_duplicate_id(tmp_path):
    specs = _errata(tmp_path, {"id": "a", "location": "Section 1", "printed": "x = 1"},
                    {"id": "a", "location": "Section 2", "printed": "y = 2"})
    with pytest.raises(errors.SchemaError) as raised:
        load.load_errata(specs)
    assert str(raised.value).splitlines()[0].endswith(
        "/docs/errata.yaml:10:7: $[1].id: erratum 'a' repeats the id of erratum 'a' (line 1): keep one entry per finding")


def test_errata_refuse_two_entries_for_the_same_location(tmp_path):
    specs = _errata(tmp_path, {"id": "a", "location": "Section 3.3.1, Figure 9", "printed": "x = 1"},
                    {"id": "b", "location": "section 3.3.1,  figure 9", "printed": "y = 2"})
    with pytest.raises(errors.SchemaError) as raised:
        load.load_errata(specs)
    assert str(raised.value).splitlines()[0].endswith(
        "/docs/errata.yaml:14:13: $[1].location: erratum 'b' repeats the location of erratum 'a' (line 5): "
        "keep one entry per finding")


def test_errata_refuse_the_same_printed_text_twice(tmp_path):
    """The same wrong text of a paper, worded as two locations, is still one finding."""
    specs = _errata(tmp_path, {"id": "a", "location": "Section 3.3.1, recall", "printed": "r = 1/5 (3/3)"},
                    {"id": "b", "location": "Section 3.3.1, r_M", "printed": "r = 1/5 * (3/3)"})
    with pytest.raises(errors.SchemaError, match=r"\$\[1\]\.printed: erratum 'b' repeats the printed of erratum 'a'"):
        load.load_errata(specs)


@pytest.mark.parametrize(("text", "message"), [
    ("- &e {id: a}\n- *e\n", "errata.yaml:1:3: $: YAML anchors and aliases are not allowed here ('e')"),
    ("- id: !!binary aGk=\n", "errata.yaml:1:7: $: explicit YAML tags are not allowed ('!!binary')"),
    ("- " + "[" * 100 + "]" * 100 + "\n", "errata.yaml:1:"),
    ("- id: a\n  id b\n", "invalid YAML: could not find expected ':' (while scanning a simple key on line 2)"),
])
def test_errata_are_read_as_strictly_as_specs(tmp_path, text, message):
    """Aliases, tags and deep nesting in docs/errata.yaml are located errors (no alias
    expansion, no RecursionError), the same rules as in a spec."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "errata.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(errors.YamlSyntaxError) as raised:
        load.load_errata(tmp_path / "specs")
    assert message in str(raised.value)
