"""The printer of the Array API target: a metric's IR printed straight to code of a namespace ``xp``.

:class:`ArrayPrinter` is :class:`.numpy_printer.NumpyPrinter` with its doors to the array library
overridden (:meth:`~ArrayPrinter.call`, :meth:`~ArrayPrinter.function`, :meth:`~ArrayPrinter.constant`):
a function the array runtime defines (:data:`RUNTIME`: ``nonzero``, numpy's ``heaviside`` the standard
lacks...) is called with the namespace first, another function of the standard (:data:`STANDARD`) is read
from the namespace (``xp.sqrt``), and anything else raises :class:`OutsideNamespace` naming it, which the
array emitters write as the module's ``FALLBACK`` reason: a module is never silently wrong.
:func:`array_kernels` prints every kernel of a metric with it, through the numpy target's kernel builders.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from metricc.compiler.emit.numpy_kernel import Kernel, class_kernel
from metricc.compiler.emit.numpy_levels import SHAPES, term_names
from metricc.compiler.emit.numpy_module import ModuleContext, ParamCode, TermCode, param_code
from metricc.compiler.emit.numpy_printer import NumpyPrinter
from metricc.compiler.language import ir
from metricc.core.errors import MetriccError

__all__ = ["NAMESPACE_FIRST", "RUNTIME", "STANDARD", "ArrayKernels", "ArrayPrinter", "OutsideNamespace", "array_kernels",
           "imports"]

# The Array API standard's functions and constants (2023.12), read as ``xp.<name>`` where the runtime has
# no function of the name; a test checks each against array-api-strict.
STANDARD = frozenset({
    "abs", "acos", "acosh", "add", "all", "any", "arange", "argmax", "argmin", "argsort", "asarray", "asin", "asinh",
    "astype", "atan", "atan2", "atanh", "bitwise_and", "bitwise_invert", "bitwise_left_shift", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "broadcast_arrays", "broadcast_shapes", "broadcast_to", "ceil", "clip",
    "concat", "conj", "copysign", "cos", "cosh", "count_nonzero", "cumulative_prod", "cumulative_sum", "diff", "divide",
    "e", "empty", "empty_like", "equal", "exp", "expand_dims", "expm1", "eye", "flip", "floor", "floor_divide", "full",
    "full_like", "greater", "greater_equal", "hypot", "imag", "inf", "isfinite", "isin", "isinf", "isnan", "less",
    "less_equal", "linspace", "log", "log10", "log1p", "log2", "logaddexp", "logical_and", "logical_not", "logical_or",
    "logical_xor", "matmul", "matrix_transpose", "max", "maximum", "mean", "meshgrid", "min", "minimum", "moveaxis",
    "multiply", "nan", "negative", "newaxis", "nextafter", "nonzero", "not_equal", "ones", "ones_like", "permute_dims",
    "pi", "positive", "pow", "prod", "real", "reciprocal", "remainder", "repeat", "reshape", "roll", "round",
    "searchsorted", "sign", "signbit", "sin", "sinh", "sort", "sqrt", "square", "squeeze", "stack", "std", "subtract",
    "sum", "take", "take_along_axis", "tan", "tanh", "tensordot", "tile", "tril", "triu", "trunc", "unique_all",
    "unique_counts", "unique_inverse", "unique_values", "unstack", "var", "vecdot", "where", "zeros", "zeros_like"})
# Every function of the array runtime generated code may import, and its module: a copy of the functions of
# the modules' ``__all__`` (the compiler never imports the runtime; a test compares them).
RUNTIME: Mapping[str, str] = MappingProxyType({
    **dict.fromkeys(("align", "arange", "average_class_metric", "average_class_values", "class_counts", "class_param",
                     "diagonal", "equal", "exact", "extended_log", "eye", "finish", "heaviside", "log_ratio",
                     "matrix_param", "matrix_terms", "nonzero", "on_host", "prepared_terms", "quiet", "real",
                     "rescaled_counts", "rescaled_matrix", "scalar_param", "shape", "space", "sum_last_axis",
                     "transpose", "xlogy", "xlogy_ratio"),
                    "xp_kernel"),
    **dict.fromkeys(("check_score_memory", "check_scores", "count_nonzero", "expand_dims", "first_max_other",
                     "group_sum", "indices", "one_hot", "positions", "rank_pairs", "row_ranks", "row_take",
                     "scores_on_host", "window_sum"), "xp_scores"),
    **dict.fromkeys(("average_curve_metric", "curve_pick", "score_curves"), "xp_curves"),
})
# Those of RUNTIME that take the namespace first, as printed code calls them (a test reads their signatures).
NAMESPACE_FIRST = frozenset({
    "align", "arange", "count_nonzero", "curve_pick", "diagonal", "equal", "exact", "expand_dims", "extended_log", "eye",
    "finish", "first_max_other", "group_sum", "heaviside", "indices", "log_ratio", "matrix_param", "nonzero", "one_hot",
    "positions", "prepared_terms", "rank_pairs", "real", "row_ranks", "row_take", "shape", "sum_last_axis", "transpose",
    "window_sum", "xlogy", "xlogy_ratio"})


class OutsideNamespace(MetriccError):
    """Printed code needs ``function``, which neither the namespace nor the array runtime provides."""

    def __init__(self, function: str, reason: str) -> None:
        self.function, self.reason = function, reason
        super().__init__(reason)


class ArrayPrinter(NumpyPrinter):
    """The numpy printer writing code of the namespace ``namespace``, which provides ``standard``
    (read from it) and the array runtime's ``runtime`` (called with it first)."""

    namespace = "xp"
    standard = STANDARD
    runtime = NAMESPACE_FIRST

    def call(self, helper: str, *args: str) -> str:
        if helper not in self.runtime:
            raise OutsideNamespace(helper, f"needs {helper}, a special function the Array API standard does not have")
        return f"{self.use(helper)}({', '.join((self.namespace, *args))})"

    def function(self, name: str, *args: str) -> str:
        """The runtime's function ``name`` where it has one (the standard lacks numpy's ``heaviside``,
        spells ``expand_dims`` otherwise, has an ``equal`` of other meaning), else the standard's."""
        if name in self.runtime:
            return self.call(name, *args)
        return f"{self.constant(name)}({', '.join(args)})"

    def constant(self, name: str) -> str:
        if name not in self.standard:
            raise OutsideNamespace(name, f"needs numpy's {name}, which the Array API standard does not have")
        return f"{self.namespace}.{name}"

    def row_take(self, row: str, columns: str) -> str:
        return self.call("row_take", row, columns)

    def one_hot(self) -> list[str]:
        return [f"    Y = {self.call('one_hot', 'Y__class', 'S')}"]


@dataclass(frozen=True)
class ArrayKernels:
    """A metric's printed kernels in the namespace: its level's, its terms' and its parameters'."""

    kernel: Kernel
    terms: list[TermCode]
    params: list[ParamCode]


def array_kernels(metric: ir.Metric, context: ModuleContext) -> ArrayKernels:
    """Every kernel of ``metric`` printed by :class:`ArrayPrinter` (``context``: its numpy module's);
    raises :class:`OutsideNamespace` where one needs what the namespace lacks."""
    terms = [TermCode(code.name, code.mode, code.weights, class_kernel(term.simplified, term.undefined, metric.params,
                                                                       ArrayPrinter))
             for term, code in zip(metric.terms, context.terms)]
    params = [param_code(p, ArrayPrinter) for p in metric.params]
    return ArrayKernels(SHAPES[context.level].kernel(metric, term_names(metric), ArrayPrinter), terms, params)


def imports(names) -> list[str]:
    """The import lines of the runtime functions among ``names``, one statement per module, sorted."""
    by_module: dict[str, list[str]] = {}
    for name in sorted(set(names) & set(RUNTIME)):
        by_module.setdefault(RUNTIME[name], []).append(name)
    return [line for module in sorted(by_module)
            for line in (f"from metricc.runtime.{module} import (", *(f"    {n}," for n in by_module[module]), ")")]
