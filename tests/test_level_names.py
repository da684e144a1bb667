"""No code outside the level and mode tables compares a level or an averaging mode by its name.

A level (``class``, ``matrix``...) and an averaging mode (``macro``, ``none``...) are rows of
four tables: :mod:`metricc.compiler.language.levels`, :mod:`metricc.compiler.language.averaging`,
:mod:`metricc.runtime.levels` and :mod:`metricc.runtime.averaging`. Code asks a row's fields
(``info.per_class_counts``, ``MODES[mode].over_classes``, ``rules(level).partials``), so a new
level or mode is a new row. This test reads every module of the package (not ``generated/``,
the tests, benchmarks or examples) and fails on a comparison with a level's or a mode's name
(``level == "class"``, ``mode not in ("none", "binary")``, ``level is Level.MATRIX``), the
names taken from the tables themselves. ``OTHER_WORDS`` lists comparisons whose words only
look like those names; ``NOT_YET`` those left to convert, which may shrink but not grow.
"""

from __future__ import annotations

import ast
import collections
from pathlib import Path

from metricc.compiler.language import averaging, levels
from metricc.runtime import averaging as runtime_averaging
from metricc.runtime import levels as runtime_levels

ROOT = Path(__file__).resolve().parents[1]
NOT_SCANNED = {"generated", "tests", "benchmarks", "examples", "docs", "specs", "audits", ".venv"}
TABLES = {"compiler/language/levels.py", "compiler/language/averaging.py", "runtime/levels.py", "runtime/averaging.py"}
ENUMS = ("Level", "Average")  # compiler.language.levels' enums of the levels and the modes
NAMES = ({str(level) for level in levels.RULES} | set(averaging.MODES) | set(runtime_levels.LEVELS)
         | set(runtime_averaging.MODES))

# A field of the runtime's level row whose words are its own: ``info.takes == "matrix"`` asks what
# a function takes (runtime.levels.TAKES: counts, matrix, scores), not which level it is.
FIELD_WORDS = ("takes",)

# (module, the compared expression) -> what its words are, when they only look like a level or a mode.
OTHER_WORDS = {
    ("audit/consistent_names.py", "n.group"): "a peer name's group (audit/peers.yaml)",
    ("audit/notation.py", "entry.group"): "a peer name's group (audit/peers.yaml)",
    ("audit/conventions.py", "w"): "words of a metric's name",
    ("audit/formula_functions.py", "reading"): "a reading of set notation: pairs or samples",
    ("audit/identify_numeric.py", "holds"): "where an identity holds: all, binary (C = 2), single-label",
    ("audit/identify_numeric.py", "kind"): "the data an identity is checked on",
    ("audit/identify_per_class.py", "kind"): "the data an identity is checked on",
    ("audit/identify_proof.py", "scope"): "where an identity holds",
    ("audit/notation.py", "head"): "words of a printed name in a paper's notation",
    ("audit/notation.py", "rest[0]"): "words of a printed name in a paper's notation",
    ("audit/notation.py", "rest[-1]"): "words of a printed name in a paper's notation",
    ("audit/notation.py", "mode"): "a paper's averaging words (micro, weighted, relevance), read into sums",
    ("audit/notation.py", "p"): "words of a printed name in a paper's notation",
    ("compiler/language/validate.py", "instance.lower()"): "the words a spec may write for higher_is_better: none",
}

# (module, the compared expression) -> how many comparisons are left to convert to a field of the tables.
NOT_YET = {
    ("compiler/analysis/homogeneity.py", "level"): 5,  # two more with the rescaled aggregates (harden30c)
    ("audit/identify_chain.py", "m.holds"): 1,  # the readings' order of a chain (audit29c): a Mode field to come
    ("compiler/emit/array_module.py", "level"): 9,
    ("compiler/emit/numpy_module.py", "level"): 1,  # evaluate's fused aggregates (fused31, merged alongside)
    ("compiler/emit/array_scores.py", "level"): 1,
    # by the enum member (``level is Level.MATRIX``)
    ("compiler/analysis/affine.py", "metric.level"): 1,
    ("compiler/analysis/declared_evaluate.py", "metric.level"): 2,
    ("compiler/emit/html.py", "metric.level"): 1,
    ("compiler/emit/latex.py", "level"): 1,
    ("compiler/emit/latex.py", "metric.level"): 1,
    ("compiler/language/lower.py", "allowed"): 1,
    ("compiler/language/lower.py", "level"): 1,
    ("compiler/language/lower_params.py", "level"): 2,
    ("compiler/language/parse.py", "level.references"): 1,
    ("compiler/language/parse.py", "self.rules.level"): 3,
    ("compiler/language/parse_indexed.py", "self.rules.level"): 6,
    ("compiler/language/parse_references.py", "self.rules.level"): 1,
    ("compiler/language/validate.py", "data.get('level', Level.CLASS)"): 1,
    ("compiler/language/validate.py", "level"): 1,
}


def _names_one(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value in NAMES
    return isinstance(node, (ast.Tuple, ast.List, ast.Set)) and any(_names_one(e) for e in node.elts)


def _member(node: ast.expr) -> bool:
    """``Level.MATRIX``, ``Average.MACRO``: a level or a mode named by its enum member."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ENUMS


def _comparisons(tree: ast.AST):
    """The expressions compared with a level's or a mode's name: ``x == "class"``, ``x in
    ("none", "binary")``, ``x is Level.MATRIX``, ``Level.CURVE in allowed``; ``"matrix" in
    inputs`` asks for a key, not a name, and is left out."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for left, op, right in zip(operands, node.ops, operands[1:]):
            if _names_one(right) or _member(right):
                yield left
            elif _member(left) or _names_one(left) and not isinstance(op, (ast.In, ast.NotIn)):
                yield right


def found() -> collections.Counter:
    counts: collections.Counter = collections.Counter()
    tops = [top for top in sorted(ROOT.iterdir()) if top.name not in NOT_SCANNED and not top.name.startswith(".")]
    paths = [path for top in tops for path in (sorted(top.rglob("*.py")) if top.is_dir() else [top] if top.suffix == ".py" else [])]
    for path in paths:
        module = path.relative_to(ROOT).as_posix()
        if module in TABLES:
            continue
        for expr in _comparisons(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(expr, ast.Attribute) and expr.attr in FIELD_WORDS):
                counts[(module, ast.unparse(expr))] += 1
    return counts


def test_no_level_or_mode_compared_by_name():
    new = {key: n for key, n in found().items() if key not in OTHER_WORDS and n > NOT_YET.get(key, 0)}
    assert not new, ("compared with a level's or a mode's name (read a field of the level or mode tables, adding "
                     f"one if no field answers): {sorted(new)}")


def test_lists_are_current():
    counts = found()
    stale = sorted(key for key in [*OTHER_WORDS, *NOT_YET] if key not in counts)
    assert not stale, f"no longer compared, remove from the lists: {stale}"
    fewer = {key: counts[key] for key, n in NOT_YET.items() if counts[key] < n}
    assert not fewer, f"converted: lower NOT_YET to {fewer}"


def test_catches_a_new_comparison():
    tree = ast.parse('if info.level == "class" or mode not in ("none", "binary") or "matrix" in inputs or level is Level.SCORE:\n'
                     '    pass')
    assert sorted(ast.unparse(e) for e in _comparisons(tree)) == ["info.level", "level", "mode"]
