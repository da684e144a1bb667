"""Hostile spec text: it must reach generated Python and LaTeX as inert data, or fail cleanly.

Free text (name, description, references, parameter descriptions) may contain anything YAML
can carry. The generated module must compile, hold the text *literally* in its strings, and
differ from the module of a benign spec only inside string constants; the LaTeX must differ
from the benign LaTeX only by escaped text. Specs that must be rejected (hostile ids,
aliases, parameter names, formulas) leave an existing output folder byte-identical.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import unicodedata
from pathlib import Path

import pytest

from metricc import cli
from metricc.compiler import build, errors
from metricc.compiler.emit import write

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "specs"
BASE = ("precision",)

PYTHON_BREAKERS = [
    '"""',
    "'''",
    "\\",
    "ends with a backslash \\",
    "\\N{BULLET} \\x41 \\u0041 \\n \\' \\\"",
    "'); import os; os.system('x')#",
    '"); import os; os.system("x")#',
    '"""\nimport os\nos.system("x")\n"""',
    "line one\nline two\n\n    indented line\n",
    "line\u2028separator\u2029paragraph\x85next line\rcarriage return",
    "right-to-left \u202e override \u202c and \u2066 isolate \u2069",
    "nul \x00 bell \x07 backspace \x08 escape \x1b[31m delete \x7f",
    "{{ 7 * 7 }} {% raw %} {# c #} ((( metric.id ))) ((* if true *)) ((= x =))",
    "\ufeff byte order mark, zero width \u200b space",
]
LATEX_BREAKERS = [
    "\\input{/etc/passwd}",
    "}",
    "{",
    "$x^2$ and $$ display",
    "100% sure % comment",
    "\\write18{rm -rf /}",
    "^^5cinput{/etc/passwd}",
    "\\catcode`\\^=7 \\def\\x{y}",
    "#1 & ~ _ ^ | < >",
    "\\end{document}",
    "\\\\ \\newline \\par",
    "\\verb|x| \\immediate\\openout",
    "\u00e9t\u00e9 \u0130stanbul \u4e2d\u6587 \U0001f600",
]
HOSTILE = PYTHON_BREAKERS + LATEX_BREAKERS


_SURROGATE_PAIR = re.compile(r"\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})")


def quoted(text: str) -> str:
    """A YAML double-quoted scalar for ``text``: JSON escapes, astral characters as ``\\U``.

    (PyYAML reads a JSON surrogate pair as two lone surrogates.)
    """
    def astral(match):
        code = 0x10000 + ((int(match[1], 16) - 0xD800) << 10) + (int(match[2], 16) - 0xDC00)
        return f"\\U{code:08x}"

    return _SURROGATE_PAIR.sub(astral, json.dumps(text))


def spec_text(metric_id: str, name: str, description: str, references: list[str], param_description: str) -> str:
    """A valid spec holding the given free text."""
    return f"""\
id: {metric_id}
name: {quoted(name)}
aliases: [{metric_id}_alias]
description: {quoted(description)}
references: [{", ".join(quoted(r) for r in references)}]
params:
  beta:
    kind: scalar
    default: 1
    domain: beta > 0
    description: {quoted(param_description)}
formula: beta * TP / (TP + FP)
averages: [none, macro]
default_average: macro
range: [0, inf]
higher_is_better: true
"""


HOSTILE_SPEC = dict(
    name="Hostile " + " | ".join(HOSTILE[:8]),
    description="\n".join(HOSTILE),
    references=HOSTILE,
    param_description=" ".join(HOSTILE),
)
# Same number of references: the outputs then differ in text only.
CLEAN_SPEC = dict(name="Clean", description="Clean text.", references=[f"Clean {i}" for i in range(len(HOSTILE))],
                  param_description="Clean.")


def compile_files(tmp_path: Path, text: str, metric_id: str = "hostile") -> dict[str, str]:
    folder = tmp_path / "specs"
    folder.mkdir()
    for name in BASE:
        shutil.copy(SPECS / f"{name}.yaml", folder)
    (folder / f"{metric_id}.yaml").write_text(text, encoding="utf-8")
    return build.compile_catalog(folder)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """(hostile files, clean files), both compiled with the same id and formula."""
    hostile = compile_files(tmp_path_factory.mktemp("hostile"), spec_text("hostile", **HOSTILE_SPEC))
    clean = compile_files(tmp_path_factory.mktemp("clean"), spec_text("hostile", **CLEAN_SPEC))
    return hostile, clean


def test_yaml_carries_the_text_unchanged(tmp_path):
    from metricc.compiler.language import load

    path = tmp_path / "hostile.yaml"
    path.write_text(spec_text("hostile", **HOSTILE_SPEC), encoding="utf-8")
    data = load.load_spec(path).data
    assert data["references"] == HOSTILE
    assert data["description"] == "\n".join(HOSTILE)


# --- Python ----------------------------------------------------------------------------------


class _BlankStrings(ast.NodeTransformer):
    def visit_Constant(self, node):
        return ast.Constant("") if isinstance(node.value, str) else node


def _shape(source: str) -> str:
    """The module's syntax tree with every string constant blanked."""
    return ast.dump(_BlankStrings().visit(ast.parse(source)))


def _strings(source: str) -> list[str]:
    return [n.value for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _info_keywords(source: str) -> dict[str, object]:
    (info,) = [n for n in ast.parse(source).body if isinstance(n, ast.Assign) and n.targets[0].id == "INFO"]
    return {k.arg: ast.literal_eval(k.value) for k in info.value.keywords if k.arg in ("name", "description", "references")}


def test_generated_module_compiles(outputs):
    hostile, _ = outputs
    for name, source in hostile.items():
        if name.endswith(".py"):
            compile(source, name, "exec")


def test_module_differs_from_a_clean_one_only_inside_strings(outputs):
    hostile, clean = outputs
    assert sorted(hostile) == sorted(clean)
    for name in ("hostile.py", "__init__.py"):
        assert _shape(hostile[name]) == _shape(clean[name]), name
    top = [type(node).__name__ for node in ast.parse(hostile["hostile.py"]).body]
    kernels = ["FunctionDef", "FunctionDef", "FunctionDef", "FunctionDef"]  # value and gradient kernels, value, gradient
    assert top == ["Expr", "Import", "ImportFrom", "ImportFrom", "ImportFrom", "Assign", *kernels, "Assign"]


def test_text_is_carried_literally(outputs):
    source = outputs[0]["hostile.py"]
    info = _info_keywords(source)
    assert info["name"] == HOSTILE_SPEC["name"]
    assert info["description"] == HOSTILE_SPEC["description"]
    assert list(info["references"]) == HOSTILE
    module_doc = ast.get_docstring(ast.parse(source), clean=False)
    assert HOSTILE_SPEC["name"] in module_doc and HOSTILE_SPEC["description"] in module_doc
    strings = "\n".join(_strings(source))
    assert all(text in strings for text in HOSTILE)
    assert HOSTILE_SPEC["param_description"] in strings


def test_source_has_no_invisible_or_control_characters(outputs):
    """Escaped in the source, so a reviewer sees every character of the spec text."""
    for name, source in outputs[0].items():
        bad = {c for c in source if c != "\n" and (not c.isprintable() or unicodedata.category(c) in ("Cf", "Zl", "Zp"))}
        assert not bad, (name, bad)


# --- LaTeX -----------------------------------------------------------------------------------

# What latex_escape produces: the escaped specials and a few text commands.
_ESCAPES = re.compile(
    r"\\text(?:backslash|asciicircum|asciitilde|less|greater|bar)\{\}"
    r"|\\texttt\{U\+[0-9A-F]{4,6}\}"
    r"|\\[{}$&#_%]"
)
_CONTROL_WORD = re.compile(r"\\[A-Za-z@]+")


def _structure(tex: str) -> tuple:
    """Control words and special characters left once escaped text is removed."""
    rest = _ESCAPES.sub("", tex)
    return sorted(set(_CONTROL_WORD.findall(rest))), {c: rest.count(c) for c in "\\{}$%#&~^_"}


def test_latex_has_no_command_from_spec_text(outputs):
    hostile, clean = outputs
    fragment = hostile["docs/metrics/hostile.tex"]
    for word in ("\\input", "\\write", "\\catcode", "\\def", "\\end{document}", "\\immediate", "\\openout", "\\verb", "^^", "\\newline", "\\par "):
        assert word not in fragment, word
    assert _structure(fragment) == _structure(clean["docs/metrics/hostile.tex"])
    assert _structure(hostile["docs/metrics.tex"]) == _structure(clean["docs/metrics.tex"])  # names are in its summary


def test_latex_has_no_control_characters_or_blank_lines_from_text(outputs):
    hostile, clean = outputs
    fragment = hostile["docs/metrics/hostile.tex"]
    assert all(c == "\n" or 32 <= ord(c) < 127 or c.isalpha() for c in fragment)
    # A spec newline must not end a paragraph (or a \texttt argument) in the middle.
    assert fragment.count("\n") == clean["docs/metrics/hostile.tex"].count("\n")


def test_latex_escape_examples():
    from metricc.compiler.emit.text import latex_escape

    assert latex_escape("\\input{x}") == r"\textbackslash{}input\{x\}"
    assert latex_escape("^^5c") == r"\textasciicircum{}\textasciicircum{}5c"
    assert latex_escape("50% $5 #1 a_b & ~") == r"50\% \$5 \#1 a\_b \& \textasciitilde{}"
    assert latex_escape("a\nb\u2028c\x00") == r"a b\texttt{U+2028}c\texttt{U+0000}"


# --- specs that must fail leave the output untouched -------------------------------------------

FAILING = {
    "hostile_alias": ("aliases: [hostile_alias]", 'aliases: ["x\'); import os; os.system(\'x\')#"]', errors.SchemaError),
    "formula_escape": ("formula: beta * TP / (TP + FP)", "formula: '__import__(\"os\").system(\"touch pwned\")'", errors.FormulaError),
    "dunder_formula": ("formula: beta * TP / (TP + FP)", "formula: beta.__class__.__mro__", errors.FormulaError),
    "param_named_np": ("  beta:\n", "  np:\n", errors.FormulaError),
    "raw_nul_byte": ("name: \"Clean\"", "name: Clean\x00", errors.YamlSyntaxError),
    "raw_escape_byte": ("name: \"Clean\"", "name: \"Clean \x1b[31m\"", errors.YamlSyntaxError),
    "yaml_python_tag": ("name: \"Clean\"", "name: !!python/object/apply:os.system ['touch pwned']", errors.YamlSyntaxError),
    "huge_power": ("formula: beta * TP / (TP + FP)", "formula: beta * TP / (TP + FP) + 0 * 9**9**9**9", errors.FormulaError),
}


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _failing_spec(case: str) -> tuple[str, type]:
    old, new, kind = FAILING[case]
    text = spec_text("hostile", **CLEAN_SPEC)
    assert old in text
    return text.replace(old, new), kind


def build_like_the_cli(spec_dir: Path, out_dir: Path) -> None:
    """``metricc build``: render everything in memory first, write only on success."""
    files = build.compile_catalog(spec_dir)
    write.write_tree(out_dir, files)


@pytest.mark.parametrize("case", sorted(FAILING))
def test_failing_build_leaves_output_identical(case, tmp_path, monkeypatch):
    text, kind = _failing_spec(case)
    folder = tmp_path / "specs"
    folder.mkdir()
    shutil.copy(SPECS / "precision.yaml", folder)
    (folder / "hostile.yaml").write_bytes(text.encode("utf-8"))
    out = tmp_path / "generated"
    shutil.copytree(REPO / "generated", out, ignore=shutil.ignore_patterns("__pycache__"))
    before = _snapshot(out)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(kind) as info:
        build_like_the_cli(Path("specs"), out)
    assert all(d.location.file == "specs/hostile.yaml" for d in info.value.diagnostics)
    assert _snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["generated", "specs"]  # no staging left
    assert not (tmp_path / "pwned").exists()


def test_failing_cli_build_leaves_output_identical(tmp_path, monkeypatch, capsys):
    text, _ = _failing_spec("formula_escape")
    folder = tmp_path / "specs"
    folder.mkdir()
    (folder / "hostile.yaml").write_text(text, encoding="utf-8")
    out = tmp_path / "generated"
    shutil.copytree(REPO / "generated", out, ignore=shutil.ignore_patterns("__pycache__"))
    before = _snapshot(out)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["build", "--specs", "specs", "--out", "generated"]) == 1
    assert "specs/hostile.yaml:12:27: $.formula: attribute access ('.system')" in capsys.readouterr().err
    assert _snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["generated", "specs"]


def test_a_diagnostic_on_a_very_long_line_shows_an_excerpt_around_the_column():
    from metricc.compiler.errors import EXCERPT_CHARS, Diagnostic, Location

    line = "a" * 50_000 + "!" + "b" * 50_000
    rendered = Diagnostic(Location("specs/x.yaml", 3, 50_001, line), "$.formula", "bad").render()
    _, excerpt, caret = rendered.split("\n")
    assert len(excerpt) < EXCERPT_CHARS + 20 and excerpt.strip().startswith("...") and excerpt.endswith("...")
    assert excerpt[len(caret) - 1] == "!"
