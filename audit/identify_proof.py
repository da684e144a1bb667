"""Symbolic proof of what the numeric comparison of ``identify`` found.

Three forms, by scope of the match:

- per-class formulas against a class-level metric: the formulas over TP, FP, FN, TN cancel;
- ``binary``: both sides over the four cells of a 2 x 2 matrix (the catalog side is
  :func:`~metricc.compiler.analysis.prove.binary_form`);
- ``all`` / ``single-label``: a *class-sum normal form* for any number of classes C. Every
  sum over the classes of a per-class expression is rewritten over one class's counts
  (a, b, c) = (TP, FP, FN), TN = n - a - b - c; monomials of degree <= 1 pool into
  sum(TP), sum(FP), sum(FN) and C, and every other summand becomes one opaque symbol per
  canonical (cancelled) summand. With the single-label identities sum(FP) = sum(FN) = n -
  sum(TP), the same comparison proves ``single-label`` statements.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import re
import signal
import threading
import time

import sympy

from metricc.compiler.analysis import prove
from metricc.audit.notation import CLASS_COUNTS, CLASS_VECTOR
from metricc.compiler.language import averaging, symbols
from metricc.compiler.language.levels import rules

__all__ = ["proved", "catalog_metrics", "catalog_expression"]

N, C = symbols.N_TOTAL, symbols.N_CLASSES
_A, _B, _C = sympy.symbols("a b c", positive=True)
_POOL = {name: sympy.Symbol(f"pooled_{name}", positive=True) for name in ("TP", "FP", "FN")}
_SINGLE = {_POOL["FP"]: N - _POOL["TP"], _POOL["FN"]: N - _POOL["TP"]}


class _Catalog:
    """The analyzed IR of the installed catalog's metrics, each loaded, lowered and analyzed on
    first use with the metrics it references: a proof reads the few metrics the numeric
    comparison found, and reading, lowering and analyzing all of them took about 4 s, most of
    ``identify``'s time."""

    def __init__(self):
        import metricc.api as mc
        from metricc.compiler.packages import package_dir

        self._folder = package_dir("metricc.specs")
        self._info = mc.catalog()
        self._done: dict = {}

    def _needed(self, metric_id: str) -> list[str]:
        """The metric and every catalog metric its formula or parameters name, recursively."""
        found, todo = set(), [metric_id]
        while todo:
            current = todo.pop()
            if current in found or current not in self._info:
                continue
            found.add(current)
            info = self._info[current]
            text = " ".join([info.formula, *(str(p.default) for p in info.params)])
            todo.extend(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
        return sorted(found)

    def get(self, metric_id: str):
        """The metric's IR with ``simplified`` filled (None for an id not in the catalog); no
        undefined cases, delta-method gradients or claim checks, which the proofs never read."""
        if metric_id not in self._info:
            return None
        if metric_id not in self._done:
            import os

            from metricc.compiler import build
            from metricc.compiler.analysis.analyze import simplify
            from metricc.compiler.language import load

            specs = [load.load_spec(os.path.join(self._folder, f"{m}.yaml")) for m in self._needed(metric_id)]
            metric = build.run(build.Build.loaded(specs), until="lower").metrics[metric_id]
            terms = tuple(dataclasses.replace(t, simplified=simplify(t.expr)) for t in metric.terms)
            self._done[metric_id] = dataclasses.replace(metric, simplified=simplify(metric.written), terms=terms)
        return self._done[metric_id]


@functools.lru_cache(maxsize=1)
def catalog_metrics() -> _Catalog:
    """The installed catalog, analyzed lazily (:class:`_Catalog`), once per process."""
    return _Catalog()


def proved(expr: sympy.Expr, variants: list[tuple], holds: list[str]) -> list[bool]:
    """For each candidate (variant, holds): whether the equality is proved symbolically."""
    metrics = catalog_metrics()
    out = []
    end = time.monotonic() + PROOF_BUDGET
    for variant, scope in zip(variants, holds):
        left = min(PROOF_SECONDS, end - time.monotonic())
        if left <= 0.05:
            out.append(False)  # out of time: confirmed numerically at fresh points instead
            continue
        metric = metrics.get(variant[0])
        try:
            with _deadline(left):
                if metric is not None:
                    metric = _defaults(metric, {name for name, _ in (variant[3] if len(variant) > 3 else ())})
                out.append(metric is not None and _proved(expr, metric, variant[1], scope))
        except (TypeError, ValueError, ZeroDivisionError, NotImplementedError, RecursionError, _OutOfTime):
            out.append(False)
    return out


PROOF_SECONDS = 1.0  # per candidate: sympy's expansion of a large square can run for minutes
PROOF_BUDGET = 2.0  # per call, the candidates in rank order (the numeric side already found them equal)
_MAX_OPS = 400  # operations of a side whose square is expanded (the sqrt(a) sqrt(b) = sqrt(ab) check)


class _OutOfTime(Exception):
    """A proof ran past :data:`PROOF_SECONDS`: the match is only confirmed numerically."""


@contextlib.contextmanager
def _deadline(seconds: float):
    """Interrupt the block after ``seconds`` (a timer signal; only in the main thread, where
    the CLI runs: elsewhere :data:`_MAX_OPS` alone bounds the work)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum, frame):
        raise _OutOfTime()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _proved(expr, metric, mode, scope) -> bool:
    if any(node.base == CLASS_VECTOR for node in expr.atoms(sympy.Indexed)):
        return False  # per-class weights (relevance, preference): confirmed numerically only
    per_class = not expr.atoms(sympy.Indexed) and bool(expr.free_symbols & set(symbols.COUNTS))
    if per_class and scope == "all":
        return prove._equal(expr, metric.simplified)
    if scope == "binary":
        other = prove.binary_form(metric, mode)
        return other is not None and _equal(_binary(expr, per_class), other)
    user, catalog = _normal(expr), _catalog_normal(metric, mode)
    if user is None or catalog is None:
        return False
    if scope == "single-label":
        user, catalog = user.xreplace(_SINGLE), catalog.xreplace(_SINGLE)
    return _equal(user, catalog)


def _equal(left, right) -> bool:
    """Equal by cancellation, or with equal squares (``sqrt(a)*sqrt(b)`` against
    ``sqrt(a*b)``): the numeric check already found them equal, not opposite, at points
    where they do not vanish, and both are continuous where defined."""
    if prove._equal(left, right):
        return True
    if sympy.count_ops(left) > _MAX_OPS or sympy.count_ops(right) > _MAX_OPS:
        return False
    return sympy.cancel(sympy.together(sympy.expand(left ** 2 - right ** 2))) == 0


def _binary(expr, per_class: bool) -> sympy.Expr:
    """The formula over m00, m01, m10, m11 (rows true classes; class 1 positive)."""
    a, b, c, d = averaging.A, averaging.B, averaging.Cc, averaging.D
    if per_class:
        return expr.xreplace(dict(zip(symbols.COUNTS, (d, b, c, a))))
    counts = {"TP": (a, d), "FP": (c, b), "FN": (b, c), "TN": (d, a)}
    e = expr.xreplace({C: sympy.Integer(2)}).doit()
    cells = {(0, 0): a, (0, 1): b, (1, 0): c, (1, 1): d}
    values = {}
    for node in e.atoms(sympy.Indexed):
        index = tuple(int(i) for i in node.indices)
        if node.base == symbols.M:
            values[node] = cells[index]
        else:
            name = next(k for k, v in CLASS_COUNTS.items() if v == node.base)
            values[node] = counts[name][index[0]]
    return e.xreplace(values).xreplace({N: a + b + c + d})


def _opaque(kind: str, key: sympy.Expr) -> sympy.Symbol:
    digest = hashlib.sha256(sympy.srepr(key).encode()).hexdigest()[:12]
    return sympy.Symbol(f"{kind}_{digest}", positive=True)


def _summand(body: sympy.Expr, k) -> sympy.Expr | None:
    """Sum over the classes of ``body`` (a function of class k's counts), in normal form."""
    counts = {CLASS_COUNTS["TP"][k]: _A, CLASS_COUNTS["FP"][k]: _B, CLASS_COUNTS["FN"][k]: _C,
              CLASS_COUNTS["TN"][k]: N - _A - _B - _C, symbols.M[k, k]: _A,
              symbols.ROW_TOTAL[k]: _A + _C, symbols.COLUMN_TOTAL[k]: _A + _B}
    body = body.xreplace(counts)
    if body.atoms(sympy.Indexed) or k in body.free_symbols:
        return None
    num, den = sympy.fraction(sympy.cancel(sympy.together(body)))
    # C*a + C*c -> C*(a + c): a factor of the summand that no class's counts carry (a 1/l
    # printed inside the sum) leaves the sum
    den_global, den_class = sympy.factor_terms(den).as_independent(_A, _B, _C, as_Add=False)
    total = sympy.S.Zero
    for term in sympy.Add.make_args(sympy.expand(num)):
        coefficient, monomial = term.as_independent(_A, _B, _C, as_Add=False)
        key = sympy.cancel(monomial / den_class)
        pooled = {sympy.S.One: C, _A: _POOL["TP"], _B: _POOL["FP"], _C: _POOL["FN"]}
        total += coefficient * (pooled[key] if key in pooled else _opaque("sum", key))
    return total / den_global


def _normal(expr: sympy.Expr) -> sympy.Expr | None:
    """The class-sum normal form, innermost sums first; None when a sum is not over one class."""
    def rewrite(node):
        if not isinstance(node, (sympy.Sum, sympy.Product)) or len(node.limits) != 1:
            return node
        k, low, high = node.limits[0]
        if low != 0 or sympy.simplify(high - (C - 1)) != 0:
            raise ValueError("not a sum over the classes")
        if isinstance(node, sympy.Product):
            body = node.function.xreplace({CLASS_COUNTS["TP"][k]: _A, CLASS_COUNTS["FP"][k]: _B,
                                           CLASS_COUNTS["FN"][k]: _C, CLASS_COUNTS["TN"][k]: N - _A - _B - _C})
            return _opaque("product", sympy.cancel(body))
        value = _summand(node.function, k)
        if value is None:
            raise ValueError("a summand that is not one class's")
        return value
    try:
        return sympy.cancel(sympy.together(_bottom_up(expr, rewrite)))
    except ValueError:
        return None


def _bottom_up(expr, rewrite):
    if not expr.args:
        return expr
    if isinstance(expr, (sympy.Sum, sympy.Product)):
        inner = _bottom_up(expr.function, rewrite)
        return rewrite(type(expr)(inner, *expr.limits))
    if isinstance(expr, sympy.Indexed):
        return expr
    return rewrite(expr.func(*(_bottom_up(a, rewrite) for a in expr.args)))


def _per_class_sum(per_class: sympy.Expr, k) -> sympy.Expr:
    return per_class.xreplace({s: CLASS_COUNTS[n][k] for n, s in zip(("TP", "FP", "FN", "TN"), symbols.COUNTS)})


def _averaged(per_class: sympy.Expr, mode: str) -> sympy.Expr | None:
    summed = averaging.MODES[mode].summed if mode in averaging.MODES else None
    if summed is None:
        return None
    k = sympy.Dummy("k", integer=True, nonnegative=True)
    pooled = {s: sympy.Sum(CLASS_COUNTS[n][k], (k, 0, C - 1)) for n, s in zip(("TP", "FP", "FN", "TN"), symbols.COUNTS)}
    return summed(_per_class_sum(per_class, k), k, per_class.xreplace(pooled), CLASS_COUNTS["TP"][k] + CLASS_COUNTS["FN"][k])


def catalog_expression(metric_id: str, mode: str | None = None) -> sympy.Expr | None:
    """A catalog metric as a formula over the notation of ``identify`` (plain counts for a
    class-level metric without ``mode``, else sums over the classes' counts and cells), its
    scalar parameters at their defaults; None for one that needs a class vector or matrix."""
    metric = catalog_metrics().get(metric_id)
    if metric is None or any(p.kind not in ("scalar",) for p in metric.params):
        return None
    metric = _defaults(metric, ())
    if rules(metric.level).per_class:
        return metric.simplified if mode is None or averaging.positive_class(mode) else _averaged(metric.simplified, mode)
    return _expanded(metric)


def _defaults(metric, printed):
    """The metric with its scalar parameters that the formula does not print at their defaults."""
    unprinted = {p.name: p.default for p in metric.params if p.kind == "scalar" and p.name not in printed}
    return prove.bind(metric, unprinted) if unprinted else metric


def _catalog_normal(metric, mode) -> sympy.Expr | None:
    if any(p.kind == "class_vector" for p in metric.params):
        return None
    if rules(metric.level).per_class:
        averaged = _averaged(metric.simplified, mode)
        return None if averaged is None else _normal(averaged)
    expr = _expanded(metric)
    return None if expr is None else _normal(expr)


def _expanded(metric) -> sympy.Expr | None:
    """A matrix or aggregate metric over the classes' counts: its terms written out."""
    expr = metric.simplified
    for term in metric.terms:
        if term.weights:
            return None
        if term.mode is None:
            expr = expr.replace(lambda e: isinstance(e, sympy.Indexed) and e.base == term.symbol,
                                lambda e: _per_class_sum(term.simplified, e.indices[0]))
        else:
            averaged = _averaged(term.simplified, term.mode)
            if averaged is None:
                return None
            expr = expr.xreplace({term.symbol: averaged})
    k = symbols.index_symbol("k")
    expr = expr.xreplace({symbols.ROW_TOTAL[k]: CLASS_COUNTS["TP"][k] + CLASS_COUNTS["FN"][k],
                          symbols.COLUMN_TOTAL[k]: CLASS_COUNTS["TP"][k] + CLASS_COUNTS["FP"][k],
                          symbols.M[k, k]: CLASS_COUNTS["TP"][k]})
    return expr
