"""Chains of forms, ``L = A = B``: every form read and identified, their agreement judged.

Papers print a metric as a chain of equal forms (PyCM's ``ERR = \\frac{FP+FN}{P+N} =
\\frac{FP+FN}{TP+TN+FP+FN} = 1 - ACC``, Spark's ``ACC = TP/(TP+FP) = \\frac{1}{N}\\sum_i
\\hat\\delta(\\hat{y}_i - y_i)``). Each form is identified on its own; the chain then says:

- the forms agree: the metrics every form matches are the answer (a form of open readings is
  settled by the others: TP/P = TP/(TP+FN) reads P as the positives);
- they agree once a form's plain counts are read as summed over the classes (Spark's
  TP/(TP+FP) of a multi-class guide is micro precision, which is accuracy for single-label
  data): the answer is what they then share, and the reading is said;
- they contradict each other: each form's metrics are reported with the form they need, the
  contradiction in words, and the answer is not forced (``metricc identify`` exits 1).

A form that cannot be read or matches no catalog metric says so and neither confirms nor
contradicts the others. Every match here was proved or confirmed at random data for its own
form (:mod:`.identify`); nothing is assumed equal because it is printed so.
"""

from __future__ import annotations

import dataclasses

import sympy

from metricc.audit.identify_single_label import agrees_on_single_label
from metricc.audit.notation import CLASS_COUNTS
from metricc.compiler.language import symbols
from metricc.core.errors import InputError

__all__ = ["Form", "chained", "pooled"]


@dataclasses.dataclass(frozen=True)
class Form:
    number: int  # 1 for the first form after the label
    parsed: str | None  # None when it cannot be read
    matches: tuple[str, ...]  # its matches as "metric [average]"
    error: str | None = None

    def to_json(self) -> dict:
        return {"form": self.number, "parsed": self.parsed, "matches": list(self.matches), "error": self.error}

    def text(self) -> str:
        if self.error:
            return f"form {self.number}: {self.error}"
        return f"form {self.number}: {self.parsed} = {', '.join(self.matches) or 'no catalog metric'}"


def pooled(expr: sympy.Expr) -> sympy.Expr | None:
    """A form over plain counts with each count summed over the classes (the micro reading);
    None for a form that has class indices or other symbols."""
    if expr.atoms(sympy.Indexed) or not expr.free_symbols or not expr.free_symbols <= set(symbols.COUNTS):
        return None
    k = sympy.Dummy("k", integer=True, nonnegative=True)
    return expr.xreplace({s: sympy.Sum(CLASS_COUNTS[c][k], (k, 0, symbols.N_CLASSES - 1))
                          for c, s in zip(("TP", "FP", "FN", "TN"), symbols.COUNTS)})


def _name(match) -> str:
    return f"{match.metric} [{match.average}]" if match.average else match.metric


def chained(result, identify_form, pooled_matches, relabel):
    """``result`` (the identification of the first readable form) with every form of its chain
    (``result.forms``: the form read, how many) read: ``identify_form(i)`` identifies form i (0-based), ``pooled_matches(i)``
    gives form i's matches with its counts summed over the classes, ``relabel(matches)`` the
    label's (names, agrees) for a set of matches."""
    if result.forms[1] < 2:
        return result
    forms, found = [], []
    for i in range(result.forms[1]):
        try:
            each = identify_form(i)
        except InputError as error:
            forms.append(Form(i + 1, None, (), f"cannot be read: {error}"))
            continue
        forms.append(Form(i + 1, each.parsed, tuple(_name(m) for m in each.matches)))
        if each.matches:
            found.append((i, each))
    result = dataclasses.replace(result, chain=tuple(forms))
    if len(found) < 2:
        return result
    shared = _shared(found)
    if shared:
        return _agreed(result, found, shared, relabel, None)
    for i, each in found:  # a form over plain counts read as pooled (micro): Spark's TP/(TP+FP)
        matches = [m for m in pooled_matches(i) if m.holds != "binary"]  # pooled over two classes says nothing
        if not matches:
            continue
        agreed = [(j, dataclasses.replace(each, matches=tuple(matches), forced=True) if j == i else e) for j, e in found]
        shared = _shared(agreed)
        if shared:
            said = (f"read the counts of form {i + 1} ({each.parsed}) as summed over the classes: every form then "
                    f"defines {', '.join(sorted(_name(m) for m in shared))}")
            return _agreed(result, agreed, shared, relabel, said)
    lines = "; ".join(f"form {i + 1} ({each.parsed}) is {', '.join(_name(m) for m in each.matches)}" for i, each in found)
    matches = tuple(dataclasses.replace(m, reading=m.reading + (f"form {i + 1} is meant",))
                    for i, each in found for m in each.matches)
    names, agrees = relabel(matches)
    return dataclasses.replace(result, matches=matches, forced=False, label_names=names, label_agrees=agrees,
                               contradiction=f"the forms of the chain are not equal: {lines}")


def _shared(found: list) -> tuple:
    """The matches of any form that every other form equals: the same variant, or the same
    number on single-label data where a form is over multi-label instances (Spark's sum of
    deltas over the samples is exact_match_ratio there, accuracy here)."""
    out, seen = [], set()
    for i, each in found:
        others = [e for j, e in found if j != i]
        for m in each.matches:
            if (m.metric, m.average) not in seen and all(_in(m, other) for other in others):
                seen.add((m.metric, m.average))
                out.append(m)
    return tuple(sorted(out, key=lambda m: ("all", "single-label", "binary").index(m.holds)))


def _in(match, other) -> bool:
    """Whether the form ``other`` matches ``match``'s variant, or one equal to it on single-label data."""
    if (match.metric, match.average) in {(o.metric, o.average) for o in other.matches}:
        return True
    return any(agrees_on_single_label((match.metric, match.average), [o])
               or agrees_on_single_label((o.metric, o.average), [match]) for o in other.matches)


def _agreed(result, found: list, shared: tuple, relabel, said: str | None):
    """The answer of a chain whose forms agree: the matches they share, shown as the first
    form whose reading is forced (else the first) reads."""
    source = next((each for _, each in found if each.forced), found[0][1])
    names, agrees = relabel(shared)
    inferred = source.inferred + ((said,) if said else ())
    return dataclasses.replace(result, parsed=source.parsed, matches=shared, forced=all(e.forced for _, e in found),
                               label_names=names, label_agrees=agrees, inferred=inferred)
