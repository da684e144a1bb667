"""Symbols with several meanings, and symbols with none: the readings ``identify`` tries.

Papers reuse letters: ``P`` is the positives (PyCM, Wikipedia: ``TPR = TP/P``) or precision,
``N`` and ``n`` the total, the negatives (mlscorecheck's ``p``, ``n``) or the number of classes,
``c`` the number of classes or the number correctly classified (scikit-learn's multi-class MCC
beside ``s``, the samples), ``p_i`` class i's predicted count or its precision. A letter no
notation knows (``l``, ``K``, ``TOP``) may be any count, total or class count. Such a name is
read as a *marker* (``reading_P``, ``reading_p[i]``) that :mod:`.identify` replaces by each of
its readings in turn; which reading matches a catalog metric is then reported ("read P as the
number of positives (TP + FN)"). Nothing here picks one meaning for a letter.
"""

from __future__ import annotations

import itertools
import re

import sympy

from metricc.audit.notation import CLASS_COUNTS, marker
from metricc.compiler.language import symbols

__all__ = ["READINGS", "table_cells", "cell_marker", "prune", "meaning", "words", "substitute", "combinations",
           "MAX_COMBINATIONS", "role_bounds", "open_roles"]

N, C = symbols.N_TOTAL, symbols.N_CLASSES
MAX_COMBINATIONS = 120  # readings tried for one formula: two unknown letters and one ambiguous one
_PLAIN_COUNTS = dict(zip(("TP", "FP", "FN", "TN"), symbols.COUNTS))

# reading -> its words in the answer
READINGS = {
    "TP": "TP", "FP": "FP", "FN": "FN", "TN": "TN",
    "positives": "the number of positives (TP + FN)", "negatives": "the number of negatives (TN + FP)",
    "predicted positives": "the number predicted positive (TP + FP)",
    "predicted negatives": "the number predicted negative (TN + FN)",
    "total": "the number of samples n", "classes": "the number of classes C",
    "precision": "precision", "correct": "the number correctly classified (the sum of TP over the classes)",
    "predicted count": "the number predicted in the class (TP + FP)",
    "cells by prediction": "the cells of the 2 x 2 table with the test's result in rows (a = TP, b = FP, c = FN, d = TN)",
    "cells by truth": "the cells of the 2 x 2 table with the truth in rows (a = TP, b = FN, c = FP, d = TN)",
    "sets truth first": "the true and the predicted label sets of the sample, in that order",
    "sets prediction first": "the predicted and the true label sets of the sample, in that order",
}
# the 2 x 2 table's cells a, b, c, d read row by row, in each of the two customary layouts
_LAYOUTS = {"cells by prediction": ("TP", "FP", "FN", "TN"), "cells by truth": ("TP", "FN", "FP", "TN"),
            "sets truth first": ("positives", "predicted positives"),  # the sizes of two label sets
            "sets prediction first": ("predicted positives", "positives")}

def _unknown(tried: tuple[str, ...]) -> bool:
    """Whether these are the readings of a letter no notation knows (:data:`.notation.UNKNOWN`,
    less the counts the formula prints), not the few customary meanings of one letter."""
    return "predicted negatives" in tried


def prune(marked: dict, expr: sympy.Expr) -> dict:
    """``marked`` without the readings of an unknown name as a count the formula already
    names: a paper does not print a second name for TP beside TP."""
    printed = {n for n, s in _PLAIN_COUNTS.items() if s in expr.free_symbols}
    printed |= {n for n, base in CLASS_COUNTS.items() if any(i.base == base for i in expr.atoms(sympy.Indexed))}
    out = {}
    for name, (stand_in, tried) in marked.items():
        if _unknown(tried):
            tried = tuple(r for r in tried if r not in printed) or tried
        out[name] = (stand_in, tried)
    return out


def open_roles(marked: dict) -> bool:
    """Whether a sample's label sets are read both ways (:mod:`.formula_sets`): the print says
    nothing of which is the truth, so a match under one reading only is still not forced."""
    stand_ins = (s for m, _ in marked.values() for s in (m if isinstance(m, tuple) else (m,)))
    return any(str(s).startswith("reading_set_") for s in stand_ins)


def meaning(reading: str, index=None) -> sympy.Expr:
    """The expression of one reading, of class ``index`` (or of the plain counts)."""
    if index is None:
        tp, fp, fn, tn = symbols.COUNTS
    else:
        tp, fp, fn, tn = (CLASS_COUNTS[c][index] for c in ("TP", "FP", "FN", "TN"))
    if reading == "correct":
        k = sympy.Dummy("k", integer=True, nonnegative=True)
        return sympy.Sum(CLASS_COUNTS["TP"][k], (k, 0, C - 1))
    return {"TP": tp, "FP": fp, "FN": fn, "TN": tn, "positives": tp + fn, "negatives": tn + fp,
            "predicted positives": tp + fp, "predicted negatives": tn + fn, "predicted count": tp + fp,
            "total": N, "classes": C, "precision": tp / (tp + fp)}[reading]


def words(name: str, reading: str) -> str:
    return f"{name} as {READINGS[reading]}"


def substitute(expr: sympy.Expr, choice: dict) -> sympy.Expr:
    """``expr`` with each marker replaced by its chosen reading (``{name: (marker, reading)}``)."""
    plain = {m: meaning(r) for m, r in choice.values() if isinstance(m, sympy.Symbol)}
    indexed = {m: r for m, r in choice.values() if isinstance(m, sympy.IndexedBase)}
    for stand_ins, layout in (c for c in choice.values() if isinstance(c[0], tuple)):
        for stand_in, reading in zip(stand_ins, _LAYOUTS[layout]):  # a table's cells, two label sets
            if isinstance(stand_in, sympy.IndexedBase):
                indexed[stand_in] = reading
            else:
                plain[stand_in] = meaning(reading)
    expr = expr.xreplace(plain)
    if indexed:
        expr = expr.replace(lambda e: isinstance(e, sympy.Indexed) and e.base in indexed,
                            lambda e: meaning(indexed[e.base], e.indices[0]))
    return expr


def combinations(found: dict) -> list[dict]:
    """Every choice of one reading per marked name (``found``: name -> (marker, readings)),
    the customary first readings first."""
    names = sorted(found)
    unknown = [n for n in names if _unknown(found[n][1])]
    out = []
    for choice in itertools.product(*(found[n][1] for n in names)):
        chosen = dict(zip(names, choice))
        if len({chosen[n] for n in unknown}) < len(unknown):
            continue  # two unknown letters for one count: a paper names each thing once
        out.append({n: (found[n][0], r) for n, r in chosen.items()})
    return out


# \sum_{i=1}^{K}, \sum_i^N, \sum_{i=0}^{N-1}: the indices and the bound's letter
_SUM = re.compile(r"\\(?:sum|prod)\s*_\s*(?:\{\s*([a-z](?:\s*,\s*[a-z])*)\s*(?:=\s*[01]\s*)?(?:,[^{}]*)?\}|([a-z]))\s*\^\s*"
                  r"(?:\{\s*(\|?\s*(?:\\mathcal\{)?[A-Za-z]\}?\s*\|?)\s*(?:-\s*1\s*)?\}|([A-Za-z]))")
# a sample's sets or labels: Y_i, Z_i, \hat{y}_i, y_i, Wenzel's C_{y_i}, any set in |...| or beside \cap
_SAMPLE_NAMES = (r"(?:Y|Z|\\hat\{Y\}|\\hat\{y\}|\\mathbf\{y\}|C_\{\s*y|C_\{\s*h\(x"
                 r"|(?:\\cap|\\cup|\\setminus)\s*(?:\\hat\s*\{)?\s*[A-Za-z]\s*\}?"
                 r"|(?:\\hat\s*\{)?\s*[A-Za-z]\s*\}?(?=\s*_\s*(?:\{[^{}]*\}|[a-z])\s*\\(?:cap|cup|setminus)))")
_TOTAL_LETTERS = ("n", "N", "s")  # a bound these name is customary for samples and classes alike (Wenzel, Kozak)


_MEMBER = re.compile(r"\\(?:sum|prod)\s*_\s*\{\s*([a-z])\s*\\in\s*(?:\\mathcal\{\s*([A-Za-z])\s*\}|([A-Za-z]))\s*\}")


def role_bounds(text: str) -> dict[str, tuple[sympy.Expr, str]]:
    """The letters that bound sums, read from what their index subscripts: a sum over an index
    that subscripts the samples' sets (``Y_i``, ``Z_i``, ``x_i``) runs over the samples, so its
    bound is n; one over an index that subscripts counts or cells (``tp_i``, ``C_{ik}``) runs
    over the classes (or labels), so its bound is C. -> {letter: (meaning, sentence)}. The
    letters n, N and s are left to the readings: papers bound both kinds of sums with them."""
    out = {}
    sums = [(m.group(1) or m.group(2), m.group(3) or m.group(4)) for m in _SUM.finditer(text)]
    sums += [(m.group(1), m.group(2) or m.group(3)) for m in _MEMBER.finditer(text)]  # \sum_{l \in L}: L's size
    for index_text, bound_text in sums:
        indices = [i.strip() for i in index_text.split(",")]
        bound = re.sub(r"[\s|{}]|\\mathcal", "", bound_text)
        if bound in out or bound == "C" or not re.fullmatch(r"[A-Za-z]", bound):
            continue
        index = indices[0]
        subscript = rf"_\s*(?:\{{[^{{}}]*(?<![A-Za-z]){index}(?![A-Za-z])[^{{}}]*\}}|{index}(?![A-Za-z]))"
        if re.search(_SAMPLE_NAMES + rf"\s*_\s*\{{\s*[a-z]\s*,?\s*{index}\s*\}}", text):  # y_{i,j}: j a label
            out[bound] = (C, f"read {bound} as the number of labels (it bounds the sum over {index}, "
                             f"which indexes the labels of a sample)")
        elif re.search(_SAMPLE_NAMES + r"\s*" + subscript, text) or \
                re.search(_SAMPLE_NAMES + rf"\s*_\s*\{{\s*{index}\s*,?\s*[a-z]\s*\}}", text):
            if bound in _TOTAL_LETTERS:
                out[bound] = (N, "")  # the customary reading, forced: nothing to say
                continue
            out[bound] = (N, f"read {bound} as the number of samples (it bounds the sum over {index}, "
                             f"which indexes the samples)")
        elif bound not in _TOTAL_LETTERS and re.search(r"[A-Za-z}]\s*" + subscript, text) or re.search(rf"\(\s*{index}\s*\)", text):
            out[bound] = (C, f"read {bound} as the number of classes (it bounds the sum over {index}, "
                             f"which indexes per-class counts)")
    return out


_CELL = re.compile(r"(?<![A-Za-z\\_^])(?<!_\{)(?<!\^\{)([a-dA-D])(?![A-Za-z0-9_'])|(?<=\{)([a-dA-D])(?=\})")
_CELL_RUN = re.compile(r"(?<![A-Za-z\\_^])(?<!_\{)(?<!\^\{)([a-d]{2,4}|[A-D]{2,4})(?![A-Za-z0-9_'])")  # ad, bc: products


def table_cells(text: str) -> dict[str, int]:
    """The letters a, b, c, d (or A to D) of a formula over the cells of a 2 x 2 table, each
    with its place in reading order: two or more of one case, not C alone (the classes), in a
    formula that names no count and sums over nothing. -> {letter: 0..3}; empty otherwise."""
    if re.search(r"\\(sum|prod)|(?<![A-Za-z])(TP|FP|FN|TN|tp|fp|fn|tn)(?![A-Za-z])", text):
        return {}
    for letters in ("abcd", "ABCD"):
        found = {m.group(1) or m.group(2) for m in _CELL.finditer(text)}
        found = (found | {x for m in _CELL_RUN.finditer(text) for x in m.group(1)}) & set(letters)
        if len(found) >= 2 and found - {"c", "C"}:
            return {letter: letters.index(letter) for letter in sorted(found)}
    return {}


def cell_marker(notation, head: str, rest: list[str]) -> sympy.Expr | None:
    """The marker of a 2 x 2 table's cell, read in each layout: a letter of ``notation.cells``
    (a to d in reading order), or a name with two digits (``n_{10}``: row, column; 1 is the
    positive class, 0 or 2 the negative); None for any other name."""
    if head in notation.cells and not rest:
        letters = "abcd" if head.islower() else "ABCD"
        notation.readings.setdefault(", ".join(sorted(notation.cells)), (tuple(marker(x) for x in letters), tuple(_LAYOUTS)))
        return marker(head)
    if len(rest) != 1 or not re.fullmatch(r"[012]{2}", rest[0]) or "0" in rest[0] and "2" in rest[0]:
        return None
    cells = tuple(marker(f"{head}_cell{place}") for place in range(4))
    notation.readings.setdefault(f"{head}_{{rc}}", (cells, tuple(_LAYOUTS)))
    row, column = (0 if digit == "1" else 1 for digit in rest[0])
    return cells[2 * row + column]
