"""A printed formula (LaTeX as a paper prints it) -> sympy over the catalog's counts.

The text is bounded and read by our own scanner first (:mod:`.formula_scanner`): every
command must be on a short list, every name is resolved by :mod:`.notation` (or a definition
with index parameters, :mod:`.formula_definitions`) and replaced by a placeholder symbol, sums
get explicit class bounds, exponents and numbers are bounded. Only then does sympy's LaTeX
parser (the Lark backend) build the arithmetic; the placeholders are replaced by their
meanings afterwards. Nothing is evaluated as code. Errors are :class:`InputError` naming the
column of the original text.
"""

from __future__ import annotations

import dataclasses
import re

import sympy

from metricc.compiler.analysis import budget
from metricc.audit.formula_definitions import INDEX_CONDITIONS, bound_meanings, fresh_bound, pattern_of
from metricc.audit.formula_names import metric_named, signed_names, typed_times
from metricc.audit.formula_readings import cell_marker, role_bounds, substitute, table_cells
from metricc.audit.formula_events import events
from metricc.audit.formula_indicators import indicators
from metricc.audit.formula_memberships import memberships
from metricc.audit.formula_preceding import preceding_definitions
from metricc.audit.formula_parameters import parameter
from metricc.audit.formula_sets import any_sets, set_letters, set_marker
from metricc.audit.formula_scanner import EXCLUDED, PLACEHOLDER_LETTERS, Scanner
from metricc.audit.formula_source import (MAX_NESTING, Source, check_brackets, check_fractions, check_nesting,
                                                   check_operators)
from metricc.audit.formula_text import (digit_margins, label_sets, one_name_g_mean, plain_subscripts, text_to_latex, typeset_operators,
                                          unwrapped)
from metricc.audit.notation import CLASS_COUNTS, INSTANCE_COUNTS, Notation, unless_equal
from metricc.compiler.language import symbols
from metricc.core.errors import InputError

__all__ = ["Formula", "parse_formula", "with_meanings", "text_to_latex", "MAX_LENGTH"]

MAX_LENGTH = 2000  # characters: longer than any printed metric definition
_DROP = re.compile(r"\\(left|right|displaystyle|limits|nolimits|big|Big|bigg|Bigg)(?![A-Za-z])|\\[,;!:]|\\ |&|\\\\"
                   r"|\\(begin|end)\{aligned\}|\$")
_NUMBER_TAG = re.compile(r"(\\quad\s*)?(\\tag\{[^{}]*\}|\(\d+(\.\d+)?\))\s*$"  # an equation number at the end,
                         r"|(\\quad\s*\(\d+(\.\d+)?\)|\\tag\{[^{}]*\})\s*(?=,)")  # or before the definitions


# C_{k\cdot}, C_{\cdot k}, n_{k+}, n_{+k}: a marginal (row or column total), rewritten C_{k:}, C_{:k}
_MARGINAL = re.compile(r"_\{\s*(?:([a-z])\s*(\\cdot|\\bullet|\+|\.)|(?:\\cdot|\\bullet|\+|\.)\s*([a-z]))\s*\}")
# what a label in front of '=' never holds: a fraction, a sum, a root, an operator between terms
_LABEL_MATH = re.compile(r"\\(d?frac|sum|prod|sqrt)(?![A-Za-z])|[+*/]|(?<=[\w})])\s+-\s+(?=[\w\\(])")
# a new line that starts a definition 'X = ...' (a list of definitions under the formula), not
# a continued equation ('= ...', '&= ...')
_DEFINITION_LINE = re.compile(r"\s*\n\s*(?=[^=&\s][^=\n]*=)")
# the words that join a formula to its definitions or its index ranges: "and", "for", "with", "where"
_JOINING_WORD = re.compile(r"\s*(\\quad|\\qquad)?\s*(\\text\{\s*(and|for|with|where)\s*\}|(?<![A-Za-z\\])(and|for)(?![A-Za-z]))"
                           r"\s*(\\quad|\\qquad)?\s*")


@dataclasses.dataclass(frozen=True)
class Formula:
    """A parsed formula: the expression, the label printed in front of it, the text."""

    expr: sympy.Expr
    label: str | None
    text: str
    # The parse before the names' meanings are put in (one placeholder per printed name, in
    # order): sympy cancels on substitution ((TP + FP) TP / (TP + FP) -> TP), so what differs
    # is looked for by changing one printed name's meaning (:func:`with_meanings`).
    template: sympy.Expr | None = None
    meanings: tuple[tuple[sympy.Symbol, sympy.Expr], ...] = ()
    # names with several readings (formula_readings): name -> (marker, readings); what the
    # roles of letters made of them (letter -> sentence)
    readings: tuple[tuple[str, tuple], ...] = ()
    inferred: tuple[tuple[str, str], ...] = ()
    forms: int = 1  # the forms of a chain ``ACC = TP/(TP+FP) = ...`` (identify_chain reads each)
    form: int = 0  # the one read here

    def read(self, choice: dict) -> "Formula":
        """The formula with each marked name read as chosen (``{name: (marker, reading)}``)."""
        if not choice:
            return self
        expr = _finish(substitute(self.expr, choice))
        meanings = tuple((s, substitute(m, choice)) for s, m in self.meanings)
        return dataclasses.replace(self, expr=expr, meanings=meanings)


def with_meanings(formula: Formula, changed: dict) -> sympy.Expr:
    """The formula with some printed names' meanings changed (``{placeholder: meaning}``)."""
    return _finish(formula.template.xreplace({**dict(formula.meanings), **changed}))


def parse_formula(text: str, notation: Notation | None = None, syntax: str = "latex", form: int | None = None) -> Formula:
    """Parse ``text``: ``[label =] formula [, name = definition | with/where ...]``; ``syntax``
    ``"text"`` reads plain text (``2*TP/(2*TP+FP+FN)``, ``sqrt(x)``, ``x**2``) by rewriting it
    into the same LaTeX subset, so both go through one scanner and one notation. Errors name
    the column of ``text`` and quote it (:class:`.Source`). ``form``: which form of a chain
    ``L = A = B`` to read (the first readable one when None)."""
    if len(text) > MAX_LENGTH:
        raise InputError("FORMULA", f"{len(text)} characters; a formula may have at most {MAX_LENGTH}")
    check_nesting(text)
    check_fractions(text)
    notation = notation or Notation()
    notation.named = notation.named or metric_named
    notation.cell = notation.cell or _cell_or_set
    try:
        return _parse(text, notation, syntax, form)
    except RecursionError:  # a guard: check_nesting bounds the depth far below the limit
        raise InputError("FORMULA", f"nested too deeply (at most {MAX_NESTING} levels of brackets)") from None


def _cell_or_set(notation: Notation, head: str, rest: list[str]) -> sympy.Expr | None:
    """A 2 x 2 table's cell (``a``, ``n_{10}``), a sample's label set of open role (``|L_i|``)
    or a scalar parameter (``\\gamma``, ``beta_positive``)."""
    for reader in (set_marker, parameter, cell_marker):
        found = reader(notation, head, rest)
        if found is not None:
            return found
    return None


def _parse(text: str, notation: Notation, syntax: str, form: int | None = None) -> Formula:
    start = preceding_definitions(Source.of(text))  # "Let P denote ... . Then F = ...": after the formula
    source = typeset_operators(typed_times(text_to_latex(start)) if syntax == "text" else start)
    source = source.sub(_DROP, lambda m: " " if m.group(0) in ("\\ ", "\\,", "\\;", "\\:") else "")
    source = digit_margins(plain_subscripts(unwrapped(one_name_g_mean(source.sub(_NUMBER_TAG, "").strip()))))
    source = signed_names(source)
    for letter, (meaning, sentence) in role_bounds(source.text).items():
        if letter not in notation.defined:
            notation.bounds.setdefault(letter, meaning)
            if sentence:
                notation.inferred.setdefault(letter, sentence)
    source = any_sets(label_sets(indicators(memberships(events(source)))))
    notation.sets = set_letters(source.text)
    notation.cells = {k: v for k, v in table_cells(source.text).items() if k not in notation.defined}
    notation.bounds.update(bound_meanings(source.text))
    source = source.sub(_DEFINITION_LINE, ", ")
    source = _trailing_definitions(source.sub(_MARGINAL, lambda m: f"_{{{m.group(1) or ''}:{m.group(3) or ''}}}")
                                   .sub(_JOINING_WORD, ","))
    main, definitions = _split_definitions(source.sub(INDEX_CONDITIONS, ""))
    _define(definitions, notation)
    segments = _split_top(main, "=")
    label = segments[0].text.strip() if len(segments) > 1 else None
    if label is not None and _LABEL_MATH.search(label):  # '\frac{a}{b} = \frac{c}{d}': two forms, no label
        label = None
    rest = segments[1:] if label is not None else segments
    if not rest or not rest[0].text.strip():
        raise InputError("FORMULA", "nothing after the label: write the formula after '='")
    first_error = None
    for index in range(len(rest)) if form is None else (form,):  # a chain of equal forms: the first readable
        try:
            expr, template, meanings = _expression(rest[index], notation)
            inferred = tuple((k, v) for k, v in notation.inferred.items() if k in notation.used)
            return Formula(expr, label, text, template, meanings, tuple(notation.readings.items()), inferred,
                           len(rest), index)
        except InputError as error:
            first_error = first_error or error
    raise first_error


def _define(definitions: list[tuple[Source, Source]], notation: Notation) -> None:
    """Read the definitions after the formula; one may use another printed after it (Wang's
    CEN_j before the P^j_{i,j} it uses), so an unreadable one waits for the others."""
    pending = list(definitions)
    while pending:
        waiting, first_error = [], None
        for name, definition in pending:
            pattern = pattern_of(name.text)
            try:
                expr = _expression(definition, notation, keep=pattern is not None)[0]
            except InputError as error:
                waiting.append((name, definition))
                first_error = first_error or error
                continue
            if pattern is not None:
                notation.patterns.setdefault(pattern.head, []).append((pattern, fresh_bound(expr)))
            else:
                notation.defined[_definition_key(name.text)] = expr
        if len(waiting) == len(pending):
            raise first_error
        pending = waiting


def _trailing_definitions(source: Source) -> Source:
    """``formula\\ (p_o = ..., p_e = ...)``: definitions in parentheses after the formula are
    read as if after a comma."""
    text = source.text.rstrip()
    if not text.endswith(")"):
        return source
    depth = 0
    for start in range(len(text) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(text[start], 0)
        if depth == 0:
            break
    inside = source.slice(start + 1, len(text) - 1)
    if start == 0 or not text[:start].strip() or len(_split_top(inside, "=")) < 2:
        return source
    head = source.slice(0, start)
    return Source(head.text + ", " + inside.text, head.cols[:-1] + (head.cols[-1],) * 2 + inside.cols, source.user)


def _definition_key(name: str) -> str:
    name = name.strip()
    bar = re.fullmatch(r"\\(bar|overline)\{?([A-Za-z])\}?", name)
    return f"\\bar {bar.group(2)}" if bar else name.replace("{", "").replace("}", "").replace(" ", "")


def _split_top(source: Source, separator: str) -> list[Source]:
    """``source`` split at ``separator`` outside braces and brackets."""
    depth, parts, start, text = 0, [], 0, source.text
    for i, ch in enumerate(text):
        depth = max(depth + (ch in "{([" and 1 or ch in "})]" and -1 or 0), 0)  # a stray '}' (Wenzel Eq. 27) closes nothing
        if depth == 0 and text.startswith(separator, i):
            parts.append(source.slice(start, i))
            start = i + len(separator)
    return parts + [source.slice(start)]


# a definition in words after the formula: 'l is the number of classes', 'n denotes the total
# number of samples'; the meaning in the formulas' own notation
_PROSE_MEANINGS = {"class": "C", "label": "C", "categorie": "C", "sample": "s", "instance": "s", "example": "s",
                   "observation": "s", "record": "s", "positive": "(TP + FN)", "negative": "(TN + FP)",
                   "true positive": "TP", "false positive": "FP", "false negative": "FN", "true negative": "TN"}
_PROSE = re.compile(r"\s*(\\?[A-Za-z][A-Za-z0-9_{}]*|\|[A-Za-z]\|)\s+(is|denotes|are|stands for)\s+(?:the\s+)?(?:total\s+)?"
                    r"(?:number|count)\s+of\s+(?:all\s+)?(?:the\s+)?("
                    + "|".join(sorted((re.escape(k) + "(?:es|s)?" for k in _PROSE_MEANINGS), key=len, reverse=True))
                    + r")(?:\s+in\s+the\s+(?:data\s*set|test\s+set|sample))?\s*\.?\s*")


def _split_definitions(source: Source) -> tuple[Source, list[tuple[Source, Source]]]:
    """The main formula and its auxiliary definitions (after a comma, 'with', 'where')."""
    source = source.sub(re.compile(r"\\text\{\s*(with|where)\s*\}|\\quad|\b(with|where)\b"), ",")
    pieces = [p for p in _split_top(source, ",") if p.text.strip()]
    if not pieces:
        raise InputError("FORMULA", "empty formula")
    definitions = []
    for piece in pieces[1:]:
        prose = _PROSE.fullmatch(piece.text)
        if prose:  # 'where l is the number of classes': a definition in words
            name = piece.slice(prose.start(1), prose.end(1))
            phrase = re.sub(r"\s+", " ", prose.group(3).lower())
            meaning = _PROSE_MEANINGS[max((k for k in _PROSE_MEANINGS if phrase.startswith(k)), key=len)]
            definitions.append((name, Source(meaning, (name.cols[0],) * (len(meaning) + 1), piece.user)))
            continue
        sides = _split_top(piece, "=")
        if len(sides) != 2:
            raise piece.strip().error(0, f"cannot read '{piece.quoted()}' after the formula: write a definition 'name = ...'")
        definitions.append((sides[0], sides[1]))
    return pieces[0], definitions


def _expression(source: Source, notation: Notation, keep: bool = False) -> tuple:
    """(expression, template, meanings) of one formula; see :class:`Formula`. ``keep``: a
    definition with index parameters, whose free indices stay indices."""
    from sympy.parsing.latex import parse_latex  # the Lark backend; imported only to parse

    check_brackets(source)
    check_operators(source)
    scanner = Scanner(source, notation)
    latex = scanner.run()
    if not latex.strip():
        raise InputError("FORMULA", "empty formula")
    try:
        parsed = parse_latex(latex, backend="lark")
    except Exception as error:  # noqa: BLE001 - lark raises several unrelated types
        raise _parse_error(source, latex, getattr(error, "column", None), scanner.name_ends) from None
    if not isinstance(parsed, sympy.Expr):  # a lark Tree: more than one reading
        raise InputError("FORMULA", f"'{source.quoted()}' can be read in more than one way: add brackets")
    expr = _exclusions(_zero_based(parsed.xreplace(scanner.meanings)))
    too_large = budget.problem(expr)  # the limits `metricc check` puts on a spec's formula, before any sympy work
    if too_large:
        raise InputError("FORMULA", f"'{_short(source.quoted())}': {too_large}")
    unknown = {s for s in expr.free_symbols if isinstance(s, sympy.Symbol) and "_{" in s.name}
    if unknown:
        raise InputError("FORMULA", f"cannot read '{source.quoted()}'")
    order = sorted(scanner.meanings, key=lambda s: PLACEHOLDER_LETTERS.index(s.name[0]) * 10 + int(s.name[3]))
    return (expr if keep else _unindexed(expr)), parsed, tuple((s, scanner.meanings[s]) for s in order)


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[:width - 5] + " ..."


def _parse_error(source: Source, latex: str, column, name_ends: dict) -> InputError:
    """The parser's complaint, placed in the user's text: after the last printed name before
    the place the parser stopped (the placeholder LaTeX is never shown)."""
    if not isinstance(column, int) or column < 1:
        return InputError("FORMULA", f"'{source.quoted()}' ends too early: an operand or a closing bracket is missing")
    before = [m.group(0) for m in re.finditer(r"[A-Za-z]_\{\d\}", latex) if m.start() < column - 1]
    user = source.user
    at = name_ends.get(before[-1], source.cols[0]) if before else source.cols[0]
    while at < len(user) and user[at] == " ":
        at += 1
    return InputError("FORMULA", f"column {at + 1}: cannot read '{source.quoted()}' here, near "
                                 f"'{user[max(at - 8, 0):at + 8].strip()}'")


def _finish(expr: sympy.Expr) -> sympy.Expr:
    return _unindexed(_exclusions(_zero_based(expr)))


def _exclusions(expr: sympy.Expr) -> sympy.Expr:
    """The terms of a sum over k != j: ``excluded(k, j) * x`` -> x where k != j, else 0 (x is
    never evaluated at k = j, where it may be undefined)."""
    def leave_out(product):
        marker = next(a for a in product.args if isinstance(a, EXCLUDED))
        rest = product.func(*(a for a in product.args if a is not marker))
        return unless_equal(rest, *marker.args)
    return expr.replace(lambda e: e.is_Mul and any(isinstance(a, EXCLUDED) for a in e.args), leave_out)


def _zero_based(expr: sympy.Expr) -> sympy.Expr:
    """Sums and products over the classes 1..C become 0..C-1 (the runtime's class order)."""
    def shift(node):
        body, limits = node.function, []
        for var, low, high in node.limits:
            if (low, high) == (1, symbols.N_CLASSES):
                low, high = sympy.S.Zero, high - 1
            elif (low, high) in ((1, symbols.N_TOTAL), (0, symbols.N_TOTAL - 1)):  # over the n instances
                low, high = sympy.S.Zero, symbols.N_TOTAL - 1  # (multi-label, Wenzel Eq. 23-27; Spark from 0)
                body = body.xreplace({CLASS_COUNTS[c][var]: INSTANCE_COUNTS[c][var] for c in CLASS_COUNTS})
            elif _open_bound(low, high):
                pass  # a letter of several readings: bounded once a reading replaces it (Formula.read)
            elif (low, high) not in ((0, symbols.N_CLASSES - 1), (0, symbols.N_TOTAL - 1)):  # bounds every sum's length
                raise InputError("FORMULA", f"a sum over {var} from {low} to {high}: sums run over the classes, "
                                            "from 1 to C (or 0 to C - 1)")
            limits.append((var, low, high))
        return type(node)(body, *limits)
    return expr.replace(lambda e: isinstance(e, (sympy.Sum, sympy.Product)), shift)


def _open_bound(low, high) -> bool:
    """``1..l`` or ``0..l - 1`` with l a letter of several readings."""
    top = high if low == 1 else high + 1 if low == 0 else None
    return top is not None and top.is_Symbol and top.name.startswith("reading_")


def _unindexed(expr: sympy.Expr) -> sympy.Expr:
    """A class index no sum binds (``\\frac{tp_i}{tp_i + fp_i}``) names one class: the
    formula is per class, over TP, FP, FN, TN."""
    bound = {v for node in expr.atoms(sympy.Sum, sympy.Product) for v, *_ in node.limits}
    bound |= {node.args[1] for node in expr.atoms(*symbols.INDEX_EXTREMES.values())}  # Max(P): over its index
    others = (symbols.M, symbols.SCORE, symbols.TRUTH)  # an index of these too is a class of the formula's
    bound |= {i for node in expr.atoms(sympy.Indexed) if node.base in others for i in node.indices}
    plain = dict(zip(("TP", "FP", "FN", "TN"), symbols.COUNTS))
    replacements = {}
    for node in expr.atoms(sympy.Indexed):
        if not (set(node.indices) & bound) and node.base in CLASS_COUNTS.values():
            name = next(k for k, v in CLASS_COUNTS.items() if v == node.base)
            replacements[node] = plain[name]
    return expr.xreplace(replacements)
