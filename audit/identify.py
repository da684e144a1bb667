"""Which catalog metric does a printed formula define? (``metricc identify``)

The formula is parsed (:mod:`.latex_formula`), evaluated at random data of three kinds and
compared with every catalog variant (metric x averaging mode) computed by the runtime:

- per-class counts of multi-label data (no single-label identities): equal there -> ``all``;
- confusion matrices of 3 and 4 classes: -> ``single-label``;
- 2 x 2 confusion matrices, class 1 positive: -> ``binary``;
- a formula over the instances of multi-label data (``\\frac{1}{n}\\sum_{i=1}^{n}``, ``|Y_i \\cap
  Z_i|``, ``I(Y_i = Z_i)``): multi-label data sets, against every averaging (samples too) -> ``all``.

A formula without class indices (``\\frac{TP}{TP+FP}``) is a per-class formula: equal to a
class-level metric on every count -> ``all`` (reported with averaging ``binary``). A letter
with several customary meanings or none (``P``, ``n``, ``l``, ``TOP``) is tried in each of its
readings (:mod:`.formula_readings`); the answer says which reading matched, or under which
reading each metric holds when they differ (then ``forced`` is false). Printed parameters are
tried in each role (PyCM's Tversky index) and a match names the parameter values it needs;
printed numbers are solved for as parameter values (``5PR/(4P+R)``: F-beta with beta = 2,
:mod:`.identify_solve`).
Candidates are then proved symbolically (:mod:`.identify_proof`) or, failing that, must agree at
fresh random points of their scope (:func:`.identify_numeric.confirmed`); the text output says
which were proved. When nothing matches, perturbations of the formula (one
count swapped for another, a square root dropped or added, the pairs k = j of a double sum
left out) find what differs; a formula with one free class index (Wang's CEN_j) is compared
class by class with the per-class matrix metrics (``class_cen``, averaging ``none``:
:mod:`.identify_per_class`), and one with free indices (CEN_j, AUC(j, k)) is summed over them
in the usual ways to find the metric it is a per-class value of (:mod:`.identify_free`). Formulas over samples' probabilities (``f(s,j)``, ``p(s,j)``) are
compared with the score- and curve-level metrics (:mod:`.identify_scores`).
"""

from __future__ import annotations

import dataclasses
import itertools
import json

from metricc.audit.identify_differs import nearest as nearest_variants
from metricc.audit.identify_free import free_indices, nearest_aggregates
from metricc.audit import formula_readings as readings
from metricc.audit.identify_numeric import confirmed, instance_formula, numeric_matches
from metricc.audit.identify_single_label import agrees_on_single_label
from metricc.audit.identify_per_class import per_class_matches
from metricc.audit.identify_proof import proved as proved_matches
from metricc.audit import identify_solve
from metricc.audit.formula_arguments import label_of_call
from metricc.audit.formula_parameters import printed_parameters
from metricc.audit.formula_functions import READINGS, function_readings
from metricc.audit.formula_peer_notation import applicable
from metricc.audit.latex_formula import parse_formula
from metricc.audit.identify_chain import Form, chained, pooled
from metricc.audit.identify_symbols import notation_with
from metricc.audit.notation import SCALARS, label_metric
from metricc.core.errors import InputError
from metricc.runtime.averaging import MODES, PER_CLASS, per_class

__all__ = ["Match", "Nearest", "Identification", "identify"]

_SETTINGS = ("binary", "multiclass", "multilabel", "any")


@dataclasses.dataclass(frozen=True)
class Match:
    metric: str
    average: str | None
    holds: str  # "all" | "single-label" | "binary"
    proved: bool = False  # False: equal on the fixed and on fresh random points, but not proved
    params: tuple[tuple[str, str], ...] = ()  # the metric's parameters the match needs: (name, value)
    reading: tuple[str, ...] = ()  # the readings of letters under which it matches, when not forced
    boundary: tuple[str, ...] = ()  # parameters solved on the boundary of their domain (identify_solve.on_boundary)


@dataclasses.dataclass(frozen=True)
class Nearest:
    metric: str
    average: str | None
    differs: str


@dataclasses.dataclass(frozen=True)
class Identification:
    parsed: str
    label: str | None
    matches: tuple[Match, ...]
    label_agrees: bool | None
    nearest: tuple[Nearest, ...]
    label_names: tuple[str | None, str | None] = (None, None)
    inferred: tuple[str, ...] = ()  # what the formula's letters were read as, and why
    forced: bool = True  # False: the matches hold under different readings of a letter (see Match.reading)
    forms: tuple[int, int] = (0, 1)  # the form read, and how many a chain L = A = B has (identify_chain)
    chain: tuple[Form, ...] = ()  # each form, identified, when there are several
    contradiction: str | None = None  # the forms of the chain that are not equal

    def to_json(self) -> dict:
        return {"parsed": self.parsed, "label": self.label,
                "matches": [{"metric": m.metric, "average": m.average, "holds": m.holds, "proved": m.proved,
                             "params": dict(m.params), "reading": list(m.reading), "boundary": list(m.boundary)}
                            for m in self.matches],
                "label_agrees": self.label_agrees, "inferred": list(self.inferred), "forced": self.forced,
                "chain": [f.to_json() for f in self.chain], "contradiction": self.contradiction,
                "nearest": [{"metric": n.metric, "average": n.average, "differs": n.differs} for n in self.nearest]}

    def text(self) -> str:
        lines = [f"parsed: {self.parsed}", *self.inferred, *(f.text() for f in self.chain)]
        holds = {"all": "for every confusion matrix (and multi-label counts)",
                 "single-label": "for single-label data", "binary": "for two classes"}
        for m in self.matches:
            how = "proved symbolically" if m.proved else "not proved; equal at every sampled and random point"
            given = f"if {' and '.join(m.reading)}: " if m.reading else ""
            params = " with " + ", ".join(f"{k} = {v}" for k, v in m.params) if m.params else ""
            edge = f" ({', '.join(m.boundary)} on the boundary of its domain: a degenerate case)" if m.boundary else ""
            lines.append(f"{given}= {_variant(m.metric, m.average)}{params}{edge} {holds[m.holds]} ({how})")
        if not self.matches:
            lines.append("no catalog metric matches")
        elif self.contradiction:
            lines.append(self.contradiction)
        elif not self.forced:
            lines.append("which reading the paper means decides the metric: give it with --symbol NAME=MEANING")
        if self.label_agrees is False:
            metric, mode = self.label_names
            first = self.matches[0] if self.matches else None
            defined = _variant(first.metric, first.average) if first else "no catalog metric"
            if first and first.metric == metric and first.params:  # F_3 over F-beta at beta = 2: the value differs
                defined += " with " + ", ".join(f"{k} = {v}" for k, v in first.params)
            lines.append(f"labelled {_variant(metric, mode)}, but it defines {defined}")
        for n in self.nearest:
            lines.append(f"nearest: {_variant(n.metric, n.average)}: {n.differs}")
        return "\n".join(lines)


def _variant(metric: str, mode: str | None) -> str:
    return f"{metric} [{mode}]" if mode else metric


def identify(formula: str, notation: str = "latex", setting: str = "any",
             symbols_map: dict[str, str] | None = None) -> Identification:
    """Identify a printed formula; see the module docstring. Raises InputError for text that
    cannot be parsed (the command's exit code 2). A formula that uses functions it defines on
    sets (``P(A, B) := ...``) is read with its sets as (sample, label) pairs and as samples'
    labels (:mod:`.formula_functions`). A formula that cannot be read or matches nothing as
    printed is read again in each peer library's notation that defines a name it prints
    (PyCM's TOP, POP, P^{j}_{i,j}: :mod:`.formula_peer_notation`). Each form of a chain
    ``L = A = B`` is identified and the forms compared (:mod:`.identify_chain`)."""
    on_sets = function_readings(formula) if notation == "latex" else None
    if on_sets:
        tried = [(f"read {READINGS[name]}", f"{READINGS[name]}", text) for name, text in on_sets]
        return _read_each(tried, notation, setting, symbols_map, open_roles=True)
    try:
        printed, error = _chained(_identified(formula, notation, setting, symbols_map), formula, notation, setting,
                                  symbols_map), None
    except InputError as failure:
        printed, error = None, failure
    settled = printed is not None and (printed.matches and printed.forced or printed.contradiction)
    if settled or notation != "latex" or symbols_map:  # a chain's contradiction is no notation to try again
        if error is not None:
            raise error
        return printed
    tried = [(peer.said(), f"the notation is {peer.name()}", text) for peer, text in applicable(formula)]
    return _read_each(tried, notation, setting, symbols_map, printed, error)


def _read_each(tried: list, notation: str, setting: str, symbols_map, printed=None, error=None,
               open_roles: bool = False) -> Identification:
    """The answer from the formula read in each way of ``tried`` ((sentence said when it is the
    one, reading named in each match when several are, text)): the one way that matches, or
    the one whose match the label names; else every way's matches, each with its reading.
    ``open_roles``: nothing printed tells the ways apart (sets defined on no named data), so a
    match under one way only is not forced either."""
    found = []
    for said, named, text in tried:
        try:
            result = _identified(text, notation, setting, symbols_map)
        except InputError as failure:
            error = error or failure
            continue
        if open_roles:  # the formula exists only as read: the first reading stands for it
            printed = printed or result
        if result.matches:
            found.append((said, named, result))
    if printed is not None and printed.matches and tried and not found[:1]:
        return printed
    if printed is not None and printed.matches and printed not in [r for *_, r in found]:
        found = [f for f in found if f[2].forced and _variants(f[2]) <= _variants(printed)]  # one that settles it
    if not found:
        if printed is None:
            raise error
        return printed
    agreeing = [f for f in found if f[2].label_agrees]
    if not open_roles and (len({frozenset(_variants(f[2])) for f in found}) == 1 or len(agreeing) == 1):
        said, _, result = (found if len(agreeing) != 1 else agreeing)[0]
        return dataclasses.replace(result, inferred=result.inferred + (said,))
    matches = tuple(dataclasses.replace(m, reading=m.reading + (named,)) for _, named, r in found for m in r.matches)
    first = found[0][2]
    return dataclasses.replace(first, matches=matches, forced=False,
                               label_agrees=any(r.label_agrees for *_, r in found) if first.label else None)


def _chained(result: Identification, formula: str, notation: str, setting: str, symbols_map) -> Identification:
    """Every form of a chain ``L = A = B`` identified and compared (:mod:`.identify_chain`)."""
    def pooled_matches(i: int) -> list:
        parsed = parse_formula(formula, notation_with(symbols_map, notation), notation, i)
        expr = pooled(parsed.expr) if not parsed.readings else None
        return _matches(expr, setting)[0] if expr is not None else []

    def form(i: int) -> Identification:  # a form that parses to the one identified is not identified again
        if i == result.forms[0]:
            return result
        if str(parse_formula(formula, notation_with(symbols_map, notation), notation, i).expr) != result.parsed:
            return _identified(formula, notation, setting, symbols_map, i)
        return result

    return chained(result, form, pooled_matches, lambda matches: _label(result.label, matches))


def _variants(result: Identification) -> set:
    return {(m.metric, m.average) for m in result.matches}


def _identified(formula: str, notation: str, setting: str, symbols_map, form: int | None = None) -> Identification:
    """:func:`identify` of the formula as printed."""
    if setting not in _SETTINGS:
        raise InputError("setting", f"'{setting}' is not one of {', '.join(_SETTINGS)}")
    if notation not in ("latex", "text"):
        raise InputError("notation", f"'{notation}' is not one of latex, text")
    parsed = parse_formula(formula, notation_with(symbols_map, notation), notation, form)
    marked = readings.prune(dict(parsed.readings), parsed.expr)
    choices = readings.combinations(marked) or [{}]
    if len(choices) > readings.MAX_COMBINATIONS:
        raise InputError("FORMULA", f"too many letters of several or unknown meanings ({', '.join(sorted(marked))}): "
                                    "give their meanings with --symbol NAME=MEANING")
    found, edges, first = _tried(parsed, choices, setting)
    chosen, matched, forced, inferred = _decided(parsed, marked, found, first)
    if forced and matched and readings.open_roles(marked) and len(found) < len(choices):
        matched = tuple(dataclasses.replace(m, reading=_reading_words(choice, marked, "is"))
                        for choice, _, ms in found for m in ms)
        said = {"read " + w for w in _reading_words(found[0][0], marked, "as")}
        forced, inferred = False, [s for s in inferred if s not in said]
    label_names, agrees = _label(parsed.label, matched)
    if agrees is False and instance_formula(chosen.expr):  # compared on multi-label data only
        agrees = agrees_on_single_label(label_names, matched)
    expr = chosen.expr
    free = free_indices(expr)
    if len(free) == 1 and not matched:  # CEN_j: the per-class values of a matrix metric (averaging none)
        matched = tuple(Match(metric, PER_CLASS, holds) for metric, holds in per_class_matches(expr, free[0], setting))
        label_names, agrees = _label(parsed.label, matched)
    if free and all(per_class(m.average) for m in matched):  # CEN_j, AUC(j, k): a per-class or per-pair value
        names = {m.metric for m in matched}  # class_cen's own averages say nothing new
        nearest = [n for n in nearest_aggregates(expr, free, matched=bool(matched)) if n[0] not in names]
    elif forced:
        nearest = nearest_variants(expr, matched, label_names if agrees is False else None, formula=chosen)
    else:
        nearest = []
    if not matched and edges:
        nearest = (edges + [n for n in nearest if n[:2] not in {e[:2] for e in edges}])[:max(3, len(edges))]
    return Identification(str(expr), parsed.label, matched, agrees, tuple(Nearest(*n) for n in nearest),
                          label_names, tuple(inferred), forced, (parsed.form, parsed.forms))


def _tried(parsed, choices: list[dict], setting: str) -> tuple[list, list, tuple]:
    """The formula under each choice of readings: (choice, formula, matches) of those that
    match, the edge-case near matches of the first that has any, and (choice, formula) of the
    first reading that makes sense (shown when none matches)."""
    found, edges, first = [], [], None
    numbers = identify_solve.prints_numbers(parsed.template)  # only printed numbers are solved for
    for choice in choices:
        try:
            reading = parsed.read(choice)
        except InputError:  # a reading that makes no sense here (a count as a sum's bound)
            continue
        first = first or (choice, reading)
        matches, near = _matches(reading.expr, setting, numbers)
        if matches:
            found.append((choice, reading, matches))
        elif near and not edges:
            edges = near
    if first is None:  # no reading makes sense: the first one's error
        parsed.read(choices[0])
    return found, edges, first


def _decided(parsed, marked: dict, found: list, first: tuple):
    """(formula shown, matches, forced, what was read): the reading is forced when every
    reading that matches gives the same metrics; otherwise each match says under which."""
    distinct = {tuple(sorted((m.metric, m.average or "") for m in matches)) for _, _, matches in found}
    forced = len(distinct) <= 1
    inferred = [sentence for _, sentence in parsed.inferred]
    if not found:
        choice, chosen = first
        shown = _reading_words(choice, marked, "as")
        if shown:
            letters = ", ".join(sorted(n for n in marked if len(marked[n][1]) > 1))
            inferred.append(f"no reading of {letters} matches a catalog metric; shown reading {' and '.join(shown)}")
        return chosen, (), True, inferred
    if not forced:
        matched = tuple(dataclasses.replace(m, reading=_reading_words(choice, marked, "is"))
                        for choice, _, ms in found for m in ms)
        return found[0][1], matched, False, inferred
    if len(found) == 1:
        inferred.extend("read " + w for w in _reading_words(found[0][0], marked, "as"))
    return found[0][1], tuple(found[0][2]), True, inferred


def _reading_words(choice: dict, marked: dict, verb: str) -> tuple[str, ...]:
    """How each letter of several readings was read (only those that had a choice)."""
    plural = {"is": "are", "as": "as"}  # the cells a, c of a table are ... (formula_readings)
    return tuple(f"{name} {plural[verb] if isinstance(marker, tuple) else verb} {readings.READINGS[reading]}"
                 for name, (marker, reading) in sorted(choice.items())
                 if len(marked[name][1]) > 1)


def _matches(expr, setting: str, solve: bool = False) -> list[Match]:
    """The catalog variants ``expr`` equals, each proved or confirmed at fresh random points
    (a match neither proved nor confirmed is none), ordered; printed scalar parameters are
    tried in each role (PyCM's Tversky index weighs FN by alpha, the catalog's FP)."""
    out, seen, near = [], set(), []
    for renamed, binding in _bindings(expr):
        candidates = sorted(((v, h) for v, h in numeric_matches(renamed, setting) if v[:2] not in seen),
                            key=lambda vh: (("all", "single-label", "binary").index(vh[1]), _rank(vh[0])))
        if not candidates:
            continue
        proved = proved_matches(renamed, [v for v, _ in candidates], [h for _, h in candidates])
        for (variant, holds), done in zip(candidates, proved):
            equal, where = (True, None) if done else confirmed(renamed, variant, holds)
            if equal:
                seen.add(variant[:2])
                out.append((variant, holds, done, _params(variant, binding)))
            elif where:
                near.append((variant[0], variant[1], f"equal except where {where}: there the catalog defines "
                                                     f"{_variant(*variant[:2])} by its own value"))
    if not out and solve:  # F_2 = 5PR/(4P+R): a printed number may be a parameter's value (identify_solve)
        out = identify_solve.solved(expr)  # each with the parameters solved on their domain's boundary
    out.sort(key=lambda m: (bool(m[4:]) and bool(m[4]), ("all", "single-label", "binary").index(m[1]), not m[2],
                            _rank(m[0])))
    return [Match(v[0], v[1], h, p, params, boundary=rest[0] if rest else ()) for v, h, p, params, *rest in out], near


def _bindings(expr) -> list[tuple]:
    """(formula, {printed name: the catalog parameter it stands for}) for each assignment of
    the printed scalar parameters to the parameter names, the printed names first."""
    printed = printed_parameters(expr)  # alpha, beta and any Greek letter (formula_parameters)
    out = []
    for names in itertools.permutations(SCALARS.values(), len(printed)):
        mapping = dict(zip(printed, names))
        out.append((expr.xreplace(mapping), {a.name: b.name for a, b in mapping.items()}))
    return out


def _params(variant, binding: dict) -> tuple[tuple[str, str], ...]:
    """The metric's scalar parameters as the match needs them: a printed one in another role
    (``beta = the formula's alpha``), the others at their defaults (``beta = 1``)."""
    import metricc.api as mc

    roles = {catalog: printed for printed, catalog in binding.items()}
    given = {name for name, _ in variant[3]} if len(variant) > 3 else set()  # the formula's own (kappa_i)
    out = []
    for param in mc.catalog()[variant[0]].params:
        if param.name in given and param.name not in roles:
            continue
        if param.name in roles:
            if roles[param.name] != param.name:
                out.append((param.name, f"the formula's {roles[param.name]}"))
        elif param.kind == "scalar":
            out.append((param.name, f"{param.default:g}"))
        elif param.kind == "class_vector":
            out.append((param.name, "the same for every class"))
    return tuple(out)


def _rank(variant) -> tuple:
    """One-per-matrix metrics first, then the common averaging modes."""
    modes = (None, "binary", "micro", "macro", "weighted", "geometric", "none")
    return (variant[1] not in (None,), modes.index(variant[1]) if variant[1] in modes else 9, variant[0])


def _label(label: str | None, matches) -> tuple[tuple, bool | None]:
    """(metric and mode the label names, whether a match is that); ``F_2`` names F-beta at
    beta = 2 (:func:`.identify_solve.label_binding`); ``F(\\beta, \\ell)`` names F (:func:`.label_of_call`)."""
    label = label_of_call(label) if label else label
    binding = identify_solve.label_binding(label) if label else None
    if binding is not None:
        return ("f_beta", None), identify_solve.label_agrees(binding, matches)
    names = label_metric(label) if label else (None, None)
    return names, (_label_agrees(names, matches) if names[0] else None)


def _label_agrees(label_names, matches) -> bool:
    """Whether a match is what the label names; Wenzel's r_M, p_M of multi-label data average
    over the instances, so a macro label agrees with a samples average there."""
    metric, mode = label_names
    modes = (mode, None, *(m.name for m in MODES.values() if mode is not None and m.instances_of == mode))
    return any(m.metric == metric and (mode is None or m.average in modes) for m in matches)


def schema() -> dict:
    """The JSON Schema of ``--format json``."""
    from importlib import resources

    return json.loads(resources.files("metricc.audit").joinpath("identify.schema.json").read_text())
