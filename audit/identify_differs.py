"""What differs between a printed formula and its nearest catalog metrics, in a sentence.

The formula is perturbed one step at a time (one occurrence of a count swapped for another,
one square root dropped, a square root added, the pairs k = j of a double sum over the
classes left out) and each perturbation is identified again;
a perturbation that matches names the difference: "uses TN where f1 uses FN", "missing the
square root", "has a square root that mcc does not". Other known confusions have their own
sentence (the F1 of macro averages against the mean of per-class F1).
"""

from __future__ import annotations

import sympy

from metricc.audit.identify_numeric import distance, numeric_matches, parameters, variants
from metricc.audit.identify_scores import is_score_formula, score_table
from metricc.audit.latex_formula import with_meanings
from metricc.audit.notation import CLASS_COUNTS, CLASS_VECTOR, unless_equal
from metricc.compiler.language import symbols

__all__ = ["nearest"]

_MAX_PERTURBATIONS = 24
_NAMES = ("TP", "FP", "FN", "TN")
_KNOWN = {
    (("f1_of_macro_averages", None), ("f1", "macro")):
        "the F1 of macro precision and macro recall, not the mean of per-class F1",
    (("f1", "macro"), ("f1_of_macro_averages", None)):
        "the mean of per-class F1, not the F1 of macro precision and macro recall",
}


def _variant(metric, mode):
    return f"{metric} [{mode}]" if mode else metric


def _count_occurrences(expr):
    """(node, name, replacement builder) for every count in the formula, plain or per class."""
    out = []
    plain = dict(zip(symbols.COUNTS, _NAMES))
    for node in sympy.preorder_traversal(expr):
        if node in plain:
            out.append((node, plain[node], lambda other, node=node: dict(zip(_NAMES, symbols.COUNTS))[other]))
        elif isinstance(node, sympy.Indexed) and node.base in CLASS_COUNTS.values():
            name = next(k for k, v in CLASS_COUNTS.items() if v == node.base)
            out.append((node, name, lambda other, node=node: CLASS_COUNTS[other][node.indices]))
    return out


def _replace_nth(expr, target, replacement, n):
    """``expr`` with the n-th occurrence (preorder) of ``target`` replaced."""
    seen = [0]

    def walk(e):
        if e == target:
            seen[0] += 1
            if seen[0] - 1 == n:
                return replacement
            return e
        if not e.args or isinstance(e, sympy.Indexed):
            return e
        return e.func(*(walk(a) for a in e.args))
    return walk(expr)


def _perturbations(expr, formula=None):
    """(perturbed formula, sentence template with {v} for the variant) one step away; the
    few square-root changes first, then the many count swaps. With the parsed ``formula``,
    counts are swapped in one printed name at a time, before sympy cancels anything (Wenzel
    Eq. 16's weights TP + FP cancel against the denominator of precision)."""
    out = _pairs_left_out(expr)
    if any(node.base == CLASS_VECTOR for node in expr.atoms(sympy.Indexed)):
        k = sympy.Dummy("k", integer=True, nonnegative=True)
        total = sympy.Sum(CLASS_VECTOR[k], (k, 0, symbols.N_CLASSES - 1))
        out.append((expr / total, "not divided by the sum of the class weights, as {v} is"))
    roots = [node for node in sympy.preorder_traversal(expr) if isinstance(node, sympy.Pow) and abs(node.exp) == sympy.S.Half]
    for root in roots:  # sqrt(x) -> x, and 1/sqrt(x) -> 1/x
        out.append((expr.xreplace({root: sympy.Pow(root.base, 2 * root.exp)}), "has a square root that {v} does not"))
    fourth = lambda e: isinstance(e, sympy.Pow) and e.exp.is_Rational and e.exp.q % 4 == 0
    if any(fourth(e) for e in sympy.preorder_traversal(expr)):  # sqrt(sqrt(a) sqrt(b)) is a**(1/4) b**(1/4)
        out.append((expr.replace(fourth, lambda e: sympy.Pow(e.base, 2 * e.exp)), "has a square root that {v} does not"))
    numerator, denominator = sympy.fraction(expr)
    # unevaluated roots: sympy's sqrt of a large fraction looks for square factors (23 s for a
    # continued fraction 16 deep); the numeric comparison reads the root as it stands
    if denominator != 1:
        out.append((numerator / _root(denominator), "missing the square root over the denominator of {v}"))
    out.append((_root(expr), "missing the square root of {v}"))
    out.append((expr ** 2, "the square root of {v}, not {v} itself"))
    printed = formula.meanings if formula is not None and formula.template is not None else ((None, expr),)
    for placeholder, meaning in printed:
        counter: dict = {}
        for node, name, build in _count_occurrences(meaning):
            n = counter.get(node, 0)
            counter[node] = n + 1
            for other in _NAMES:
                if len(out) >= _MAX_PERTURBATIONS:  # built lazily: each costs a sympy rebuild of the formula
                    return out
                if other != name:
                    changed = _replace_nth(meaning, node, build(other), n)
                    perturbed = changed if placeholder is None else with_meanings(formula, {placeholder: changed})
                    out.append((perturbed, f"uses {name} where {{v}} uses {other}"))
    return out[:_MAX_PERTURBATIONS]


def _root(expr):
    return sympy.Pow(expr, sympy.S.Half, evaluate=False)


def _pairs_left_out(expr) -> list:
    """A double sum over the classes with the pairs k = j left out (Wang Eq. 16-17 print the
    sum over every k, where AUC(j, j) = 1/2 does not belong), also a factor C apart (Eq. 17
    divides by m(m - 1) where the weights P(j) already sum to 1)."""
    out = []
    for node in sympy.preorder_traversal(expr):
        classes = [v for v, low, high in getattr(node, "limits", ()) if high == symbols.N_CLASSES - 1]
        if isinstance(node, sympy.Sum) and len(classes) >= 2 and not node.atoms(unless_equal):
            inner, outer = classes[0], classes[1]
            changed = expr.xreplace({node: sympy.Sum(unless_equal(node.function, inner, outer), *node.limits)})
            left_out = f"sums over the pairs {inner} = {outer} too, which {{v}} leaves out"
            out += [(changed, left_out), (changed * symbols.N_CLASSES, left_out + ", and is a factor C smaller than {v}"),
                    (changed / symbols.N_CLASSES, left_out + ", and is a factor C larger than {v}")]
    return out


def nearest(expr, found, label_names, limit: int = 3, formula=None) -> list[tuple]:
    """(metric, average, differs) of the nearest catalog variants; the label's variant first
    when the formula does not define what its label names; ``formula``: the parse, whose
    printed names are perturbed one at a time."""
    wanted = []
    if label_names is not None:
        metric, mode = label_names
        wanted.append((metric, mode))
    if not wanted and found:
        return []
    sentences: dict = {}
    if not found:  # one step away first, then the closest values
        for perturbed, template in _perturbations(expr, formula):
            for variant, holds in numeric_matches(perturbed, "any"):
                key = (variant[0], variant[1])
                if key not in sentences and (key in wanted or len(wanted) < limit):
                    sentences[key] = template.format(v=_variant(*key))
                    wanted.extend([] if key in wanted else [key])
        kind = "per-class" if not expr.atoms(sympy.Indexed) else "scores" if is_score_formula(expr) else "single-label"
        keys = {v[:2] for v in (score_table() if kind == "scores" else variants(parameters(expr)))}
        ranked = sorted(keys, key=lambda key: (distance(expr, key, kind), str(key)))
        wanted.extend(k for k in ranked if k not in wanted)
        wanted = wanted[:limit]
    for m in found:
        for target in wanted:
            text = _KNOWN.get(((m.metric, m.average), target))
            if text and target not in sentences:
                sentences[target] = text
    for perturbed, template in _perturbations(expr, formula):
        if all(t in sentences for t in wanted):
            break
        for variant, holds in numeric_matches(perturbed, "any"):
            key = (variant[0], variant[1])
            for target in wanted:
                if target not in sentences and (key == target or target[1] is None and key[0] == target[0]):
                    sentences[target] = template.format(v=_variant(*key))
    for m in found:
        for target in wanted:
            if target not in sentences and (m.metric, m.average) == target and m.holds != "all":
                sentences[target] = f"equals {_variant(*target)} only for {m.holds} data"
    out = []
    for target in wanted:
        differs = sentences.get(target, f"a different formula: no single swap of counts or square root turns it into {_variant(*target)}")
        out.append((target[0], target[1], differs))
    return out[:limit + 1]
