"""The Array API printer (compiler/emit/array_printer.py): the IR printed straight to code of the
namespace ``xp``; the tables it reads equal the runtime's; a function outside the namespace raises
naming it; and no emitter rewrites printed code with regular expressions."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest
import sympy

from metricc.compiler.emit import array_module, array_printer
from metricc.compiler.emit.array_printer import ArrayPrinter, OutsideNamespace
from metricc.compiler.emit.numpy_printer import Printed
from metricc.compiler.language import symbols
from metricc.runtime import xp_curves, xp_kernel, xp_scores

EMIT = Path(array_printer.__file__).parent
I, J, K = (symbols.index_symbol(name) for name in "ijk")
M, T, N, C = symbols.M, symbols.ROW_TOTAL, symbols.N_TOTAL, symbols.N_CLASSES
TP, FP = symbols.TP, symbols.FP


def _printer() -> ArrayPrinter:
    return ArrayPrinter({M: Printed("M"), T: Printed("t"), N: Printed("n"), TP: Printed("tp"), FP: Printed("fp")})


def _functions(module) -> dict[str, object]:
    return {name: getattr(module, name) for name in module.__all__ if inspect.isfunction(getattr(module, name))}


def test_the_runtime_table_is_the_array_runtime_s():
    modules = {"xp_kernel": xp_kernel, "xp_scores": xp_scores, "xp_curves": xp_curves}
    assert dict(array_printer.RUNTIME) == {name: key for key, module in modules.items() for name in _functions(module)}
    first = {name for module in modules.values() for name, function in _functions(module).items()
             if list(inspect.signature(function).parameters)[:1] == ["xp"]}
    assert array_printer.NAMESPACE_FIRST == first


def test_the_standard_table_is_the_standard_s():
    strict = pytest.importorskip("array_api_strict")
    assert array_printer.STANDARD <= set(strict.__all__)


CASES = [
    (TP / (TP + FP), "tp / nonzero(xp, fp + tp)", {"nonzero"}),
    (sympy.sqrt(N), "xp.sqrt(n)", set()),
    (sympy.log(N), "xp.log(nonzero(xp, n))", {"nonzero"}),
    (sympy.oo, "xp.inf", set()),
    (M[J, I], "transpose(xp, M)", {"transpose"}),
    (M[I, J] + T[I], 'M + align(xp, t, "i", "ij")', {"align"}),
    (symbols.step(N - 1), "heaviside(xp, n - 1, 0.5)", {"heaviside"}),  # numpy's, which the standard lacks
    (symbols.index_max(T[K], K, C - 1), "xp.max(t, axis=-1)", set()),
    (sympy.Sum(M[K, K], (K, 0, C - 1)), "sum_last_axis(xp, diagonal(xp, M))", {"sum_last_axis", "diagonal"}),
]


@pytest.mark.parametrize(("expr", "code", "helpers"), CASES, ids=[str(case[0]) for case in CASES])
def test_nodes_print_in_the_namespace(expr, code, helpers):
    printer = _printer()
    assert printer.code(expr) == code
    assert printer.helpers == helpers


def test_a_function_outside_the_namespace_raises_naming_it():
    with pytest.raises(OutsideNamespace, match="needs binomial_tail") as raised:
        _printer().code(symbols.binomial_tail(TP, N, sympy.Rational(1, 2)))
    assert raised.value.function == "binomial_tail"

    class Smaller(ArrayPrinter):
        standard = ArrayPrinter.standard - {"sqrt"}

    with pytest.raises(OutsideNamespace, match="numpy's sqrt"):
        Smaller({N: Printed("n")}).code(sympy.sqrt(N))


def test_a_metric_needing_what_the_namespace_lacks_falls_back_naming_it(compiled_metrics, monkeypatch):
    monkeypatch.setattr(ArrayPrinter, "standard", ArrayPrinter.standard - {"sqrt"})
    text = array_module.emit_array_module(compiled_metrics["mcc"])
    assert "needs numpy's sqrt, which the Array API standard does not have" in text
    assert "on_host(numpy_function" in text
    compile(text, "mcc.py", "exec")


# Every use of a regular expression in compiler/emit/, by (module, enclosing function), and the text
# it reads: none reads printed code, which the printers write in the target's words from the start.
REGULAR_EXPRESSIONS = {
    ("errata_math", "<module>"): "the errata's plain-text formulas",
    ("errata_math", "_is_symbol"): "a token of an erratum's formula",
    ("errata_math", "_kind"): "a token of an erratum's formula",
    ("errata_math", "_symbol"): "a token of an erratum's formula",
    ("latex", "<module>"): "a spec's interval text and names, as LaTeX",
    ("latex", "source_of"): "a spec's reference",
    ("numpy_levels", "_python_name"): "a term's IR fields, as a Python name",
}


def _regular_expressions(path: Path) -> set[tuple[str, str]]:
    """(module, enclosing top-level function or ``<module>``) of every ``re.`` use in ``path``."""
    found = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        where = node.name if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else "<module>"
        for inner in ast.walk(node):
            if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) and inner.value.id == "re":
                found.add((path.stem, where))
            elif isinstance(inner, ast.ImportFrom) and inner.module == "re":
                found.add((path.stem, where))
    return found


def test_no_emitter_rewrites_printed_code_with_regular_expressions():
    found = set().union(*(_regular_expressions(path) for path in sorted(EMIT.rglob("*.py"))))
    assert found <= set(REGULAR_EXPRESSIONS), f"regular expressions on what text? {sorted(found - set(REGULAR_EXPRESSIONS))}"
    assert not {module for module, _ in found} & {"array_module", "array_scores", "array_printer", "numpy_printer"}
