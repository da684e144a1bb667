"""Printers for people: compact plain text and LaTeX of metric formulas.

Both print class sums as ``Sum(x, k)`` / ``\\sum_{k}``, averaged terms as ``macro(precision)``
and per-class terms as ``recall[k]``, so documentation reads like the specs.
"""

from __future__ import annotations

import sympy
from sympy.printing.latex import LatexPrinter, greek_letters_set
from sympy.printing.str import StrPrinter

__all__ = ["plain", "latex", "latex_escape", "term_label"]


def term_label(name: str) -> tuple[str | None, str]:
    """``macro__f_beta__beta_2`` -> ("macro", "f_beta(beta=2)"); ``class__recall`` -> (None, "recall");
    ``weighted_by_relevance__recall`` -> ("weighted", "recall, relevance")."""
    mode, _, rest = name.partition("__")
    metric, *bindings = rest.split("__")
    if bindings:
        metric += "(" + ", ".join(b.replace("_", "=", 1) if "_" in b else b for b in bindings) + ")"
    mode, by, weights = mode.partition("_by_")
    if by:
        metric += f", {weights}"
    return (None if mode == "class" else mode), metric


def _is_term(name: str) -> bool:
    return "__" in name


class _Plain(StrPrinter):
    def _print_Symbol(self, expr):
        if _is_term(expr.name):
            mode, metric = term_label(expr.name)
            return f"{mode}({metric})"
        return expr.name

    def _print_Indexed(self, expr):
        base = str(expr.base.label)
        if _is_term(base):
            base = term_label(base)[1]
        return f"{base}[{', '.join(self._print(i) for i in expr.indices)}]"

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
    def __init__(self) -> None:
        super().__init__({"mul_symbol": "dot", "fold_short_frac": False})

    def _print_Symbol(self, expr, style="plain"):
        name = expr.name
        if name in _NAMES:
            return _NAMES[name]
        if _is_term(name):
            mode, metric = term_label(name)
            return rf"\operatorname{{{mode}}}(\mathrm{{{_tex_identifier(metric)}}})"
        if name == "C":
            return "C"
        if "(" in name or (len(name) > 1 and name.islower() and name not in greek_letters_set):
            return rf"\mathrm{{{_tex_identifier(name)}}}"
        if len(name) == 1:
            return name
        return super()._print_Symbol(expr)

    def _print_Indexed(self, expr):
        base = str(expr.base.label)
        if _is_term(base):
            base = rf"\mathrm{{{_tex_identifier(term_label(base)[1])}}}"
        elif base in _NAMES:
            base = _NAMES[base]
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


def latex(expr: sympy.Basic) -> str:
    return _Latex().doprint(expr)


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
