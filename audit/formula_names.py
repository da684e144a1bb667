"""Printed names of whole metrics and agreements, read where a formula uses them as symbols.

A paper or a library writes ``sqrt(sens*spec)``, ``ppv + npv - 1``, ``\\frac{TPR}{FPR}`` or
``\\gamma = BM = ...``: each name is a catalog metric under a name a reader knows (its id,
an alias, or the name scikit-learn, torchmetrics, PyCM or mlscorecheck give it, the table
:func:`.notation.catalog_names` reads from ``audit/peers.yaml``). Such a name stands for the
metric's own formula over the counts (of class i with a class index, ``sens_i``; averaged
with an averaging subscript, ``PPV_M``). Cohen's ``p_o`` and ``p_e`` (``po``, ``pe``) are the
observed and the chance agreement of the matrix, as are ``\\Pr(a)`` and ``\\Pr(e)``. Only names of two letters or more are
read: a single letter has too many meanings (:mod:`.formula_readings` tries them instead).
"""

from __future__ import annotations

import re

import sympy

from metricc.audit.formula_source import Source
from metricc.audit.notation import _COUNT_WORDS, _MODES, CLASS_COUNTS, INDEX_LETTERS, catalog_names
from metricc.compiler.language import symbols

__all__ = ["metric_named", "names_metric", "agreement", "signed_names", "typed_times"]


def agreement(parts: tuple[str, ...]) -> sympy.Expr | None:
    """Cohen's observed (the diagonal's share) or chance agreement (the marginals' products),
    as printed (``p_o``, ``pe``, ``\\Pr(a)``: the parts), None for another name."""
    if parts not in _AGREEMENTS:
        return None
    observed = _AGREEMENTS[parts]
    k = sympy.Dummy("k", integer=True, nonnegative=True)
    tp, fp, fn = (CLASS_COUNTS[c][k] for c in ("TP", "FP", "FN"))
    n, last = symbols.N_TOTAL, symbols.N_CLASSES - 1
    if observed:
        return sympy.Sum(tp, (k, 0, last)) / n
    return sympy.Sum((tp + fn) * (tp + fp), (k, 0, last)) / n ** 2


_AGREEMENTS = {("p", "o"): True, ("po",): True, ("p", "e"): False, ("pe",): False, ("Pr", "a"): True, ("Pr", "e"): False}


def _key(word: str) -> str:
    return re.sub(r"[^a-z0-9.]", "", word.lower())


def names_metric(word: str) -> bool:
    """Whether ``word`` (a run of letters, no subscript) is a catalog metric's printed name."""
    return (word,) in _AGREEMENTS or (len(word) >= 2 and word not in _COUNT_WORDS and _key(word) in catalog_names())


def metric_named(head: str, rest: list[str]) -> sympy.Expr | None:
    """The formula a printed metric name stands for, None when ``head`` names no metric."""
    from metricc.audit.identify_proof import catalog_expression  # the catalog's formulas, built on first use

    if agreement((head, *rest)) is not None:
        return agreement((head, *rest))
    if not names_metric(head) or len(rest) > 1:
        return None
    metric, mode = catalog_names().get(head) or catalog_names()[_key(head)]
    if rest and rest[0] in _MODES and _MODES[rest[0]]:
        return catalog_expression(metric, _MODES[rest[0]])
    expr = catalog_expression(metric, mode)
    if expr is None or not rest:
        return expr
    if rest[0] not in INDEX_LETTERS or expr.atoms(sympy.Indexed):
        return None
    i = sympy.Symbol(rest[0])
    return expr.xreplace({s: CLASS_COUNTS[c][i] for c, s in zip(("TP", "FP", "FN", "TN"), symbols.COUNTS)})


# LR+, LR_-, LR^{+}: a name and a sign (before a closing bracket, an operator or the end when
# printed after it), the name of the positive or negative variant
_SIGNED = re.compile(r"(?<![A-Za-z\\])([A-Za-z]{2,5})\s*(?:_\s*\{?\s*([+-])\s*\}?|\^\s*\{\s*([+-])\s*\}|"
                     r"([+-])(?=\s*(?:[})=,/]|\\right|\\cdot|\\times|$)))")
# TPxTN as typed in plain text: a lower-case x between two names is a product
_TYPED_TIMES = re.compile(r"(?<![A-Za-z])([A-Z]{2,5})x(?=([A-Z]{2,5})(?![A-Za-z]))")


def signed_names(source: Source) -> Source:
    """``LR+`` -> ``\\text{PLR}``: a signed name read as the catalog name of its positive or
    negative variant (P or N before or after it: PLR, lrp); left as printed when the two
    spellings name no metric or different ones (the scanner then says what it cannot read)."""
    def replace(match):
        head, sign = match.group(1), match.group(2) or match.group(3) or match.group(4)
        letter = "P" if sign == "+" else "N"
        found = {n: catalog_names().get(_key(n)) for n in (letter + head, head + letter)}
        metrics = {v[0] for v in found.values() if v}
        if len(metrics) != 1:
            return match.group(0)
        return "\\text{%s}" % next(n for n, v in found.items() if v)
    return source.sub(_SIGNED, replace)


def typed_times(source: Source) -> Source:
    """``TPxTN``: an x typed between two counts or metric names is the product sign."""
    def replace(match):
        known = all(w in _COUNT_WORDS or names_metric(w) for w in match.groups())
        return match.group(1) + (" \\times " if known else "x")
    return source.sub(_TYPED_TIMES, replace)
