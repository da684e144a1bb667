"""A formula as its author wrote it, in LaTeX and MathML, from the spec text itself.

The IR's ``as_written`` is a sympy expression, and sympy reorders and regroups on
construction (``sqrt(f_beta(beta=2) * (1 + 0.5**2) * TN / ...)`` comes back as
``sqrt(5)*sqrt(TN)*...``). Documents show the author's order, grouping and numbers, so this
module prints the text's Python syntax tree. The text has passed the parser's whitelist
(``language/parse.py``) before any emitter runs; a construct the whitelist admits but this
printer does not know raises, it is never dropped.
"""

from __future__ import annotations

import ast
from html import escape

from metricc.compiler.errors import InternalError
from metricc.compiler.language import averaging

__all__ = ["written_latex", "written_mathml"]

_COUNTS = {"TP", "FP", "FN", "TN"}
_GREEK = {"alpha": "\u03b1", "beta": "\u03b2", "gamma": "\u03b3", "delta": "\u03b4", "kappa": "\u03ba",
          "lambda_": "\u03bb", "mu": "\u03bc", "theta": "\u03b8", "sigma": "\u03c3", "tau": "\u03c4", "pi": "\u03c0"}
_AVERAGING = frozenset(averaging.CALLS)
_COMPARE = {ast.Eq: ("=", "="), ast.NotEq: (r"\neq", "\u2260"), ast.Lt: ("<", "&lt;"), ast.LtE: (r"\leq", "\u2264"),
            ast.Gt: (">", "&gt;"), ast.GtE: (r"\geq", "\u2265")}
_LATEX_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: r"\cdot"}
# Binding strength: a child binding more loosely than its parent needs brackets.
_PRECEDENCE = {ast.Add: 1, ast.Sub: 1, ast.Mult: 2, ast.Div: 2, ast.USub: 3, ast.Pow: 4}


class _Printer:
    """Walks the syntax tree; subclasses say how each construct looks."""

    def print(self, text: str) -> str:
        return self.visit(ast.parse(text, mode="eval").body)

    def visit(self, node: ast.AST) -> str:
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise InternalError(f"the formula printer does not know {type(node).__name__} nodes")
        return method(node)

    def _strength(self, node: ast.AST) -> int:
        if isinstance(node, ast.BinOp):
            return _PRECEDENCE[type(node.op)]
        if isinstance(node, ast.UnaryOp):
            return _PRECEDENCE[ast.USub]
        if isinstance(node, ast.Constant) and node.value < 0:
            return _PRECEDENCE[ast.USub]
        return 9

    def operand(self, node: ast.AST, parent: int, strict: bool = False) -> str:
        text = self.visit(node)
        strength = self._strength(node)
        return self.paren(text) if strength < parent or (strict and strength == parent) else text

    def _BinOp(self, node: ast.BinOp) -> str:
        op = type(node.op)
        if op is ast.Div:
            return self.frac(self.visit(node.left), self.visit(node.right))
        if op is ast.Pow:
            return self.power(self.operand(node.left, 5), self.visit(node.right))
        strength = _PRECEDENCE[op]
        return self.infix(self.operand(node.left, strength), op, self.operand(node.right, strength, strict=op is ast.Sub))

    def _UnaryOp(self, node: ast.UnaryOp) -> str:
        if isinstance(node.op, ast.UAdd):
            return self.visit(node.operand)
        return self.negate(self.operand(node.operand, _PRECEDENCE[ast.USub]))

    def _Compare(self, node: ast.Compare) -> str:
        parts = [self.visit(node.left)]
        for op, right in zip(node.ops, node.comparators):
            parts += [self.relation(type(op)), self.visit(right)]
        return self.row(parts)

    def _Tuple(self, node: ast.Tuple) -> str:
        return self.comma([self.visit(e) for e in node.elts])

    def _Subscript(self, node: ast.Subscript) -> str:
        return self.subscript(self.visit(node.value), self.visit(node.slice))

    def _Call(self, node: ast.Call) -> str:
        name = node.func.id
        args = [self.visit(a) for a in node.args]
        if name == "Sum":
            return self.sum(self.visit(node.args[1]), self.operand(node.args[0], 2))
        if name in ("Max", "Min") and len(node.args) == 2 and not node.keywords:  # over classes or thresholds
            return self.extreme(name.lower(), self.visit(node.args[1]), self.operand(node.args[0], 2))
        if name == "indicator":
            return self.brackets(args[0])
        if name == "abs":
            return self.bars(args[0])
        if name == "sqrt":
            return self.sqrt(args[0])
        if name == "exp":
            return self.power(self.name("e"), args[0])
        if name == "log" and len(args) == 2:
            return self.apply(self.subscript(self.word("log", True), args[1]), [args[0]])
        if name == "xlogy":
            return self.row([self.operand(node.args[0], 2), self.word("log", True), self.paren(args[1])])
        keywords = [self.row([self.name(k.arg), self.relation(ast.Eq), self.visit(k.value)]) for k in node.keywords]
        known = name in {"log", "min", "max"}
        head = self.word(name, True) if known or name in _AVERAGING or name == "step" else self.name(name)
        return self.apply(head, args + keywords)

    def _Name(self, node: ast.Name) -> str:
        return self.name(node.id)

    def _Constant(self, node: ast.Constant) -> str:
        return self.number(repr(node.value))


class _Latex(_Printer):
    def name(self, text: str) -> str:
        if text in _COUNTS:
            return rf"\mathit{{{text}}}"
        if text in _GREEK:
            return "\\" + text.rstrip("_")
        if len(text) == 1:
            return text
        return r"\mathrm{" + text.replace("_", r"\_") + "}"

    def word(self, text: str, operator: bool = False) -> str:
        return rf"\{text}" if text in {"log", "min", "max"} else rf"\operatorname{{{text}}}"

    def number(self, text: str) -> str:
        return text

    def paren(self, text: str) -> str:
        return rf"\left({text}\right)"

    def frac(self, top: str, bottom: str) -> str:
        return rf"\frac{{{top}}}{{{bottom}}}"

    def power(self, base: str, exponent: str) -> str:
        return f"{{{base}}}^{{{exponent}}}"

    def infix(self, left: str, op: type, right: str) -> str:
        return f"{left} {_LATEX_OPS[op]} {right}"

    def negate(self, text: str) -> str:
        return f"-{text}"

    def relation(self, op: type) -> str:
        return _COMPARE[op][0]

    def row(self, parts: list[str]) -> str:
        return " ".join(parts)

    def comma(self, parts: list[str]) -> str:
        return ", ".join(parts)

    def subscript(self, base: str, index: str) -> str:
        return f"{base}_{{{index}}}"

    def sum(self, index: str, body: str) -> str:
        return rf"\sum_{{{index}}} {body}"

    def extreme(self, which: str, index: str, body: str) -> str:
        return rf"\{which}_{{{index}}} {body}"

    def brackets(self, text: str) -> str:
        return rf"\left[{text}\right]"

    def bars(self, text: str) -> str:
        return rf"\left|{text}\right|"

    def sqrt(self, text: str) -> str:
        return rf"\sqrt{{{text}}}"

    def apply(self, head: str, args: list[str]) -> str:
        return rf"{head}\left({', '.join(args)}\right)"


def _tag(tag: str, *children: str, **attributes: str) -> str:
    attrs = "".join(f' {k}="{v}"' for k, v in attributes.items())
    return f"<{tag}{attrs}>{''.join(children)}</{tag}>"


class _MathML(_Printer):
    def name(self, text: str) -> str:
        if text in _COUNTS:
            return _tag("mi", text, mathvariant="italic")
        if text in _GREEK:
            return _tag("mi", _GREEK[text])
        if len(text) == 1:
            return _tag("mi", text)
        return _tag("mi", escape(text), mathvariant="normal")

    def word(self, text: str, operator: bool = False) -> str:
        return _tag("mi", text, mathvariant="normal")

    def number(self, text: str) -> str:
        return _tag("mn", text)

    def paren(self, text: str) -> str:
        return _tag("mrow", _tag("mo", "("), text, _tag("mo", ")"))

    def frac(self, top: str, bottom: str) -> str:
        return _tag("mfrac", _tag("mrow", top), _tag("mrow", bottom))

    def power(self, base: str, exponent: str) -> str:
        return _tag("msup", _tag("mrow", base), _tag("mrow", exponent))

    def infix(self, left: str, op: type, right: str) -> str:
        return _tag("mrow", left, _tag("mo", {ast.Add: "+", ast.Sub: "\u2212", ast.Mult: "\u00b7"}[op]), right)

    def negate(self, text: str) -> str:
        return _tag("mrow", _tag("mo", "\u2212"), text)

    def relation(self, op: type) -> str:
        return _tag("mo", _COMPARE[op][1])

    def row(self, parts: list[str]) -> str:
        return _tag("mrow", *parts)

    def comma(self, parts: list[str]) -> str:
        return _tag("mrow", *_joined(parts, _tag("mo", ",")))

    def subscript(self, base: str, index: str) -> str:
        return _tag("msub", base, _tag("mrow", index))

    def sum(self, index: str, body: str) -> str:
        return _tag("mrow", _tag("munder", _tag("mo", "\u2211"), _tag("mrow", index)), body)

    def extreme(self, which: str, index: str, body: str) -> str:
        return _tag("mrow", _tag("munder", _tag("mo", which), _tag("mrow", index)), body)

    def brackets(self, text: str) -> str:
        return _tag("mrow", _tag("mo", "["), text, _tag("mo", "]"))

    def bars(self, text: str) -> str:
        return _tag("mrow", _tag("mo", "|"), text, _tag("mo", "|"))

    def sqrt(self, text: str) -> str:
        return _tag("msqrt", text)

    def apply(self, head: str, args: list[str]) -> str:
        return _tag("mrow", head, self.paren(_tag("mrow", *_joined(args, _tag("mo", ",")))))


def _joined(parts: list[str], separator: str) -> list[str]:
    out = []
    for i, part in enumerate(parts):
        out += [separator, part] if i else [part]
    return out


def written_latex(text: str) -> str:
    """LaTeX of a formula text, in the author's order and grouping."""
    return _Latex().print(text)


def written_mathml(text: str, display: bool = False) -> str:
    """A ``<math>`` element of a formula text, in the author's order and grouping."""
    mode = ' display="block"' if display else ""
    return f'<math xmlns="http://www.w3.org/1998/Math/MathML"{mode}>{_MathML().print(text)}</math>'
