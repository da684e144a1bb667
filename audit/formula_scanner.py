"""The scanner of printed formulas: LaTeX -> placeholder LaTeX for sympy's parser.

Every command must be on a short list; every printed name is resolved by :mod:`.notation`
(or by a definition with index parameters, :mod:`.formula_definitions`) and replaced by a
placeholder symbol (``b_{3}``) whose meaning is kept aside; sums get explicit bounds;
exponents and numbers are bounded. Wang et al.'s notation is read here too: ``log_{2(m-1)}``
without a backslash, ``m.c`` for a product, ``\\sum_{k=1, k \\neq j}^{m}`` (a sum leaving
k = j out), calls ``f(s,j)``, ``p(s,j)``, ``P(j)``, ``AUC(j, r_j)`` and the step
``I(p(s,j), p(t,j))`` (1 above, 1/2 at a tie, 0 below). Errors name the user's column.
"""

from __future__ import annotations

import re

import sympy

from metricc.audit.formula_arguments import metric_call
from metricc.audit.formula_brackets import INDEX_GROUP, closing, superscript_indices, term_end, top_comma, uses_index
from metricc.audit.formula_calls import extreme, letters
from metricc.audit.formula_definitions import Pattern, apply, index_argument
from metricc.audit.formula_parameters import GREEK_PARAMETERS
from metricc.audit.formula_names import agreement, names_metric
from metricc.audit.formula_source import Source
from metricc.audit.notation import MEASURES, Notation, split_name, split_run
from metricc.compiler.language import symbols
from metricc.core.errors import InputError

__all__ = ["Scanner", "EXCLUDED", "PLACEHOLDER_LETTERS"]

MAX_EXPONENT = 16
MAX_DIGITS = 12
_PASS = {"frac": "\\frac", "dfrac": "\\frac", "tfrac": "\\frac", "sqrt": "\\sqrt", "cdot": "\\cdot",
         "times": "\\times", "max": "\\max", "min": "\\min", "log": "\\log", "ln": "\\ln"}
_DECORATIONS = ("bar", "overline", "hat", "widehat", "mathcal", "mathbb", "vec", "tilde")
_TEXT = ("text", "mathrm", "mathit", "operatorname", "textit", "mathbf", "textrm", "boldsymbol", "mathsf", "bm", "textbf",
         "texttt")
_GREEK = ("beta", "mu", "kappa", "phi", "alpha", *GREEK_PARAMETERS)
PLACEHOLDER_LETTERS = "abcdfghopqrsuwyzABDFGHJKLNOQRSUVWXYZ"
_VECTOR_CALL = re.compile(r"\(\s*([a-z])\s*\)")  # \phi(i): Branco's relevance of class i
_RELEVANCE = re.compile(r"\^\s*(\\phi|\{\s*\\phi\s*\})")  # Rec^\phi: weighted by the relevance
EXCLUDED = sympy.Function("excluded")  # excluded(k, j): the factor of a sum over k != j, see latex_formula
_IMPLICIT_AFTER_POWER = re.compile(r"\s*([A-Za-z0-9(]|\\(?!(cdot|times|right|quad|qquad|neq|ne|in|dots|ldots|cdots)(?![A-Za-z]))[A-Za-z])")


class Scanner:
    """Rewrites one formula into placeholder LaTeX for the parser, resolving every name."""

    def __init__(self, source: Source, notation: Notation, shared: "Scanner | None" = None):
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
        if count >= 10 * len(PLACEHOLDER_LETTERS):
            raise self.error(f"more than {10 * len(PLACEHOLDER_LETTERS)} names in one formula")
        name = f"{PLACEHOLDER_LETTERS[count // 10]}_{{{count % 10}}}"
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
        return Scanner(self.source.slice(start, end), self.notation, self).run()

    def run(self) -> str:
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch == "\\":
                self.command()
            elif ch.isalpha():
                word = re.match(r"(log|ln)(?![A-Za-z])", text[self.pos:])
                if word:  # Wang's log_{2(m-1)}, printed without a backslash
                    self.pos += len(word.group(0))
                    self.logarithm(word.group(0))
                else:
                    self.name(bar=False)
            elif ch == "." and re.match(r"\.\s*[A-Za-z\\]", text[self.pos:]) and self.out:
                self.out.append(" \\cdot ")  # Wang's m.c: a product
                self.pos += 1
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
                if _IMPLICIT_AFTER_POWER.match(text, self.pos):
                    self.out.append(" \\cdot ")  # \beta^2 P: a product (the grammar misreads x_{0}^{2} y_{1})
            elif ch in "[]":  # \left[ ... \right]: brackets (\sqrt[n] reads its own)
                if ch == "[" and re.search(r"(\)|[A-Za-z]_\{\d\})\s*$", "".join(self.out)):
                    self.out.append("\\cdot ")
                self.out.append("(" if ch == "[" else ")")
                self.pos += 1
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
        elif name in ("log", "ln"):
            self.logarithm(name)
        elif name == "Pr" and re.match(r"\(\s*[a-z]\s*\)", self.text[self.pos:]):  # \Pr(a), \Pr(e): agreements
            call = re.match(r"\(\s*([a-z])\s*\)", self.text[self.pos:])
            meaning = agreement(("Pr", call.group(1)))
            if meaning is None:
                raise self.error(f"cannot read '\\Pr({call.group(1)})': give its meaning with --symbol", start)
            self.pos += call.end()
            self.out.append(" " + self.placeholder(meaning) + " ")
        elif name == "pi":  # discriminant power's sqrt(3)/pi; the parser's grammar lacks the constant
            self.out.append(" " + self.placeholder(sympy.pi) + " ")
        elif name in _PASS:
            if name in ("frac", "dfrac", "tfrac", "sqrt") and re.search(r"(\)|\}|[A-Za-z]_\{\d\})\s*$", "".join(self.out)):
                self.out.append("\\cdot ")  # (TP_j + FN_j)\frac{..}{..}: a product
            self.out.append(_PASS[name] + " ")
            if name == "sqrt" and self.text[self.pos:self.pos + 1] == "[":
                end = self.text.find("]", self.pos)
                if end < 0:
                    raise self.error("'[' is never closed")
                self.out.append("[" + self.rewrite(self.pos + 1, end) + "]")
                self.pos = end + 1
        elif name in _DECORATIONS or name in _TEXT or name in _GREEK:
            self.pos = start
            self.name(bar=False)
        else:
            raise self.error(f"unsupported command '\\{name}'", start)

    def logarithm(self, name: str):
        """``\\log_{b} x``: a base, and the argument (a name, a bracket or a group) braced
        with the log, so that ``\\log_{b} x + y`` has one reading (the log of x, plus y)."""
        head = _PASS[name] + " "
        if self.text[self.pos:self.pos + 1] == "_":
            self.pos += 1
            head += "_{" + self.rewrite(*self.group()) + "}"
        while self.text[self.pos:self.pos + 1] == " ":
            self.pos += 1
        rest = self.text[self.pos:]
        if rest[:1] in ("(", "{"):
            end = closing(self.text, self.pos) if rest[0] == "(" else None
            start, end = (self.pos + 1, end) if rest[0] == "(" else self.group()
            if end is None:
                raise self.error("'(' is never closed")
            self.out.append("{" + head + "(" + self.rewrite(start, end) + ")}")
            self.pos = max(self.pos, end + 1)
        elif re.match(r"[A-Za-z]|\\(" + "|".join(_DECORATIONS + _TEXT + _GREEK) + r")(?![A-Za-z])", rest):
            self.out.append("{" + head + "(")
            self.name(bar=False)
            self.out.append(")}")
        else:
            self.out.append(head)

    def big_operator(self, name: str):
        """``\\sum_{i=1}^{C}``, ``\\sum_i``, ``\\sum_{k,l}``: explicit bounds over the classes."""
        text, at = self.text, self.pos
        variables, lower, upper, excluded = [], None, None, None
        self.pos = len(text) - len(text[self.pos:].lstrip(" "))  # \sum _{i=1} ^{K}: spaced as MathML exports print
        if text[self.pos:self.pos + 1] == "_":
            self.pos += 1
            start, end = self.group()
            # \sum_{k=1}, \sum_{k,l,m=1}, \sum_{k}, \sum_{k=1, k \neq j}, \sum_{f \neq k}: the
            # indices, their lower bound and a condition leaving one pair out
            condition = re.search(r"(^|,|\s)\s*([a-z])\s*\\ne(q)?\s*([a-z])\s*$", text[start:end])
            stop = start + condition.start() if condition else end
            sub = text[start:stop]
            if condition:
                excluded = (condition.group(2), condition.group(4))
            member = re.fullmatch(r"\s*([a-z])\s*\\in\s*(\\mathcal\{\s*[A-Za-z]\s*\}|[A-Za-z])\s*", sub)
            if member:  # \sum_{l \in L}: over the members of a set, its size the bound
                variables, upper = [member.group(1)], (start + member.start(2), start + member.end(2))
                upper = upper if not member.group(2).startswith("\\") else (upper[0] + 9, upper[1] - 1)
            elif "=" in sub:
                equals = start + sub.index("=")
                variables, lower = [v.strip() for v in text[start:equals].split(",")], (equals + 1, stop)
            elif sub.strip() or not condition:
                variables = [v.strip() for v in sub.split(",")]
            else:
                variables = [excluded[0]]
            if condition and excluded[0] not in variables:
                raise self.error(f"cannot read the condition '{self.source.slice(start, end).quoted()}': "
                                 f"write {variables[0]} \\neq j", start)
        self.pos = len(text) - len(text[self.pos:].lstrip(" "))
        if text[self.pos:self.pos + 1] == "^" and upper is None:
            self.pos += 1
            upper = self.group()
        if not variables or not all(re.fullmatch(r"[a-z]", v) for v in variables):
            raise self.error(f"\\{name} needs an index variable such as _{{i=1}}^{{C}}", at)
        self.indices.update(variables)
        self.notation.index_letters.update(variables)
        bound = self.rewrite(*upper) if upper is not None else self.placeholder(symbols.N_CLASSES)
        low = self.rewrite(*lower) if lower is not None else "1"
        start = self.pos
        self.pos = term_end(text, start)  # the body: up to the next + - = , outside brackets,
        while text[self.pos:self.pos + 1] in ("+", "-") and self.pos < len(text):
            end = term_end(text, self.pos + 1)  # and on over terms that use its index (Kozak
            term = text[self.pos + 1:end]        # Eq. 27: sum kappa_i prec_i + (1 - kappa_i) rec_i)
            if re.match(r"\s*\\(sum|prod)", term) or not any(uses_index(term, v) for v in variables):
                break
            self.pos = end
        body = self.rewrite(start, self.pos)
        if excluded is not None:
            body = self.placeholder(EXCLUDED(sympy.Symbol(excluded[0]), sympy.Symbol(excluded[1]))) + " \\cdot (" + body + ")"
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
                if not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", words[-1]):
                    raise self.error(f"\\{command} needs a name, e.g. \\{command}{{P}}", start)
                break
            if command in _TEXT:
                words.append(text[slice(*self.group())].strip())
                if not re.fullmatch(r"[A-Za-z][^{}\\]*", words[-1]):  # precision_binary, True Positive: names
                    raise self.error(f"\\{command} needs a name in braces, e.g. \\{command}{{TP}}", start)
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
        if text[self.pos:self.pos + 1] == "(" and not bar and self.call(words[0], start):
            return
        subscripts, superscripts = [], []
        wants_superscript = any(p.sup for p, _ in self.notation.patterns.get(words[0], ()))
        while text[self.pos:self.pos + 1] == "_" or wants_superscript and superscript_indices(text, self.pos):
            sign = text[self.pos]
            self.pos += 1
            if sign == "^":
                superscripts.append(text[slice(*self.group())])
            elif text[self.pos:self.pos + 1].isalpha():
                word = re.match(r"[A-Za-z0-9]+", text[self.pos:]).group(0)
                self.pos += len(word)
                subscripts.append(word)
            else:
                subscripts.append(text[slice(*self.group())].replace(" ", ""))
        if self.defined(words[0], subscripts, superscripts, start):
            return
        relevance = _RELEVANCE.match(text, self.pos)
        if relevance:
            self.pos = relevance.end()
            subscripts.append("^phi")
        head = split_name(words[0])
        if len(head) == 1 and head[0] in self.indices and not subscripts:
            self.out.append(head[0])
            return
        greek = text[start:start + 1] == "\\" and head[0] in _GREEK  # \xi, \nu: one letter, never x times i
        runs = split_run(head[0]) if len(head) == 1 and not subscripts and not greek else None
        if runs is None and len(head) == 1 and not subscripts and not greek:
            runs = letters(self, head[0])
        if runs and names_metric(head[0]) and (len(head[0]) > 2 or any(len(r) == 1 and r not in MEASURES
                                                                       and r not in "nstcmC" for r in runs)):
            runs = None  # ppv, tpr, mk: a metric's name, not p p v, tp r or m k (PR stays P R)
        parts_list = [[w] for w in runs] if runs and len(runs) > 1 else [head + subscripts]
        if len(head) == 1 and 1 < len(head[0]) <= 3 and len(subscripts) == 1 and re.fullmatch(r"[012]{2}", subscripts[0]):
            parts_list = [[x] for x in head[0][:-1]] + [[head[0][-1], subscripts[0]]]  # nn_{11}: n times n_{11}
        where = f"column {self.source.column(start)}"
        for parts in parts_list:  # P S, PS: a product, written out (the grammar reads P S (1 - S) two ways)
            product = " \\cdot " if re.search(r"([A-Za-z]_\{\d\}|(?<![\w.])(?<!_\{)(?<!\^\{)\d+(\.\d+)?)\s*$", "".join(self.out[-2:])) else " "
            self.out.append(product + self.placeholder(self.notation.resolve(parts, bar, where)) + " ")


    def defined(self, head: str, subscripts: list, superscripts: list, start: int) -> bool:
        """A use of a name defined with index parameters (``P_{j,k}^{j}``, ``CEN_{j}``)."""
        if head not in self.notation.patterns or not all(INDEX_GROUP.match(g) for g in subscripts + superscripts):
            if superscripts:
                raise self.error(f"no definition of '{head}' with a superscript reads '{self.source.slice(start, self.pos).quoted()}'", start)
            return False
        sub = tuple(x.strip() for g in subscripts for x in g.split(","))
        sup = tuple(x.strip() for g in superscripts for x in g.split(","))
        meaning = apply(self.notation.patterns, Pattern(head, sub, sup), tuple(sympy.Symbol(x) for x in sub + sup))
        if meaning is None:
            raise self.error(f"'{self.source.slice(start, self.pos).quoted()}' matches no definition of '{head}'", start)
        self.out.append(" " + self.placeholder(meaning) + " ")
        return True

    def call(self, head: str, start: int) -> bool:
        """``f(s,j)``, ``p(s,j)``, ``P(j)``, a defined ``AUC(j, r_j)``, the step ``I(x, y)`` or a
        metric of a parameter and a class (``F(\\beta, \\ell)``, :mod:`.formula_arguments`);
        False (nothing read) when the parenthesis is a product (``p(1 - p)``)."""
        end = closing(self.text, self.pos)
        if end is None:
            return False
        inside = self.text[self.pos + 1:end]
        if head in symbols.INDEX_EXTREMES:
            return extreme(self, head, inside, end)
        if head == "I":
            comma = top_comma(inside)
            if comma is None:
                return False
            left = self.subexpression(self.pos + 1, self.pos + 1 + comma)
            right = self.subexpression(self.pos + 2 + comma, end)
            self.pos = end + 1
            self.out.append(" " + self.placeholder(symbols.step(left - right)) + " ")
            return True
        values = tuple(index_argument(part) for part in inside.split(","))
        meaning = None if any(v is None for v in values) else self.notation.call(head, values)
        if meaning is None and all(v is not None for v in values):
            meaning = apply(self.notation.patterns, Pattern(head, args=tuple(str(v) for v in values)), values)
        if meaning is None:  # F(\beta, \ell), PPV(\ell): a metric at its parameters and class
            return metric_call(self, head, inside, end)
        self.pos = end + 1
        self.out.append(" " + self.placeholder(meaning) + " ")
        return True

    def parsed(self, latex: str, start: int, end: int) -> sympy.Expr:
        from sympy.parsing.latex import parse_latex

        try:
            parsed = parse_latex(latex, backend="lark")
        except Exception:  # noqa: BLE001 - lark raises several unrelated types
            raise self.error(f"cannot read the argument '{self.source.slice(start, end).quoted()}'", start) from None
        if not isinstance(parsed, sympy.Expr):
            raise self.error(f"the argument '{self.source.slice(start, end).quoted()}' reads two ways: add brackets", start)
        return parsed.xreplace(self.meanings)

    def subexpression(self, start: int, end: int) -> sympy.Expr:
        """The sympy expression of ``text[start:end]`` (an argument of a call)."""
        return self.parsed(self.rewrite(start, end), start, end)
