"""A strict sympy -> numpy expression printer that understands class indices.

Every printed value is an array whose trailing axes are its free class indices in sorted
order (``M[i, j]`` -> axes ``ij``); leading axes are batch axes. Operands are aligned with
the runtime's ``align`` helper before they meet, ``Sum`` reduces one named axis, and every
division by data goes through ``nonzero`` (the undefined mask is computed separately).
Unsupported nodes raise :class:`~metricc.compiler.errors.InternalError`; nothing is guessed.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from metricc.compiler.language import symbols
from metricc.compiler.errors import InternalError

__all__ = ["Printed", "NumpyPrinter"]


@dataclass(frozen=True)
class Printed:
    code: str
    indices: str = ""  # free class indices, sorted
    batched: bool = True  # depends on the data (has batch axes)
    precedence: int = 3  # ADD 0, MUL 1, POW 2, ATOM 3: parenthesize below the context's level


ADD, MUL, POW, ATOM = 0, 1, 2, 3
_FUNCTIONS = {sympy.exp: "np.exp", sympy.Abs: "np.abs", sympy.log: "np.log"}
_SIZES = {symbols.N_CLASSES: "C", symbols.N_TOTAL: "n", symbols.THRESHOLDS: "thresholds"}  # index ranges by upper end + 1


class NumpyPrinter:
    """``names`` maps sympy atoms (symbols, ``Indexed`` bases) to printed variables."""

    def __init__(self, names: dict[sympy.Basic, Printed]) -> None:
        self.names = names

    def print(self, expr: sympy.Basic) -> Printed:
        if expr in self.names:
            return self.names[expr]
        for cls in type(expr).__mro__:
            method = getattr(self, f"_print_{cls.__name__}", None)
            if method is not None:
                return method(expr)
        raise InternalError(f"numpy printer: unsupported node {type(expr).__name__}: {expr}")

    def code(self, expr: sympy.Basic) -> str:
        return self.print(expr).code

    # -- helpers --------------------------------------------------------------------------
    @staticmethod
    def _wrap(p: Printed, level: int = ATOM) -> str:
        return p.code if p.precedence >= level else f"({p.code})"

    @staticmethod
    def _aligned(p: Printed, target: str, level: int = ATOM) -> str:
        if p.indices == target or not p.batched and not p.indices:
            return NumpyPrinter._wrap(p, level)
        return f'align({p.code}, "{p.indices}", "{target}")'

    def _operands(self, args) -> tuple[list[str], str, bool]:
        printed = [self.print(a) for a in args]
        target = "".join(sorted(set("".join(p.indices for p in printed))))
        return [self._aligned(p, target, ADD) for p in printed], target, any(p.batched for p in printed)

    # -- atoms ----------------------------------------------------------------------------
    def _print_Integer(self, expr) -> Printed:
        return Printed(str(int(expr)), batched=False, precedence=ATOM if expr >= 0 else MUL)

    def _print_Rational(self, expr) -> Printed:
        return Printed(f"{expr.p} / {expr.q}", batched=False, precedence=MUL)

    def _print_Float(self, expr) -> Printed:
        return Printed(repr(float(expr)), batched=False, precedence=ATOM if expr >= 0 else MUL)

    def _print_Infinity(self, expr) -> Printed:
        return Printed("np.inf", batched=False)

    def _print_Pi(self, expr) -> Printed:
        return Printed("np.pi", batched=False)

    def _print_NegativeInfinity(self, expr) -> Printed:
        return Printed("-np.inf", batched=False, precedence=MUL)

    def _print_Symbol(self, expr) -> Printed:
        if expr == symbols.N_CLASSES:
            return Printed("C", batched=False)
        if expr.name.isalpha() and len(expr.name) == 1:
            return Printed("arange(C)", expr.name, batched=False)
        raise InternalError(f"numpy printer: no variable for symbol {expr}")

    def _print_Indexed(self, expr) -> Printed:
        base = self.names.get(expr.base) or self.names.get(expr.base.label)
        if base is None:
            raise InternalError(f"numpy printer: no variable for {expr.base}")
        names = [str(i) for i in expr.indices]
        if len(names) == 1:
            return Printed(base.code, names[0], base.batched)
        first, second = names
        if first == second:
            return Printed(f"diagonal({base.code})", first, base.batched)
        if first < second:
            return Printed(base.code, first + second, base.batched)
        return Printed(f"transpose({base.code})", second + first, base.batched)

    def _print_KroneckerDelta(self, expr) -> Printed:
        if all(isinstance(a, sympy.Symbol) and a != symbols.N_CLASSES and len(a.name) == 1 for a in expr.args):
            i, j = sorted(str(a) for a in expr.args)
            return Printed("eye(C)", i + j, batched=False)
        codes, target, batched = self._operands(sorted(expr.args, key=sympy.default_sort_key))
        return Printed(f"np.where({codes[0]} == {codes[1]}, 1.0, 0.0)", target, batched)

    # -- arithmetic -----------------------------------------------------------------------
    def _print_Add(self, expr) -> Printed:
        terms = sorted(expr.args, key=lambda a: (a.could_extract_minus_sign(), sympy.default_sort_key(a)))
        signed = [(t.could_extract_minus_sign(), self.print(-t if t.could_extract_minus_sign() else t)) for t in terms]
        target = "".join(sorted(set("".join(p.indices for _, p in signed))))
        text = ""
        for negative, printed in signed:
            code = self._aligned(printed, target, MUL if negative else ADD)
            text = f"-{code}" if not text and negative else f"{text} - {code}" if negative else f"{text} + {code}" if text else code
        return Printed(text, target, any(p.batched for _, p in signed), ADD)

    def _print_Mul(self, expr) -> Printed:
        coefficient, rest = expr.as_coeff_Mul()
        if coefficient == -1:
            inner = self.print(rest)
            return Printed(f"-{self._wrap(inner, MUL)}", inner.indices, inner.batched, MUL)
        numerator, denominator = [], []
        for factor in expr.as_ordered_factors():
            if isinstance(factor, sympy.Pow) and factor.exp.is_number and factor.exp.is_negative:
                denominator.append(sympy.Pow(factor.base, -factor.exp, evaluate=False) if factor.exp != -1 else factor.base)
            elif isinstance(factor, sympy.Rational) and not isinstance(factor, sympy.Integer):
                numerator.append(sympy.Integer(factor.p))
                denominator.append(sympy.Integer(factor.q))
            else:
                numerator.append(factor)
        printed = [self.print(f) for f in numerator + denominator]
        target = "".join(sorted(set("".join(p.indices for p in printed))))
        batched = any(p.batched for p in printed)
        top = " * ".join(self._aligned(p, target, MUL) for p in printed[: len(numerator)]) or "1"
        if not denominator:
            return Printed(top, target, batched, MUL)
        bottom_printed = printed[len(numerator):]
        bottom = " * ".join(self._aligned(p, target, MUL) for p in bottom_printed)
        if any(p.batched for p in bottom_printed):
            bottom = f"nonzero({bottom})"
        elif len(bottom_printed) > 1 or bottom_printed[0].precedence < ATOM:
            bottom = f"({bottom})"
        return Printed(f"{top} / {bottom}", target, batched, MUL)

    def _print_Pow(self, expr) -> Printed:
        base, exponent = expr.base, expr.exp
        if exponent.is_number and exponent.is_negative:
            return self._print_Mul(sympy.Mul(1, expr, evaluate=False))
        inner = self.print(base)
        if exponent == sympy.Rational(1, 2):
            return Printed(f"np.sqrt({inner.code})", inner.indices, inner.batched)
        power = self.print(exponent)
        if power.indices:
            raise InternalError("numpy printer: indexed exponents are not supported")
        return Printed(f"{self._wrap(inner)} ** {self._wrap(power)}", inner.indices, inner.batched or power.batched, POW)

    def _print_Function(self, expr) -> Printed:
        name = _FUNCTIONS.get(type(expr))
        if name is None or len(expr.args) != 1:
            raise InternalError(f"numpy printer: unsupported function {type(expr).__name__}")
        inner = self.print(expr.args[0])
        if isinstance(expr, sympy.log) and inner.batched and not inner.indices:
            # log(0) is an undefined case (analyze.log_zeros), masked by the caller: no warning.
            return Printed(f"{name}(nonzero({inner.code}))", inner.indices, inner.batched)
        return Printed(f"{name}({inner.code})", inner.indices, inner.batched)

    def _print_xlogy(self, expr) -> Printed:
        codes, target, batched = self._operands(expr.args)
        return Printed(f"xlogy({codes[0]}, {codes[1]})", target, batched)

    def _print_step(self, expr) -> Printed:
        inner = self.print(expr.args[0])
        return Printed(f"np.heaviside({inner.code}, 0.5)", inner.indices, inner.batched)

    def _print_MinMaxBase(self, expr) -> Printed:
        function = "np.minimum" if isinstance(expr, sympy.Min) else "np.maximum"
        codes, target, batched = self._operands(sorted(expr.args, key=sympy.default_sort_key))
        text = codes[0]
        for code in codes[1:]:
            text = f"{function}({text}, {code})"
        return Printed(text, target, batched)

    def _print_Sum(self, expr) -> Printed:
        body = expr.function
        sizes = {}
        for index, low, high in reversed(expr.limits):
            size = _SIZES.get(high + 1) if low == 0 else None
            if size is None:
                raise InternalError("numpy printer: sums run over classes 0..C-1, samples 0..n-1 or thresholds")
            sizes[str(index)] = size
        printed = self.print(body)
        if list(sizes.values()) == ["thresholds"]:  # padded past a curve's end: sum the real thresholds only
            name = next(iter(sizes))
            if printed.indices != name:
                raise InternalError("numpy printer: a threshold sum's body must depend on the threshold index alone")
            return Printed(f"np.sum(np.where(valid, {printed.code}, 0.0), axis=-1)", "", True)
        code, indices, precedence = printed.code, printed.indices, printed.precedence
        for index, _, _ in reversed(expr.limits):
            name = str(index)
            if name in indices:
                axis = indices.index(name) - len(indices)
                code = f"np.sum({code}, axis={axis})"
                indices = indices.replace(name, "")
            elif sizes[name] == "thresholds":
                raise InternalError("numpy printer: a threshold sum must use its index")
            else:
                code = f"{sizes[name]} * {self._wrap(Printed(code, precedence=precedence), MUL)}"
            precedence = ATOM if name in printed.indices else MUL
        return Printed(code, indices, printed.batched, precedence)
