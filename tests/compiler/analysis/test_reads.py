"""What a formula reads (compiler/analysis/reads.py), as the generated INFO declares it."""

import re

import pytest
import sympy

from metricc.compiler.analysis import reads
from metricc.compiler.language import symbols
from metricc.generated import CATALOG
from metricc.runtime.averaging import MODES

M, n, C = symbols.M, symbols.N_TOTAL, symbols.N_CLASSES
i, j, k = sympy.symbols("i j k", integer=True)


def _trace(index=k):
    return sympy.Sum(M[index, index], (index, 0, C - 1))


@pytest.mark.parametrize("expr, expected", [
    (_trace() / n, True),
    ((n - _trace()) / n, True),
    (_trace() / n + sympy.Sum(symbols.ROW_TOTAL[k], (k, 0, C - 1)), False),  # a row total beside the trace
    (_trace() / C, False),  # the number of classes
    (n, False),  # no trace
])
def test_only_trace(expr, expected):
    assert reads.only_trace(expr) is expected


@pytest.mark.parametrize("expr, expected", [
    (M[k, k] / symbols.ROW_TOTAL[k], False),
    (sympy.Sum(M[i, j] * (i - j) ** 2, (i, 0, C - 1), (j, 0, C - 1)), True),
    (symbols.TP / (symbols.TP + symbols.FN), False),
])
def test_reads_off_diagonal(expr, expected):
    assert reads.reads_off_diagonal(expr) is expected


def test_the_catalog_declares_what_its_formulas_read():
    assert CATALOG["accuracy"].only_trace and not CATALOG["cohen_kappa"].only_trace
    assert CATALOG["balanced_accuracy"].averaged_class_metric == ("recall", "macro")
    assert CATALOG["weighted_kappa"].parameters_read == ("distance",) and CATALOG["weighted_kappa"].reads_off_diagonal
    assert not CATALOG["mcc"].reads_off_diagonal and not CATALOG["mcc"].parameters_read
    assert CATALOG["f_beta"].parameters_read == ("beta",)


# How metricc consistent read the printed formula before INFO said it: the fields must agree
# with those readings on every metric of the catalog, so its verdicts are unchanged.
_TRACE = "Sum(M[k, k], k)"
_AVERAGE = re.compile(rf"^({'|'.join(name for name, mode in MODES.items() if mode.linear)})\((\w+)\)$")


@pytest.mark.parametrize("info", CATALOG.values(), ids=lambda info: info.id)
def test_fields_agree_with_the_printed_formula(info):
    if info.takes == "matrix":
        rest = info.simplified.replace(_TRACE, "")
        assert info.only_trace == (_TRACE in info.simplified and not re.search(r"\b(M|p|t|C)\b", rest))
        cells = re.findall(r"\bM\[(\w+), (\w+)\]", info.simplified)
        printed = all(a == b for a, b in cells) and not re.search(r"\b(distance|class_weights)\b", info.simplified)
        assert printed == (not info.reads_off_diagonal and not info.parameters_read)
    found = _AVERAGE.match(info.simplified)
    averaged = info.averaged_class_metric
    linear = averaged if averaged and MODES[averaged[1]].linear else None
    assert linear == ((found.group(2), found.group(1)) if found else None)
