"""A printed formula (LaTeX as a paper prints it) -> sympy over the catalog's counts.

The text is bounded and read by our own scanner first: every command must be on a short
list, every name is resolved by :mod:`.notation` and replaced by a placeholder symbol, sums
get explicit class bounds, exponents and numbers are bounded. Only then does sympy's LaTeX
parser (the Lark backend) build the arithmetic; the placeholders are replaced by their
meanings afterwards. Nothing is evaluated as code. Errors are :class:`InputError` naming the
column of the original text.
"""

from __future__ import annotations

import dataclasses
import re

import sympy

from metricc.compiler.audit.formula_source import MAX_NESTING, Source, check_brackets, check_nesting, check_operators
from metricc.compiler.audit.formula_text import label_sets, one_name_g_mean, text_to_latex
from metricc.compiler.audit.notation import CLASS_COUNTS, INSTANCE_COUNTS, Notation, split_name, split_run
from metricc.compiler.language import symbols
from metricc.runtime.errors import InputError

__all__ = ["Formula", "parse_formula", "with_meanings", "text_to_latex", "MAX_LENGTH"]

MAX_LENGTH = 2000  # characters: longer than any printed metric definition
MAX_EXPONENT = 16
MAX_DIGITS = 12
_PASS = {"frac": "\\frac", "dfrac": "\\frac", "tfrac": "\\frac", "sqrt": "\\sqrt", "cdot": "\\cdot",
         "times": "\\times", "max": "\\max", "min": "\\min", "log": "\\log", "ln": "\\ln"}
_DECORATIONS = ("bar", "overline", "hat", "mathcal", "mathbb", "vec", "tilde")
_TEXT = ("text", "mathrm", "mathit", "operatorname", "textit", "mathbf", "textrm")
_GREEK = ("beta", "mu", "kappa", "phi", "alpha")
_PLACEHOLDER_LETTERS = "abcdfghopqrsuwyzABDFGHJKLNOQRSUVWXYZ"
_DROP = re.compile(r"\\(left|right|displaystyle|limits|big|Big|bigg|Bigg)(?![A-Za-z])|\\[,;!:]|\\ |&|\\\\"
                   r"|\\(begin|end)\{aligned\}|\$")
_NUMBER_TAG = re.compile(r"(\\quad\s*)?(\\tag\{[^{}]*\}|\(\d+(\.\d+)?\))\s*$")
_VECTOR_CALL = re.compile(r"\(\s*([a-z])\s*\)")  # \phi(i): Branco's relevance of class i
_RELEVANCE = re.compile(r"\^\s*(\\phi|\{\s*\\phi\s*\})")  # Rec^\phi: weighted by the relevance


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


def with_meanings(formula: Formula, changed: dict) -> sympy.Expr:
    """The formula with some printed names' meanings changed (``{placeholder: meaning}``)."""
    return _finish(formula.template.xreplace({**dict(formula.meanings), **changed}))


def parse_formula(text: str, notation: Notation | None = None, syntax: str = "latex") -> Formula:
    """Parse ``text``: ``[label =] formula [, name = definition | with/where ...]``; ``syntax``
    ``"text"`` reads plain text (``2*TP/(2*TP+FP+FN)``, ``sqrt(x)``, ``x**2``) by rewriting it
    into the same LaTeX subset, so both go through one scanner and one notation. Errors name
    the column of ``text`` and quote it (:class:`.Source`)."""
    if len(text) > MAX_LENGTH:
        raise InputError("FORMULA", f"{len(text)} characters; a formula may have at most {MAX_LENGTH}")
    check_nesting(text)
    try:
        return _parse(text, notation or Notation(), syntax)
    except RecursionError:  # a guard: check_nesting bounds the depth far below the limit
        raise InputError("FORMULA", f"nested too deeply (at most {MAX_NESTING} levels of brackets)") from None


def _parse(text: str, notation: Notation, syntax: str) -> Formula:
    source = text_to_latex(text) if syntax == "text" else Source.of(text)
    source = source.sub(_DROP, lambda m: " " if m.group(0) in ("\\ ", "\\,", "\\;", "\\:") else "")
    source = label_sets(one_name_g_mean(source.sub(_NUMBER_TAG, "").strip()))
    main, definitions = _split_definitions(source)
    for name, definition in definitions:  # later definitions may use earlier ones
        notation.defined[_definition_key(name.text)] = _expression(definition, notation)[0]
    segments = _split_top(main, "=")
    label = segments[0].text.strip() if len(segments) > 1 else None
    rest = segments[1:] if label is not None else segments
    if not rest or not rest[0].text.strip():
        raise InputError("FORMULA", "nothing after the label: write the formula after '='")
    first_error = None
    for form in rest:  # a chain of equal forms (Wenzel Eq. 27: set-builder = counts): the first readable
        try:
            expr, template, meanings = _expression(form, notation)
            return Formula(expr, label, text, template, meanings)
        except InputError as error:
            first_error = first_error or error
    raise first_error


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


def _split_definitions(source: Source) -> tuple[Source, list[tuple[Source, Source]]]:
    """The main formula and its auxiliary definitions (after a comma, 'with', 'where')."""
    source = source.sub(re.compile(r"\\text\{\s*(with|where)\s*\}|\\quad|\b(with|where)\b"), ",")
    pieces = [p for p in _split_top(source, ",") if p.text.strip()]
    if not pieces:
        raise InputError("FORMULA", "empty formula")
    definitions = []
    for piece in pieces[1:]:
        sides = _split_top(piece, "=")
        if len(sides) != 2:
            raise piece.strip().error(0, f"cannot read '{piece.quoted()}' after the formula: write a definition 'name = ...'")
        definitions.append((sides[0], sides[1]))
    return pieces[0], definitions


class _Scanner:
    """Rewrites one formula into placeholder LaTeX for the parser, resolving every name."""

    def __init__(self, source: Source, notation: Notation, shared: "_Scanner | None" = None):
        self.source, self.text, self.notation = source, source.text, notation
        self.out: list[str] = []
        self.meanings: dict[sympy.Symbol, sympy.Expr] = shared.meanings if shared else {}
        self.indices: set[str] = shared.indices if shared else set()
        self.name_ends: dict[str, int] = shared.name_ends if shared else {}  # placeholder -> user index after its name
        self.pos = 0

    def error(self, message: str, at: int | None = None) -> InputError:
        return self.source.error(self.pos if at is None else at, message)

    def placeholder(self, meaning: sympy.Expr) -> str:
        """A one-letter, one-digit symbol (``b_{3}``): the parser's grammar reads longer
        subscripts followed by an exponent wrongly."""
        count = len(self.meanings)
        if count >= 10 * len(_PLACEHOLDER_LETTERS):
            raise self.error(f"more than {10 * len(_PLACEHOLDER_LETTERS)} names in one formula")
        name = f"{_PLACEHOLDER_LETTERS[count // 10]}_{{{count % 10}}}"
        self.meanings[sympy.Symbol(name)] = meaning
        self.name_ends[name] = self.source.cols[min(self.pos, len(self.text))]
        return name

    def group(self) -> tuple[int, int]:
        """The span of the braced group (or single character or command) at the position,
        without its braces; the position moves past it."""
        text = self.text
        while self.pos < len(text) and text[self.pos] == " ":
            self.pos += 1
        if self.pos >= len(text):
            raise self.error("a group is missing at the end")
        start = self.pos
        if text[self.pos] == "\\":
            match = re.match(r"\\[A-Za-z]+", text[self.pos:])
            self.pos += len(match.group(0)) if match else 2
            return start, self.pos
        if text[self.pos] != "{":
            self.pos += 1
            return start, self.pos
        depth = 0
        for i in range(self.pos, len(text)):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                self.pos = i + 1
                return start + 1, i
        raise self.error("unbalanced '{'", start)

    def rewrite(self, start: int, end: int) -> str:
        """The placeholder LaTeX of ``text[start:end]``, sharing this scanner's names."""
        return _Scanner(self.source.slice(start, end), self.notation, self).run()

    def run(self) -> str:
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch == "\\":
                self.command()
            elif ch.isalpha():
                self.name(bar=False)
            elif ch.isdigit() or ch == ".":
                digits = re.match(r"[0-9.]+", text[self.pos:]).group(0)
                if len(digits) > MAX_DIGITS:
                    raise self.error(f"a number of more than {MAX_DIGITS} digits")
                self.out.append(digits)
                self.pos += len(digits)
            elif ch == "^":
                at = self.pos
                self.pos += 1
                start, end = self.group()
                exponent = text[start:end]
                if "^" in exponent or any(abs(float(x)) > MAX_EXPONENT for x in re.findall(r"\d+(?:\.\d+)?", exponent)):
                    raise self.error(f"exponent '{self.source.slice(start, end).quoted()}' too large: at most "
                                     f"{MAX_EXPONENT}, no towers", at)
                self.out.append("^{" + self.rewrite(start, end) + "}")
                if text[self.pos:].lstrip().startswith("^"):
                    raise self.error("a power tower (x^a^b): write the exponent in one group", at)
            elif ch in "+-*/(){}[],=| ":
                if ch == "(" and re.search(r"(\)|[A-Za-z]_\{\d\})\s*$", "".join(self.out)):
                    self.out.append("\\cdot ")  # (a)(b), p_k(n - p_k): a product, not a call
                self.out.append(ch)
                self.pos += 1
            else:
                raise self.error(f"unexpected character '{ch}'")
        return "".join(self.out)

    def command(self):
        match = re.match(r"\\([A-Za-z]+)", self.text[self.pos:])
        if not match:
            raise self.error(f"unexpected '{self.text[self.pos:self.pos + 2]}'")
        name, start = match.group(1), self.pos
        self.pos += len(match.group(0))
        if name in ("sum", "prod"):
            self.big_operator(name)
        elif name in _PASS:
            self.out.append(_PASS[name] + " ")
            if name == "sqrt" and self.text[self.pos:self.pos + 1] == "[":
                end = self.text.find("]", self.pos)
                if end < 0:
                    raise self.error("'[' is never closed")
                self.out.append("[" + self.rewrite(self.pos + 1, end) + "]")
                self.pos = end + 1
            if name == "log" and self.text[self.pos:self.pos + 1] == "_":
                self.pos += 1
                self.out.append("_{" + self.rewrite(*self.group()) + "}")
        elif name in _DECORATIONS or name in _TEXT or name in _GREEK:
            self.pos = start
            self.name(bar=False)
        else:
            raise self.error(f"unsupported command '\\{name}'", start)

    def big_operator(self, name: str):
        """``\\sum_{i=1}^{C}``, ``\\sum_i``, ``\\sum_{k,l}``: explicit bounds over the classes."""
        text, at = self.text, self.pos
        variables, lower, upper = [], None, None
        if text[self.pos:self.pos + 1] == "_":
            self.pos += 1
            start, end = self.group()
            sub = text[start:end]
            if "=" in sub:
                equals = start + sub.index("=")
                variables, lower = [text[start:equals].strip()], (equals + 1, end)
            else:
                variables = [v.strip() for v in sub.split(",")]
        if text[self.pos:self.pos + 1] == "^":
            self.pos += 1
            upper = self.group()
        if not variables or not all(re.fullmatch(r"[a-z]", v) for v in variables):
            raise self.error(f"\\{name} needs an index variable such as _{{i=1}}^{{C}}", at)
        self.indices.update(variables)
        bound = self.rewrite(*upper) if upper is not None else self.placeholder(symbols.N_CLASSES)
        low = self.rewrite(*lower) if lower is not None else "1"
        start = self.pos
        self.pos = _term_end(text, start)  # the body: up to the next + - = , outside brackets,
        while text[self.pos:self.pos + 1] in ("+", "-") and self.pos < len(text):
            end = _term_end(text, self.pos + 1)  # and on over terms that use its index (Kozak
            term = text[self.pos + 1:end]        # Eq. 27: sum kappa_i prec_i + (1 - kappa_i) rec_i)
            if re.match(r"\s*\\(sum|prod)", term) or not any(_uses_index(term, v) for v in variables):
                break
            self.pos = end
        body = self.rewrite(start, self.pos)
        for var in variables:  # braced, so that the parser's grammar cannot read it two ways
            self.out.append(f"{{\\{name}_{{{var}={low}}}^{{{bound}}} (")
        self.out.append(body + ")}" * len(variables))

    def name(self, bar: bool):
        """One printed name (with decorations and subscripts) -> placeholders."""
        text, start = self.text, self.pos
        words: list[str] = []
        while self.pos < len(text) and text[self.pos] == "\\":
            command = re.match(r"\\([A-Za-z]+)", text[self.pos:]).group(1)
            self.pos += len(command) + 1
            if command in _DECORATIONS:
                bar = bar or command in ("bar", "overline")
                words.append(text[slice(*self.group())].strip().lstrip("\\"))
                break
            if command in _TEXT:
                words.append(text[slice(*self.group())].strip())
                break
            if command in _GREEK:
                words.append(command)
                break
        if not words:
            words.append(re.match(r"[A-Za-z][A-Za-z0-9]*", text[self.pos:]).group(0))
            self.pos += len(words[0])
        call = _VECTOR_CALL.match(text, self.pos)
        if words[0] in ("phi", "kappa") and call:
            self.pos = call.end()
            words[0] += "_" + call.group(1)
        subscripts = []
        while text[self.pos:self.pos + 1] == "_":
            self.pos += 1
            if text[self.pos:self.pos + 1].isalpha():
                word = re.match(r"[A-Za-z0-9]+", text[self.pos:]).group(0)
                self.pos += len(word)
                subscripts.append(word)
            else:
                subscripts.append(text[slice(*self.group())].replace(" ", ""))
        relevance = _RELEVANCE.match(text, self.pos)
        if relevance:
            self.pos = relevance.end()
            subscripts.append("^phi")
        head = split_name(words[0])
        if len(head) == 1 and head[0] in self.indices and not subscripts:
            self.out.append(head[0])
            return
        runs = split_run(head[0]) if len(head) == 1 and not subscripts else None
        parts_list = [[w] for w in runs] if runs and len(runs) > 1 else [head + subscripts]
        where = f"column {self.source.column(start)}"
        for parts in parts_list:
            self.out.append(" " + self.placeholder(self.notation.resolve(parts, bar, where)) + " ")


def _term_end(text: str, start: int) -> int:
    """Where the term starting at ``start`` ends: the next + - = , outside brackets."""
    depth, pos = 0, start
    while pos < len(text):
        ch = text[pos]
        depth += 1 if ch in "{([" else -1 if ch in "})]" else 0
        if depth < 0 or depth == 0 and ch in "+-=," and pos > start:
            break
        pos += 1
    return pos


def _uses_index(term: str, variable: str) -> bool:
    """Whether ``term`` subscripts something with ``variable`` (TP_i, mat_{i,j}, \\phi(i))."""
    v = re.escape(variable)
    return bool(re.search(rf"_{v}(?![A-Za-z0-9])|_\{{[^{{}}]*(?<![A-Za-z]){v}(?![A-Za-z])[^{{}}]*\}}|\(\s*{v}\s*\)", term))


def _expression(source: Source, notation: Notation) -> tuple:
    """(expression, template, meanings) of one formula; see :class:`Formula`."""
    from sympy.parsing.latex import parse_latex  # the Lark backend; imported only to parse

    check_brackets(source)
    check_operators(source)
    scanner = _Scanner(source, notation)
    latex = scanner.run()
    if not latex.strip():
        raise InputError("FORMULA", "empty formula")
    try:
        parsed = parse_latex(latex, backend="lark")
    except Exception as error:  # noqa: BLE001 - lark raises several unrelated types
        raise _parse_error(source, latex, getattr(error, "column", None), scanner.name_ends) from None
    if not isinstance(parsed, sympy.Expr):  # a lark Tree: more than one reading
        raise InputError("FORMULA", f"'{source.quoted()}' can be read in more than one way: add brackets")
    expr = _zero_based(parsed.xreplace(scanner.meanings))
    unknown = {s for s in expr.free_symbols if isinstance(s, sympy.Symbol) and "_{" in s.name}
    if unknown:
        raise InputError("FORMULA", f"cannot read '{source.quoted()}'")
    order = sorted(scanner.meanings, key=lambda s: _PLACEHOLDER_LETTERS.index(s.name[0]) * 10 + int(s.name[3]))
    return _unindexed(expr), parsed, tuple((s, scanner.meanings[s]) for s in order)


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
    return _unindexed(_zero_based(expr))


def _zero_based(expr: sympy.Expr) -> sympy.Expr:
    """Sums and products over the classes 1..C become 0..C-1 (the runtime's class order)."""
    def shift(node):
        limits = []
        for var, low, high in node.limits:
            if (low, high) == (1, symbols.N_CLASSES):
                low, high = sympy.S.Zero, high - 1
            elif (low, high) == (1, symbols.N_TOTAL):  # over the n instances (multi-label, Wenzel Eq. 23-27)
                low, high = sympy.S.Zero, high - 1
                body = node.function.xreplace({CLASS_COUNTS[c][var]: INSTANCE_COUNTS[c][var] for c in CLASS_COUNTS})
                return type(node)(body, *limits, (var, low, high), *node.limits[len(limits) + 1:])
            elif (low, high) != (0, symbols.N_CLASSES - 1):  # also bounds every sum's length
                raise InputError("FORMULA", f"a sum over {var} from {low} to {high}: sums run over the classes, "
                                            "from 1 to C (or 0 to C - 1)")
            limits.append((var, low, high))
        return type(node)(node.function, *limits)
    return expr.replace(lambda e: isinstance(e, (sympy.Sum, sympy.Product)), shift)


def _unindexed(expr: sympy.Expr) -> sympy.Expr:
    """A class index no sum binds (``\\frac{tp_i}{tp_i + fp_i}``) names one class: the
    formula is per class, over TP, FP, FN, TN."""
    bound = {v for node in expr.atoms(sympy.Sum, sympy.Product) for v, *_ in node.limits}
    plain = dict(zip(("TP", "FP", "FN", "TN"), symbols.COUNTS))
    replacements = {}
    for node in expr.atoms(sympy.Indexed):
        if not (set(node.indices) & bound) and node.base in CLASS_COUNTS.values():
            name = next(k for k, v in CLASS_COUNTS.items() if v == node.base)
            replacements[node] = plain[name]
    return expr.xreplace(replacements)
