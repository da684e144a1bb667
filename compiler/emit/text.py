"""Printers for people: compact plain text and LaTeX of metric formulas.

Both print class sums as ``Sum(x, k)`` / ``\\sum_{k}``, averaged terms as ``macro(precision)``
and per-class terms as ``recall[k]``, so documentation reads like the specs. Term symbols are
named by their labels; the LaTeX printer takes the terms (:class:`~..language.ir.Term`) to
set the averaging mode apart from the metric.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy
from sympy.printing.latex import LatexPrinter, greek_letters_set
from sympy.printing.str import StrPrinter

__all__ = ["plain", "latex", "latex_escape"]


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
        return rf"\sum_{{{indices}}} {self.parenthesize(expr.function, 1100)}"

    def _print_KroneckerDelta(self, expr, exp=None):
        return rf"[{self._print(expr.args[0])} = {self._print(expr.args[1])}]"

    def _print_xlogy(self, expr, exp=None):
        """``x \\log y``; the catalog states the convention 0 log y = 0 beside the formula."""
        weight, argument = expr.args
        text = rf"{self.parenthesize(weight, 50)} \log\left({self._print(argument)}\right)"
        return rf"\left({text}\right)^{{{exp}}}" if exp is not None else text

    def _print_step(self, expr, exp=None):
        return rf"\operatorname{{step}}\left({self._print(expr.args[0])}\right)"


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
