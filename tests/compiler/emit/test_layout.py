"""Tests for :mod:`metricc.compiler.emit.layout`: long generated statements broken as black would."""

from __future__ import annotations

import ast

from metricc.compiler.emit import layout

LONG_SUM = " + ".join(f"variable_{i} * other_{i}" for i in range(12))


def _same_program(flat: str, lines: list[str]) -> bool:
    return ast.dump(ast.parse(flat)) == ast.dump(ast.parse("\n".join(lines)))


def test_short_statements_stay_on_one_line():
    assert layout.layout("    value = ", "tp / nonzero(fp + tp)") == ["    value = tp / nonzero(fp + tp)"]


def test_long_expression_breaks_before_its_lowest_operators():
    lines = layout.layout("    value = ", f"({LONG_SUM}) / nonzero(n)")
    assert lines[0] == "    value = ("
    assert lines[-1] == "    )"
    assert any(line.strip().startswith("/ nonzero(") for line in lines)
    assert all(len(line) <= layout.WIDTH for line in lines)
    assert _same_program(f"value = ({LONG_SUM}) / nonzero(n)", [line[4:] for line in lines])


def test_long_call_breaks_inside_its_brackets_with_trailing_commas():
    args = ", ".join(f'"argument number {i}"' for i in range(8))
    lines = layout.layout("", f"f({args})")
    assert lines[0] == "f(" and lines[-1] == ")"
    assert all(line.endswith(",") for line in lines[1:-1])
    assert _same_program(f"f({args})", lines)


def test_long_return_tuple_is_parenthesized():
    lines = layout.layout("    return ", f"{LONG_SUM}, x == 0")
    assert lines[0] == "    return (" and lines[-2:] == ["        x == 0,", "    )"]
    flat = f"def f():\n    return {LONG_SUM}, x == 0"
    assert _same_program(flat, ["def f():", *lines])


def test_long_string_becomes_adjacent_literals_of_the_same_value():
    text = " ".join(f'word{i} "quoted" \\\\ back' for i in range(30))
    literal = '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    lines = layout.layout("    description=", literal, ",")
    assert lines[0] == "    description=(" and lines[-1] == "    ),"
    assert all(len(line) <= layout.WIDTH for line in lines)
    assert ast.literal_eval("\n".join(lines)[len("    description="):].rstrip(",")) == text


def test_unbreakable_code_is_left_as_it_is():
    name = "x" * 120
    assert layout.layout("    value = ", name) == [f"    value = {name}"]
