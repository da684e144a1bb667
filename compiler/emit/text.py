"""Printers for people: compact plain text, LaTeX and MathML of metric formulas.

All print class sums as ``Sum(x, k)`` / ``\\sum_{k}``, averaged terms as ``macro(precision)``
and per-class terms as ``recall[k]``, so documentation reads like the specs. Term symbols are
named by their labels; the LaTeX and MathML printers take the terms
(:class:`~..language.ir.Term`) to set the averaging mode apart from the metric.
:func:`display_form` is the form documents show: the simplified formula with common factors
pulled out, when that is shorter.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy
from sympy.printing.latex import LatexPrinter, greek_letters_set
from sympy.printing.mathml import MathMLPresentationPrinter
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.str import StrPrinter

from metricc.compiler.errors import InternalError
from metricc.compiler.language import symbols

__all__ = ["plain", "latex", "latex_escape", "mathml", "display_form", "pick_form", "extreme_name"]


class _Plain(StrPrinter):
    def _print_Symbol(self, expr):
        return expr.name

    def _print_Indexed(self, expr):
        return f"{expr.base.label}[{', '.join(self._print(i) for i in expr.indices)}]"

    def _print_Sum(self, expr):
        indices = [str(limit[0]) for limit in expr.limits]
        spec = indices[0] if len(indices) == 1 else "(" + ", ".join(indices) + ")"
        return f"Sum({self._print(expr.function)}, {spec})"

    def _print_KroneckerDelta(self, expr):
        return f"[{self._print(expr.args[0])} == {self._print(expr.args[1])}]"

    def _print_step(self, expr):
        return f"step({self._print(expr.args[0])})"

    def _print_binomial_tail(self, expr):
        return f"binomial_tail({', '.join(self._print(a) for a in expr.args)})"

    def _print_Heaviside(self, expr):
        left, relation, right = comparison(expr)
        return f"[{self._print(left)} {relation} {self._print(right)}]"

    def _print_pick(self, expr):
        name, value, by = pick_form(expr)
        where = "" if expr.args[2] is sympy.true else f", where={self._print(expr.args[2])}"
        key = f", {by}={self._print(expr.args[1] if by == 'argmax' else -expr.args[1])}" if by else ""
        return f"{name}({self._print(value)}, {expr.args[3]}{key}{where})"

    def _print_meeting(self, expr):
        return f"Sum([{self._print(expr.args[0])}], {expr.args[1]})"

    def _print_index_extreme(self, expr):
        return f"{extreme_name(expr)}({self._print(expr.args[0])}, {expr.args[1]})"

    _print_index_max = _print_index_min = _print_index_extreme  # sympy dispatches a Function subclass by its own name


def extreme_name(expr: sympy.Expr) -> str:
    """``Max`` or ``Min``: how an extreme over classes reads in a spec."""
    return "Max" if isinstance(expr, symbols.index_max) else "Min"


def pick_form(expr: sympy.Expr) -> tuple[str, sympy.Expr, str | None]:
    """How a chosen threshold reads in a spec: ``("Max", x, None)``, ``("Min", x, None)`` or
    ``("At", x, "argmax" | "argmin")``."""
    value, key = expr.args[:2]
    if key == value:
        return "Max", value, None
    if key == -value:
        return "Min", value, None
    return "At", value, "argmin" if key.could_extract_minus_sign() else "argmax"


_NAMES = {"TP": r"\mathit{TP}", "FP": r"\mathit{FP}", "FN": r"\mathit{FN}", "TN": r"\mathit{TN}"}


class _Latex(LatexPrinter):
    def __init__(self, terms: Sequence = ()) -> None:
        super().__init__({"mul_symbol": "dot", "fold_short_frac": False})
        self._terms = {t.symbol.label if isinstance(t.symbol, sympy.IndexedBase) else t.symbol: t for t in terms}

    def _print_Symbol(self, expr, style="plain"):
        name = expr.name
        if name in _NAMES:
            return _NAMES[name]
        if expr in self._terms:
            term = self._terms[expr]
            return rf"\operatorname{{{term.mode}}}(\mathrm{{{_tex_identifier(term.inner)}}})"
        if name == "C":
            return "C"
        if "(" in name or (len(name) > 1 and name.islower() and name not in greek_letters_set):
            return rf"\mathrm{{{_tex_identifier(name)}}}"
        if len(name) == 1:
            return name
        return super()._print_Symbol(expr)

    def _print_Indexed(self, expr):
        base = str(expr.base.label)
        if expr.base.label in self._terms:
            base = rf"\mathrm{{{_tex_identifier(self._terms[expr.base.label].inner)}}}"
        elif base in _NAMES:
            base = _NAMES[base]
        elif len(base) > 1:  # a vector parameter: class_weights_k, not class subscript w...
            base = rf"\mathrm{{{_tex_identifier(base)}}}"
        indices = "".join(self._print(i) for i in expr.indices)
        return f"{base}_{{{indices}}}"

    def _print_Sum(self, expr):
        indices = ", ".join(self._print(limit[0]) for limit in expr.limits)
        return rf"\sum_{{{indices}}} {self.parenthesize(expr.function, PRECEDENCE['Mul'])}"

    def _print_KroneckerDelta(self, expr, exp=None):
        return rf"[{self._print(expr.args[0])} = {self._print(expr.args[1])}]"

    def _print_xlogy(self, expr, exp=None):
        """``x \\log y``; the catalog states the convention 0 log y = 0 beside the formula."""
        weight, argument = expr.args
        text = rf"{self.parenthesize(weight, 50)} \log\left({self._print(argument)}\right)"
        return rf"\left({text}\right)^{{{exp}}}" if exp is not None else text

    def _print_step(self, expr, exp=None):
        return rf"\operatorname{{step}}\left({self._print(expr.args[0])}\right)"

    def _print_binomial_tail(self, expr, exp=None):
        r"""``\operatorname{BinTail}(x; n, p)``; the catalog defines it beside the formula."""
        x, n, p = (self._print(a) for a in expr.args)
        text = rf"\operatorname{{BinTail}}\left({x};\, {n}, {p}\right)"
        return rf"\left({text}\right)^{{{exp}}}" if exp is not None else text

    def _print_pick(self, expr, exp=None):
        r"""``\max_{i : c} x``, or ``x_{i^*}`` with ``i^* = \arg\max_{i : c} k`` (first of equal keys)."""
        name, value, by = pick_form(expr)
        index = self._print(expr.args[3])
        under = index if expr.args[2] is sympy.true else rf"{index} \,:\, {self._print(expr.args[2])}"
        if by is None:
            return rf"\{name.lower()}_{{{under}}} {self.parenthesize(value, PRECEDENCE['Mul'])}"
        key = expr.args[1] if by == "argmax" else -expr.args[1]
        chosen = rf"\operatorname{{{by[:3]}\,{by[3:]}}}_{{{under}}} {self.parenthesize(key, PRECEDENCE['Mul'])}"
        return rf"\left. {self._print(value)} \right|_{{{index} = {chosen}}}"

    def _print_meeting(self, expr, exp=None):
        return rf"\sum_{{{self._print(expr.args[1])}}} [{self._print(expr.args[0])}]"

    def _print_index_extreme(self, expr, exp=None):
        r"""``\max_{k} x``, like a sum over the classes."""
        body = self.parenthesize(expr.args[0], PRECEDENCE["Mul"])
        text = rf"\{extreme_name(expr).lower()}_{{{self._print(expr.args[1])}}} {body}"
        return rf"\left({text}\right)^{{{exp}}}" if exp is not None else text

    _print_index_max = _print_index_min = _print_index_extreme

    def _print_Heaviside(self, expr, exp=None):
        left, relation, right = comparison(expr)
        return rf"[{self._print(left)} {_LATEX_RELATIONS[relation]} {self._print(right)}]"


_LATEX_RELATIONS = {">": ">", ">=": r"\geq"}
_MATHML_RELATIONS = {">": ">", ">=": "\u2265"}


def comparison(expr: sympy.Heaviside) -> tuple[sympy.Expr, str, sympy.Expr]:
    """``indicator(a >= b)`` back from ``Heaviside(a - b, 1)``: (a, ">=", b), and ">" for
    ``Heaviside(x, 0)``; the terms of the difference with a minus sign go to the right."""
    difference, at_zero = expr.args[0], (expr.args[1] if len(expr.args) > 1 else sympy.S.Half)
    if at_zero not in (0, 1):
        raise InternalError(f"Heaviside with value {at_zero} at 0 is not an indicator")
    terms = sympy.Add.make_args(difference)
    right = [-t for t in terms if t.could_extract_minus_sign()]
    left = [t for t in terms if not t.could_extract_minus_sign()]
    return sympy.Add(*left), (">=" if at_zero == 1 else ">"), sympy.Add(*right)


def _tex_identifier(text: str) -> str:
    return text.replace("_", r"\_")


def plain(expr: sympy.Basic) -> str:
    return _Plain().doprint(expr)


def latex(expr: sympy.Basic, terms: Sequence = ()) -> str:
    """LaTeX of ``expr``; ``terms`` are the metric's IR terms that may occur in it."""
    return _Latex(terms).doprint(expr)


_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
    "^": r"\textasciicircum{}", "_": r"\_", "%": r"\%", "~": r"\textasciitilde{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
}


def latex_escape(text: str) -> str:
    """Spec text as inert LaTeX: specials escaped, control characters and exotic code points named."""
    out = []
    for char in str(text):
        if char in _LATEX_SPECIALS:
            out.append(_LATEX_SPECIALS[char])
        elif char in "\n\t\r":
            out.append(" ")
        elif 32 <= ord(char) < 127 or (0xC0 <= ord(char) <= 0x17F and char.isalpha()):
            out.append(char)
        else:
            out.append(rf"\texttt{{U+{ord(char):04X}}}")
    return "".join(out)


class _MathML(MathMLPresentationPrinter):
    """Presentation MathML as the LaTeX printer writes it: counts in italics, metric names upright."""

    def __init__(self, terms: Sequence = ()) -> None:
        super().__init__({"mul_symbol": "dot", "fold_short_frac": False})
        self._terms = {t.symbol.label if isinstance(t.symbol, sympy.IndexedBase) else t.symbol: t for t in terms}

    def _element(self, tag: str, text: str | None = None, **attributes):
        element = self.dom.createElement(tag)
        for key, value in attributes.items():
            element.setAttribute(key, value)
        if text is not None:
            element.appendChild(self.dom.createTextNode(text))
        return element

    def _row(self, *children):
        row = self.dom.createElement("mrow")
        for child in children:
            row.appendChild(child)
        return row

    def _name(self, name: str):
        if name in _NAMES:
            return self._element("mi", name, mathvariant="italic")
        if name in greek_letters_set:
            return self._element("mi", _GREEK.get(name, name))
        if len(name) == 1:
            return self._element("mi", name)
        return self._element("mi", name, mathvariant="normal")

    def _call(self, function: str, *arguments):
        row = self._row(self._element("mi", function, mathvariant="normal"), self._element("mo", "("))
        for i, argument in enumerate(arguments):
            if i:
                row.appendChild(self._element("mo", ","))
            row.appendChild(argument)
        row.appendChild(self._element("mo", ")"))
        return row

    def _print_Symbol(self, sym, style="plain"):
        if sym in self._terms:
            term = self._terms[sym]
            return self._call(term.mode, self._element("mi", term.inner, mathvariant="normal"))
        return self._name(sym.name)

    def _print_Indexed(self, expr):
        label = expr.base.label
        base = (self._element("mi", self._terms[label].inner, mathvariant="normal") if label in self._terms
                else self._name(str(label)))
        indices = [self._print(i) for i in expr.indices]
        index = indices[0] if len(indices) == 1 else self._row(*_interleave(indices, lambda: self._element("mo", ",")))
        sub = self.dom.createElement("msub")
        sub.appendChild(base)
        sub.appendChild(index)
        return sub

    def _print_Sum(self, expr):
        under = self.dom.createElement("munder")
        under.appendChild(self._element("mo", "\u2211"))
        indices = [self._print(limit[0]) for limit in expr.limits]
        under.appendChild(indices[0] if len(indices) == 1 else self._row(*_interleave(indices, lambda: self._element("mo", ","))))
        return self._row(under, self.parenthesize(expr.function, PRECEDENCE["Mul"]))

    def _print_KroneckerDelta(self, expr):
        return self._row(self._element("mo", "["), self._print(expr.args[0]), self._element("mo", "="),
                         self._print(expr.args[1]), self._element("mo", "]"))

    def _print_xlogy(self, expr):
        """``x log y``; documents state the convention 0 log y = 0 beside the formula."""
        weight, argument = expr.args
        return self._row(self.parenthesize(weight, 50), self._element("mo", "\u2062"),
                         self._call("log", self._print(argument)))

    def _print_step(self, expr):
        return self._call("step", self._print(expr.args[0]))

    def _print_binomial_tail(self, expr):
        return self._call("BinTail", *(self._print(a) for a in expr.args))

    def _print_pick(self, expr):
        name, value, by = pick_form(expr)
        arguments = [self._print(value), self._print(expr.args[3])]
        if by:
            key = expr.args[1] if by == "argmax" else -expr.args[1]
            arguments.append(self._row(self._element("mi", by, mathvariant="normal"), self._element("mo", "="), self._print(key)))
        if expr.args[2] is not sympy.true:
            arguments.append(self._row(self._element("mi", "where", mathvariant="normal"), self._element("mo", "="),
                                       self._print(expr.args[2])))
        return self._call(name, *arguments)

    def _print_index_extreme(self, expr):
        under = self.dom.createElement("munder")
        under.appendChild(self._element("mo", extreme_name(expr).lower()))
        under.appendChild(self._print(expr.args[1]))
        return self._row(under, self.parenthesize(expr.args[0], PRECEDENCE["Mul"]))

    _print_index_max = _print_index_min = _print_index_extreme

    def _print_meeting(self, expr):
        under = self.dom.createElement("munder")
        under.appendChild(self._element("mo", "\u2211"))
        under.appendChild(self._print(expr.args[1]))
        return self._row(under, self._element("mo", "["), self._print(expr.args[0]), self._element("mo", "]"))

    def _print_Heaviside(self, expr):
        left, relation, right = comparison(expr)
        return self._row(self._element("mo", "["), self._print(left), self._element("mo", _MATHML_RELATIONS[relation]),
                         self._print(right), self._element("mo", "]"))

    def _print_Pi(self, expr):
        return self._element("mi", "\u03c0")  # sympy writes the entity &pi;, which XML does not define


_GREEK = {"alpha": "\u03b1", "beta": "\u03b2", "gamma": "\u03b3", "delta": "\u03b4", "kappa": "\u03ba",
          "lambda": "\u03bb", "mu": "\u03bc", "theta": "\u03b8", "pi": "\u03c0", "sigma": "\u03c3", "tau": "\u03c4"}


def _interleave(items, separator):
    out = []
    for i, item in enumerate(items):
        if i:
            out.append(separator())
        out.append(item)
    return out


def mathml(expr: sympy.Basic, terms: Sequence = (), display: bool = False) -> str:
    """A ``<math>`` element of ``expr`` (presentation MathML, which browsers render natively)."""
    body = _MathML(terms).doprint(expr)
    mode = ' display="block"' if display else ""
    return f'<math xmlns="http://www.w3.org/1998/Math/MathML"{mode}>{body}</math>'


def _same_cases(written: sympy.Expr, simplified: sympy.Expr) -> bool:
    """Whether both forms are undefined at the same zeros (up to sign): then they are the same
    function, not only equal where both are defined (F1 as written is undefined at TP + FP = 0,
    where the simplified form has its continuous extension)."""
    from metricc.compiler.analysis import analyze

    def cases(expr):
        found = set()
        for case in analyze.undefined_cases(expr):
            case = sympy.expand(case)
            found.add(sympy.srepr(-case if case.could_extract_minus_sign() else case))
        return found

    return cases(written) == cases(simplified)


def display_form(expr: sympy.Expr, written: sympy.Expr | None = None) -> sympy.Expr:
    """The simplified form as documents show it: numerator and denominator factored where that
    makes it shorter (``TP/sqrt((FN + TP)*(FP + TP))``, not ``TP/sqrt(FN*FP + FN*TP + ...)``),
    or the formula as written (``written``, lets inlined) where that is shorter still and has
    the same undefined cases (issue 27: the adjusted G-mean's simplified form had 47
    operations, the written one 27). Generated code keeps the simplified form.

    The same function, only regrouped: ``factor`` of a rational function of counts is exact.
    """
    candidates = [expr]
    if written is not None and written != expr and _same_cases(written, expr):
        candidates.append(written)
    if not expr.has(sympy.Sum, sympy.Indexed):  # factor() does not look inside sums over classes
        factored = sympy.factor_terms(sympy.factor(expr, deep=True))
        numerator, denominator = sympy.fraction(sympy.together(factored))
        expanded = sympy.expand(numerator)
        kernels = sorted((a for a in expanded.atoms(sympy.Abs, sympy.Pow, sympy.Function) if not (a.is_Pow and a.exp.is_Integer)),
                         key=sympy.default_sort_key)  # a set: sorted, or the output depends on the hash seed
        candidates += [factored, sympy.collect(expanded, kernels, func=sympy.factor) / denominator]
    return min(candidates, key=lambda e: (sympy.count_ops(e), len(plain(e))))
