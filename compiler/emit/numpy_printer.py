"""A strict sympy -> numpy expression printer that understands class indices.

Every printed value is an array whose trailing axes are its free class indices in sorted
order (``M[i, j]`` -> axes ``ij``); leading axes are batch axes. Operands are aligned with
the runtime's ``align`` helper before they meet, ``Sum`` reduces one named axis, and every
division by data goes through ``nonzero`` (the undefined mask is computed separately).
Unsupported nodes raise :class:`~metricc.compiler.errors.InternalError`; nothing is guessed.
The printer records the runtime helpers it wrote (``helpers``), so the module emitter imports
exactly those; it writes the library and the runtime through :meth:`~NumpyPrinter.function`,
:meth:`~NumpyPrinter.constant`, :meth:`~NumpyPrinter.call` and the score level's statements, which
a printer of another namespace overrides (:mod:`.array_printer`): no emitter rewrites printed code.
:func:`layout` breaks a long statement over lines as black would.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from metricc.compiler.emit import sums
from metricc.compiler.emit.layout import WIDTH, layout
from metricc.compiler.language import symbols
from metricc.compiler.errors import InternalError

__all__ = ["Printed", "NumpyPrinter", "layout", "WIDTH"]


@dataclass(frozen=True)
class Printed:
    code: str
    indices: str = ""  # free class indices, sorted
    batched: bool = True  # depends on the data (has batch axes)
    precedence: int = 3  # ADD 0, MUL 1, POW 2, ATOM 3: parenthesize below the context's level


ADD, MUL, POW, ATOM = 0, 1, 2, 3
_FUNCTIONS = {sympy.exp: "exp", sympy.Abs: "abs", sympy.log: "log", sympy.floor: "floor"}  # the array library's
_CONSTANTS = {"Infinity": "inf", "Exp1": "e", "Pi": "pi"}  # the array library's
_SIZES = {symbols.N_CLASSES: "C", symbols.N_TOTAL: "n", symbols.THRESHOLDS: "thresholds"}  # index ranges by upper end + 1


class NumpyPrinter:
    """``names`` maps sympy atoms (symbols, ``Indexed`` bases) to printed variables; ``helpers``
    collects the runtime names (``nonzero``, ``np``...) the printed code uses."""

    def __init__(self, names: dict[sympy.Basic, Printed], sample_indices: bool = False) -> None:
        self.names = names
        self.helpers: set[str] = set()
        self.sample_indices = sample_indices  # score level: s, u, v run over the samples
        self.arrays: set[tuple[int, int]] = set()  # score level: (sample, class) axes of each array, for the memory check
        self.fixed: set[str] = set()  # class indices a loop of the printed code holds at one value

    loops = staticmethod(sums.looped)  # score level: sums printed as a loop over their class index
    loop_indices = staticmethod(sums.loop_indices)

    def _index_range(self, *indices: str) -> str:
        """The size of the range of index names: samples ``n`` (s, u, v of score formulas), else classes ``C``."""
        kinds = {self.sample_indices and symbols.is_sample_index_name(name) for name in indices}
        if len(kinds) > 1:
            raise InternalError(f"numpy printer: a sample and a class index compared: {', '.join(indices)}")
        return "n" if kinds.pop() else "C"

    def use(self, helper: str) -> str:
        """``helper``'s name for printed code, recorded as used."""
        self.helpers.add(helper)
        return helper

    def call(self, helper: str, *args: str) -> str:
        """A call of the runtime helper ``helper``: ``nonzero(fp + tp)``."""
        return f"{self.use(helper)}({', '.join(args)})"

    def function(self, name: str, *args: str) -> str:
        """A call of the array library's function ``name``: ``np.sum(x, axis=-1)``."""
        return f"{self.use('np')}.{name}({', '.join(args)})"

    def constant(self, name: str) -> str:
        """The array library's constant ``name``: ``np.inf``."""
        return f"{self.use('np')}.{name}"

    def row_take(self, row: str, columns: str) -> str:
        """``row[s, columns[s]]`` of every sample ``s`` of an (n, C) array: flat, twice take_along_axis's speed."""
        return f"{row}.reshape(-1)[{self.function('arange', 'n')} * C + {columns}]"

    def one_hot(self) -> list[str]:  # the lines building the truth Y (n, C) from the true classes Y__class
        return [f"    Y = {self.function('zeros', 'S.shape')}", f"    Y[{self.function('arange', 'n')}, Y__class] = 1.0"]

    def print(self, expr: sympy.Basic) -> Printed:
        if expr in self.names:
            return self.names[expr]
        for cls in type(expr).__mro__:
            method = getattr(self, f"_print_{cls.__name__}", None)
            if method is not None:
                printed = method(expr)
                if self.sample_indices and printed.batched:
                    samples = sum(map(symbols.is_sample_index_name, printed.indices))
                    self.arrays.add((samples, len(printed.indices) - samples))
                return printed
        raise InternalError(f"numpy printer: unsupported node {type(expr).__name__}: {expr}")

    def code(self, expr: sympy.Basic) -> str:
        return self.print(expr).code

    @staticmethod
    def _wrap(p: Printed, level: int = ATOM) -> str:
        return p.code if p.precedence >= level else f"({p.code})"

    def _aligned(self, p: Printed, target: str, level: int = ATOM) -> str:
        if p.indices == target or not p.batched and not p.indices:
            return self._wrap(p, level)
        return self.call("align", p.code, f'"{p.indices}"', f'"{target}"')

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

    def _print_constant(self, expr) -> Printed:
        return Printed(self.constant(_CONSTANTS[type(expr).__name__]), batched=False)

    _print_Infinity = _print_Exp1 = _print_Pi = _print_constant

    def _print_NegativeInfinity(self, expr) -> Printed:
        return Printed(f"-{self.constant('inf')}", batched=False, precedence=MUL)

    def _print_Symbol(self, expr) -> Printed:
        if expr == symbols.N_CLASSES:
            return Printed("C", batched=False)
        raise InternalError(f"numpy printer: no variable for symbol {expr}")

    def _print_IndexSymbol(self, expr) -> Printed:
        """An index no enclosing sum reduces here: all its values on its own axis (``arange(C)``),
        or inside a loop over it the loop's variable."""
        if expr.name in self.fixed:
            return Printed(expr.name, batched=False)
        return Printed(self.call("arange", self._index_range(expr.name)), expr.name, batched=False)

    def _print_Indexed(self, expr) -> Printed:
        base = self.names.get(expr.base) or self.names.get(expr.base.label)
        if base is None:
            raise InternalError(f"numpy printer: no variable for {expr.base}")
        names = [str(i) for i in expr.indices]
        rest = [name for name in names if name not in self.fixed]
        if len(rest) < len(names):
            if len(rest) > 1:
                raise InternalError(f"numpy printer: {expr} is read at a looped index and two free ones")
            selector = ", ".join(name if name in self.fixed else ":" for name in names)
            return Printed(f"{base.code}[..., {selector}]", "".join(rest), base.batched)
        if len(names) == 1:
            return Printed(base.code, names[0], base.batched)
        first, second = names
        if first == second:
            return Printed(self.call("diagonal", base.code), first, base.batched)
        if first < second:
            return Printed(base.code, first + second, base.batched)
        return Printed(self.call("transpose", base.code), second + first, base.batched)

    def _print_KroneckerDelta(self, expr) -> Printed:
        if all(symbols.is_index(a) and a.name not in self.fixed for a in expr.args):
            i, j = sorted(str(a) for a in expr.args)
            return Printed(self.call("eye", self._index_range(i, j)), i + j, batched=False)
        codes, target, batched = self._operands(sorted(expr.args, key=sympy.default_sort_key))
        return Printed(self.call("equal", codes[0], codes[1]), target, batched)

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
        """``a * b / nonzero(c * d)``: rational factors split into numerator and denominator.

        Signs of the factors become one leading ``-`` and factors equal to 1 are dropped
        (``-1 * 1 * x`` is ``-x``); numbers are not multiplied out, so the floating-point
        operations stay those of the factors.
        """
        negative, numerator, denominator = False, [], []
        for factor in expr.as_ordered_factors():
            if isinstance(factor, sympy.Pow) and factor.exp.is_number and factor.exp.is_negative:
                denominator.append(sympy.Pow(factor.base, -factor.exp, evaluate=False) if factor.exp != -1 else factor.base)
            elif isinstance(factor, sympy.Rational):
                negative ^= factor.p < 0
                numerator.append(sympy.Integer(abs(factor.p)))
                denominator.append(sympy.Integer(factor.q))
            else:
                numerator.append(factor)
        numerator = [f for f in numerator if f != 1]
        denominator = [f for f in denominator if f != 1]
        if not numerator and not denominator:
            return Printed("-1" if negative else "1", batched=False, precedence=MUL if negative else ATOM)
        printed = [self.print(f) for f in numerator + denominator]
        target = "".join(sorted(set("".join(p.indices for p in printed))))
        batched = any(p.batched for p in printed)
        top_printed, bottom_printed = printed[: len(numerator)], printed[len(numerator):]
        if len(top_printed) == 1 and not bottom_printed and not negative:
            return top_printed[0]
        top = " * ".join(self._aligned(p, target, MUL) for p in top_printed) or "1"
        sign = "-" if negative else ""
        if not bottom_printed:
            return Printed(f"{sign}{top}", target, batched, MUL)
        if any(p.batched for p in bottom_printed):
            inner = self._aligned(bottom_printed[0], target, ADD) if len(bottom_printed) == 1 else None
            bottom = self.call("nonzero", inner or " * ".join(self._aligned(p, target, MUL) for p in bottom_printed))
        else:
            bottom = " * ".join(self._aligned(p, target, MUL) for p in bottom_printed)
            if len(bottom_printed) > 1 or MUL <= bottom_printed[0].precedence < ATOM:  # a sum is bracketed already
                bottom = f"({bottom})"
        return Printed(f"{sign}{top} / {bottom}", target, batched, MUL)

    def _print_Pow(self, expr) -> Printed:
        base, exponent = expr.base, expr.exp
        if exponent.is_number and exponent.is_negative:
            return self._print_Mul(sympy.Mul(1, expr, evaluate=False))
        inner = self.print(base)
        if exponent == sympy.Rational(1, 2):
            return Printed(self.function("sqrt", inner.code), inner.indices, inner.batched)
        power = self.print(exponent)
        if power.indices:
            raise InternalError("numpy printer: indexed exponents are not supported")
        return Printed(f"{self._wrap(inner)} ** {self._wrap(power)}", inner.indices, inner.batched or power.batched, POW)

    def _print_Function(self, expr) -> Printed:
        name = _FUNCTIONS.get(type(expr))
        if name is None or len(expr.args) != 1:
            raise InternalError(f"numpy printer: unsupported function {type(expr).__name__}")
        inner = self.print(expr.args[0])
        if isinstance(expr, sympy.log) and inner.indices:
            return Printed(self.call("extended_log", inner.code), inner.indices, inner.batched)
        if isinstance(expr, sympy.log) and inner.batched and not inner.indices:
            # log(0) is an undefined case (analyze.log_zeros), masked by the caller: no warning.
            return Printed(self.function(name, self.call("nonzero", inner.code)), inner.indices, inner.batched)
        return Printed(self.function(name, inner.code), inner.indices, inner.batched)

    def _print_runtime_call(self, expr) -> Printed:
        """A function the runtime kernel defines under the function's own name."""
        codes, target, batched = self._operands(expr.args)
        return Printed(self.call(type(expr).__name__, *codes), target, batched)

    _print_xlogy = _print_log_ratio = _print_xlogy_ratio = _print_runtime_call

    def _print_binomial_tail(self, expr) -> Printed:
        """``binomial_tail(x, n, p)``; a probability that is a count over the trials (``Max(t[k],
        k) / n``) also passes the count as the mean ``n p``, exact where the ratio is rounded."""
        trials, probability = expr.args[1:]
        numerator, denominator = sympy.fraction(probability)
        if denominator != trials or denominator == 1:
            return self._print_runtime_call(expr)
        codes, target, batched = self._operands((*expr.args, numerator))
        return Printed(self.call("binomial_tail", *codes[:3], f"mean={codes[3]}"), target, batched)

    def _print_group_sum(self, expr) -> Printed:
        """``group_sum(keys, values, lookup)`` (:mod:`~metricc.compiler.emit.group_by`): per
        lookup key, the sum of the values of the samples of that key; the keys' sample index is
        a dummy, the values' class axes stay."""
        keys, values, lookup = (self.print(a) for a in expr.args)
        sample, classes = keys.indices, values.indices[:-1]
        if (not symbols.is_sample_index_name(sample) or values.indices and values.indices[-1] != sample
                or any(map(symbols.is_sample_index_name, classes)) or len(lookup.indices) > 1):
            raise InternalError("numpy printer: a group sum reads vectors over the samples and one key per sample")
        indices = "".join(sorted(classes + lookup.indices))
        return Printed(self.call("group_sum", keys.code, values.code, lookup.code), indices, True)

    def _print_Heaviside(self, expr) -> Printed:
        """``indicator(a > b)`` (value 0 at 0) or ``indicator(a >= b)`` (value 1 at 0)."""
        inner = self.print(expr.args[0])
        at_zero = expr.args[1] if len(expr.args) > 1 else sympy.S.Half
        return Printed(self.function("heaviside", inner.code, repr(float(at_zero))), inner.indices, inner.batched)

    _print_step = _print_Heaviside  # step(x): value 1/2 at 0

    def _print_MinMaxBase(self, expr) -> Printed:
        codes, target, batched = self._operands(sorted(expr.args, key=sympy.default_sort_key))
        if expr.free_symbols <= {symbols.N_CLASSES}:
            # Of the class count alone (``Max(1, C - 1)``): Python's ``max`` keeps a Python
            # integer, which exact arithmetic on Python integers can multiply without overflow.
            function = "min" if isinstance(expr, sympy.Min) else "max"
            return Printed(f"{function}({', '.join(codes)})", target, batched)
        function = "minimum" if isinstance(expr, sympy.Min) else "maximum"
        text = codes[0]
        for code in codes[1:]:
            text = self.function(function, text, code)
        return Printed(text, target, batched)

    def _print_Relational(self, expr) -> Printed:
        """A constraint of a chosen threshold, compared as written: ``tp / nonzero(positives) >= r``."""
        codes, target, batched = self._operands(expr.args)
        return Printed(f"({codes[0]} {expr.rel_op} {codes[1]})", target, batched)

    def _print_BooleanTrue(self, expr) -> Printed:
        return Printed("True", batched=False)

    def _threshold_operand(self, expr, index: str) -> str:
        printed = self.print(expr)
        if printed.indices not in ("", index):
            raise InternalError("numpy printer: a chosen threshold's quantities depend on its index alone")
        return printed.code if printed.indices else self.function("broadcast_to", printed.code, "valid.shape")

    def _print_pick(self, expr) -> Printed:
        """``curve_pick(value, key, holds, valid)``: the value at the first greatest key among the
        real thresholds where the constraint holds (NaN where none does: an undefined case)."""
        value, key, holds, index, _ = expr.args
        codes = [self._threshold_operand(e, str(index)) for e in (value, key, holds)]
        return Printed(self.call("curve_pick", *codes, "valid"), "", True)

    def _print_meeting(self, expr) -> Printed:
        holds, index, _ = expr.args
        code = self._threshold_operand(holds, str(index))
        return Printed(self.function("count_nonzero", f"valid & {code}", "axis=-1"), "", True)

    def _print_index_extreme(self, expr) -> Printed:
        """``np.max(x, axis=a)`` (or ``np.min``) over the axis of the bound class index."""
        body, index, last = expr.args
        if _SIZES.get(last + 1) not in ("C", "n"):
            raise InternalError("numpy printer: an extreme runs over the classes 0..C-1 or the samples 0..n-1")
        printed, name = self.print(body), str(index)
        if name not in printed.indices:
            raise InternalError(f"numpy printer: the term of an extreme over '{name}' must use it")
        function = "max" if isinstance(expr, symbols.index_max) else "min"
        axis = printed.indices.index(name) - len(printed.indices)
        return Printed(self.function(function, printed.code, f"axis={axis}"),
                       printed.indices.replace(name, ""), printed.batched)

    def _window(self, expr: sympy.Sum) -> Printed | None:
        """A window sum (:func:`.sums.window`) as ``window_sum``: the window's terms, in the
        ascending order the loop adds them (the same float sum), in ``max(b - a)`` passes where
        the loop takes C; or None where ``g`` reads data (``m`` would not broadcast with it)."""
        window = sums.window(expr)
        if window is None:
            return None
        low, high, term = window
        name = str(expr.limits[0][0])
        self.fixed.add(name)
        try:
            term = self.print(term)
        finally:
            self.fixed.discard(name)
        if term.indices:  # g reads data: m would not broadcast with it
            return None
        codes, target, batched = self._operands((low, high))
        return Printed(self.call("window_sum", f"lambda {name}: {term.code}", codes[0], codes[1], "C"), target,
                       batched or term.batched)

    def _print_Sum(self, expr) -> Printed:
        body = expr.function
        sizes = {}
        for index, low, high in reversed(expr.limits):
            size = _SIZES.get(high + 1) if low == 0 else None
            if size is None:
                raise InternalError("numpy printer: sums run over classes 0..C-1, samples 0..n-1 or thresholds")
            sizes[str(index)] = size
        if self.sample_indices and self.loops(expr):
            window = self._window(expr)
            if window is not None:
                return window
            name = str(expr.limits[0][0])
            self.fixed.add(name)
            try:
                printed = self.print(body)
            finally:
                self.fixed.discard(name)
            return Printed(f"sum(map(lambda {name}: {printed.code}, range(C)))", printed.indices, printed.batched)
        printed = self.print(body)
        if list(sizes.values()) == ["thresholds"]:  # padded past a curve's end: sum the real thresholds only
            name = next(iter(sizes))
            if printed.indices != name:
                raise InternalError("numpy printer: a threshold sum's body must depend on the threshold index alone")
            return Printed(self.function("sum", self.function("where", "valid", printed.code, "0.0"), "axis=-1"), "", True)
        code, indices, precedence = printed.code, printed.indices, printed.precedence
        for index, _, _ in reversed(expr.limits):
            name = str(index)
            if name in indices:
                axis = indices.index(name) - len(indices)
                if axis == -1 and sizes[name] == "C":  # a few classes: einsum, not a reduction per row
                    code = self.call("sum_last_axis", code)
                else:
                    code = self.function("sum", code, f"axis={axis}")
                indices = indices.replace(name, "")
            elif sizes[name] == "thresholds":
                raise InternalError("numpy printer: a threshold sum must use its index")
            else:
                code = f"{sizes[name]} * {self._wrap(Printed(code, precedence=precedence), MUL)}"
            precedence = ATOM if name in printed.indices else MUL
        return Printed(code, indices, printed.batched, precedence)

