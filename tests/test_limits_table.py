"""The limits table of docs/guide/performance.md lists every bound the code enforces (issue 30):
each module-level bound constant of the package (a ``MAX_...``, ``..._LIMIT`` or ``..._BUDGET``
name bound to a number, a numeric expression or a mapping of numbers; an alias of another
module's is that module's) has a row naming its module and its name, so a new bound without a
row fails here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LAYERS = ("core", "runtime", "api", "bridges", "compiler", "audit", "cli")  # generated/ declares no bound
BOUND = re.compile(r"_?(MAX_\w+|\w+_LIMIT|\w*BUDGET)")
GUIDE = REPO / "docs" / "guide" / "performance.md"


def _numeric(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.BinOp):
        return _numeric(node.left) and _numeric(node.right)
    if isinstance(node, ast.UnaryOp):
        return _numeric(node.operand)
    if isinstance(node, ast.Dict):
        return all(_numeric(value) for value in node.values)
    return False


def bounds() -> list[tuple[str, str]]:
    """(module path, constant name) of every bound constant of the package."""
    found = []
    for layer in LAYERS:
        for path in sorted((REPO / layer).rglob("*.py")):
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.AnnAssign):
                    targets, value = [node.target], node.value
                elif isinstance(node, ast.Assign):
                    targets, value = node.targets, node.value
                else:
                    continue
                for target in targets:
                    if (isinstance(target, ast.Name) and BOUND.fullmatch(target.id) and value is not None
                            and _numeric(value)):
                        found.append((path.relative_to(REPO).as_posix(), target.id))
    return found


def _rows() -> list[str]:
    text = GUIDE.read_text(encoding="utf-8")
    table = text[text.index("<!-- limits-table -->"):text.index("<!-- /limits-table -->")]
    return [line for line in table.splitlines() if line.startswith("| `")]


def test_every_bound_of_the_code_has_a_row_with_its_value_and_what_happens_past_it():
    rows = _rows()
    missing = [f"{module} {name}" for module, name in bounds()
               if not any(f"`{module}`" in row and re.search(rf"`{re.escape(name)}`", row) for row in rows)]
    assert not missing, f"bounds without a row in {GUIDE.name}'s limits table: {missing}"
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert len(cells) == 4 and all(cells), row  # where, bound, value, past it


def test_the_scan_finds_the_bounds_it_is_meant_to():
    found = set(bounds())
    assert {("audit/consistent.py", "MAX_SCORES"), ("cli/inputs.py", "MAX_DIGITS"), ("runtime/counts.py", "MAX_COUNT"),
            ("audit/consistent.py", "READINGS_BUDGET"), ("compiler/analysis/budget.py", "MAX_SIZE")} <= found
    assert not any(name == "_SUM_LIMITS" or module.startswith("generated/") for module, name in found)
