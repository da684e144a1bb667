"""The indexed forms of the matrix, curve and score levels: ``Sum()`` and ``x[...]``.

A mixin of the formula builder in :mod:`.parse`: class and aggregate formulas never reach it
(their :class:`~.levels.LevelRules` say ``indexed=False``). What an index may name differs by
level, so subscripts are dispatched on the level: matrix formulas index ``M``, ``t``, ``p``,
vector parameters, let definitions and per-class metrics; curve formulas index the counts at
each threshold; score formulas index the score and truth matrices ``S[s, k]`` and ``Y[s, k]``.
"""

from __future__ import annotations

import ast

import sympy

from metricc.compiler.language import symbols
from metricc.compiler.names import did_you_mean
from metricc.compiler.language.levels import Level

__all__ = ["IndexedForms"]

_INDEXED_MATRIX = {"M": 2, "t": 1, "p": 1}
_PICK_USAGE = ("a threshold is chosen by Max(x, i), Min(x, i), At(x, i, argmax=key) or At(x, i, argmin=key), "
               "each with an optional constraint where=..., e.g. Max(TP[i] / (TP[i] + FP[i]), i, where=TP[i] / P >= r)")
_COMPARISONS = {ast.GtE: sympy.GreaterThan, ast.Gt: sympy.StrictGreaterThan,
                ast.LtE: sympy.LessThan, ast.Lt: sympy.StrictLessThan}
_EXTREME_USAGE = ("Max(x, k) and Min(x, k) take an expression and its indices: Max(t[k], k), "
                  "Max(M[i, j], (i, j)), or per row inside a Sum: Sum(Max(M[i, j], j), i)")
_SUM_USAGE = "Sum() takes an expression and its indices: Sum(M[k, k], k), Sum(M[i, j], (i, j)) or Sum(x, k != j)"


class IndexedForms:
    """``_build_Subscript`` and ``_sum`` of the formula builder (uses its ``fail``/``build``)."""

    def _build_Subscript(self, node: ast.Subscript) -> sympy.Expr:
        base = node.value
        if not self.rules.indexed:  # before the indices: no Sum can bind them here
            what = f"'{base.id}[...]'" if isinstance(base, ast.Name) else "'[...]'"
            raise self.fail(node, f"indexing ({what}) is only allowed in matrix-, curve- and score-level formulas")
        if self.rules.level is Level.CURVE:
            return self._curve_subscript(node)
        indices = self._indices(node.slice)
        if self.rules.level is Level.SCORE and isinstance(base, ast.Name) and base.id in ("S", "Y"):
            return self._score_subscript(node, base.id, indices)
        return self._matrix_subscript(node, indices)

    def _matrix_subscript(self, node: ast.Subscript, indices: tuple[str, ...]) -> sympy.Expr:
        """``M[i, j]``, ``t[k]``, ``p[k]``, ``kappa[k]``, ``d[i, j]`` (let), ``recall[k]``."""
        base, scope = node.value, self.scope
        if isinstance(base, ast.Call) and isinstance(base.func, ast.Name) and base.func.id in scope.metrics:
            return self._metric_subscript(base, base.func.id, base.keywords, base.args, indices)
        if not isinstance(base, ast.Name):
            raise self.fail(node, "only names can be indexed, e.g. M[i, j], t[k], recall[k]")
        name = base.id
        if name in _INDEXED_MATRIX and self.rules.level is Level.SCORE:  # no confusion matrix: the scores are the data
            raise self.fail(node, f"'{name}' is a confusion-matrix name; score formulas use the scores and the truth, "
                                  "S[s, k] and Y[s, k] (sample s, class k), n (samples) and C (classes)")
        if name in _INDEXED_MATRIX:
            if len(indices) != _INDEXED_MATRIX[name]:
                raise self.fail(node, f"'{name}' takes {_INDEXED_MATRIX[name]} index(es), got {len(indices)}")
            return symbols.MATRIX_NAMES[name][tuple(symbols.index_symbol(i) for i in indices)]
        if name in scope.vector_params:
            self._one_index(node, name, indices)
            return sympy.IndexedBase(name)[symbols.index_symbol(indices[0])]
        if name in scope.matrix_params:
            if len(indices) != 2:
                raise self.fail(node, f"'{name}' is a class_matrix parameter: it takes 2 indices, e.g. {name}[i, j]; got {len(indices)}")
            return sympy.IndexedBase(name)[tuple(symbols.index_symbol(i) for i in indices)]
        if name in scope.macros:
            params, body = scope.macros[name]
            if len(params) != len(indices):
                raise self.fail(node, f"'{name}' takes {len(params)} index(es), got {len(indices)}")
            mapping = {symbols.index_symbol(p): symbols.index_symbol(i) for p, i in zip(params, indices)}
            return body.xreplace(mapping)
        if name in scope.metrics:
            return self._metric_subscript(base, name, [], [], indices)
        known = set(_INDEXED_MATRIX) | set(scope.vector_params) | set(scope.matrix_params) | set(scope.macros) | set(scope.metrics)
        raise self.fail(node, f"unknown indexed name '{name}'{did_you_mean(name, known)}")

    def _curve_subscript(self, node: ast.Subscript) -> sympy.Expr:
        """``TP[i]`` (at threshold i) or ``TP[i - 1]`` (the point before: the origin for i = 0)."""
        base, index = node.value, node.slice
        if not isinstance(base, ast.Name) or base.id not in symbols.CURVE_NAMES:
            raise self.fail(node, "curve formulas index only the counts TP, FP, FN, TN, e.g. TP[i]")
        shift = 0
        if (isinstance(index, ast.BinOp) and isinstance(index.op, ast.Sub)
                and isinstance(index.right, ast.Constant) and index.right.value == 1):
            index, shift = index.left, 1
        if not isinstance(index, ast.Name) or index.id not in self.bound:
            raise self.fail(node.slice, "a threshold index is the index of the enclosing Sum, e.g. TP[i], or the previous point, TP[i - 1]")
        return symbols.CURVE_NAMES[base.id][symbols.index_symbol(index.id) - shift]

    def _score_subscript(self, node, name, indices) -> sympy.Expr:
        """``S[s, k]``: a sample index (s, u, v) first, then a class index."""
        if len(indices) != 2 or not symbols.is_sample_index_name(indices[0]) or symbols.is_sample_index_name(indices[1]):
            raise self.fail(node, f"'{name}' takes a sample index ({', '.join(symbols.SAMPLE_INDICES)}) and a class index, e.g. {name}[s, k]")
        return symbols.SCORE_NAMES[name][tuple(symbols.index_symbol(i) for i in indices)]

    def _metric_subscript(self, node, name, keywords, args, indices) -> sympy.Expr:
        if args:
            raise self.fail(node, f"metric '{name}' takes parameter bindings only, e.g. {name}(beta=2)")
        self._one_index(node, name, indices)
        return self._reference(node, name, keywords, None, indices[0])

    def _one_index(self, node, name, indices) -> None:
        if len(indices) != 1:
            raise self.fail(node, f"'{name}' takes one class index, got {len(indices)}")

    def _indices(self, node: ast.AST) -> tuple[str, ...]:
        elements = node.elts if isinstance(node, ast.Tuple) else [node]
        names = []
        for element in elements:
            if not isinstance(element, ast.Name) or element.id not in self.bound:
                raise self.fail(element, "an index must be a class index bound by Sum (e.g. Sum(M[k, k], k)), by the let definition or by per_class")
            names.append(element.id)
        return tuple(names)

    def _sum(self, node: ast.Call) -> sympy.Expr:
        if not self.rules.indexed:
            raise self.fail(node, "Sum() is only allowed in matrix-, curve- and score-level formulas")
        if len(node.args) != 2 or node.keywords:
            raise self.fail(node, _SUM_USAGE)
        indices, condition = self._sum_indices(node.args[1])
        self.bound.extend(indices)
        try:
            body = self.build(node.args[0])
        finally:
            del self.bound[-len(indices):]
        if condition is not None:
            body = body * (1 - sympy.KroneckerDelta(symbols.index_symbol(indices[0]), symbols.index_symbol(condition)))
        if self.rules.level is Level.CURVE:
            if len(indices) != 1 or self.bound or body.has(sympy.Sum):
                raise self.fail(node, "a curve formula sums once over the thresholds: Sum(expr, i), not nested")
            if symbols.index_symbol(indices[0]) not in body.free_symbols:
                raise self.fail(node, f"the summed expression must use the threshold index '{indices[0]}', e.g. TP[{indices[0]}]")
        for name in reversed(indices):
            body = sympy.Sum(body, (symbols.index_symbol(name), 0, self.rules.sum_upper(name)))
        return body

    def _check_orderable(self, node: ast.Call, name: str, arguments: list[sympy.Expr]) -> None:
        """Refuse a class-index sum without data inside ``min``/``max`` (``min(1, Sum(abs(k - l), (k, l)))``):
        once the classes are counted it is a number that sympy leaves unevaluated and cannot order."""
        for total in (t for a in arguments for t in a.atoms(sympy.Sum)):
            if total.atoms(sympy.Indexed) or not all(s.is_integer for s in total.free_symbols):
                continue
            if total.doit().has(sympy.Sum):
                data = "Sum(S[s, k] * Y[s, k], (s, k))" if self.rules.level is Level.SCORE else "Sum(M[k, k], k)"
                raise self.fail(node, f"{name}() of {total}, a sum over class indices alone: a {self.rules.level.value}-level "
                                      f"{name}() compares data (e.g. {name}(1, {data} / n)) and numbers that sympy "
                                      "can write without a Sum (Sum(1, k) is C); write the sum's closed form in C")

    def _index_extreme(self, node: ast.Call) -> sympy.Expr:
        """Matrix and score levels: ``Max(x, k)`` / ``Min(x, k)``, the extreme of ``x`` over an
        index, classes or (score level) samples (:class:`symbols.index_extreme`); over a pair
        ``(i, j)`` the extreme of the extremes. The index is bound like a Sum's, so both nest
        either way."""
        name = node.func.id
        if len(node.args) != 2 or node.keywords:
            where = next((k for k in node.keywords if k.arg == "where"), None)
            if where is not None:
                raise self.fail(where, f"{name}() over an index takes no constraint: where= belongs to a chosen "
                                       "threshold of a curve formula")
            raise self.fail(node.keywords[0] if node.keywords else node, _EXTREME_USAGE)
        indices, condition = self._sum_indices(node.args[1])
        if condition is not None:
            raise self.fail(node.args[1], f"{name}() runs over the whole index: 'k != j' is a Sum condition only")
        self.bound.extend(indices)
        try:
            body = self.build(node.args[0])
        finally:
            del self.bound[-len(indices):]
        reduce = symbols.INDEX_EXTREMES[name]
        for index in reversed(indices):
            symbol = symbols.index_symbol(index)
            if symbol not in body.free_symbols:
                raise self.fail(node.args[0], f"the expression does not use the index '{index}', so {name}() over it "
                                              f"is the expression itself: index it by '{index}' or drop {name}()")
            body = reduce(body, symbol, self.rules.sum_upper(index))
        return body

    def _threshold_pick(self, node: ast.Call) -> sympy.Expr:
        """``Max(x, i, where=c)``, ``Min(x, i, where=c)``, ``At(x, i, argmax=k, where=c)``: the
        curve quantity ``x`` at one threshold, chosen by a key under a constraint (:class:`symbols.pick`)."""
        name = node.func.id
        if self.rules.level in (Level.MATRIX, Level.SCORE) and name in symbols.INDEX_EXTREMES:
            return self._index_extreme(node)
        if self.rules.level is not Level.CURVE:
            raise self.fail(node, f"{name}() chooses a threshold in curve-level formulas"
                                  f"{' (and runs over an index in matrix- and score-level ones)' if name != 'At' else ''}: "
                                  f"it is not allowed in {self.rules.level.value}-level formulas")
        if self.bound:
            raise self.fail(node, f"{name}() chooses one threshold of the whole curve: it cannot be nested in Sum() or another {name}()")
        keywords = {k.arg: k for k in node.keywords}
        allowed = {"where"} | ({"argmax", "argmin"} if name == "At" else set())
        unknown = [k for k in node.keywords if k.arg not in allowed]
        if len(node.args) != 2 or unknown or (name == "At" and len(keywords.keys() & {"argmax", "argmin"}) != 1):
            raise self.fail(unknown[0] if unknown else node, _PICK_USAGE)
        indices, condition = self._sum_indices(node.args[1])
        if len(indices) != 1 or condition is not None:
            raise self.fail(node.args[1], "a threshold is chosen over one index, e.g. Max(TP[i] / P, i)")
        index = symbols.index_symbol(indices[0])
        self.bound.append(indices[0])
        try:
            value = self.build(node.args[0])
            key = {"Max": value, "Min": -value}.get(name)
            if key is None:
                chosen = keywords.get("argmax") or keywords["argmin"]
                key = self.build(chosen.value) * (1 if chosen.arg == "argmax" else -1)
            holds = self._constraint(keywords["where"].value) if "where" in keywords else sympy.true
        finally:
            self.bound.pop()
        if index not in value.free_symbols and index not in key.free_symbols:
            raise self.fail(node.args[0], f"the chosen quantity must use the threshold index '{indices[0]}', e.g. TP[{indices[0]}]")
        return symbols.pick(value, key, holds, index, self.rules.sum_upper(indices[0]))

    def _constraint(self, node: ast.AST) -> sympy.Basic:
        """``where=``: one order comparison of two curve quantities, e.g. ``TP[i] / P >= r``."""
        if not isinstance(node, ast.Compare) or len(node.ops) != 1 or type(node.ops[0]) not in _COMPARISONS:
            raise self.fail(node, "a constraint is one comparison with <, <=, > or >=, e.g. where=TP[i] / P >= r")
        relation = _COMPARISONS[type(node.ops[0])](self.build(node.left), self.build(node.comparators[0]))
        if relation is sympy.false:
            raise self.fail(node, "this constraint never holds: no threshold could be chosen")
        return relation

    def _sum_indices(self, spec: ast.AST) -> tuple[list[str], str | None]:
        """The new indices of ``Sum(x, k)``, ``Sum(x, (i, j))`` or ``Sum(x, k != j)`` (and ``j``)."""
        condition = None
        if isinstance(spec, ast.Compare):
            if (len(spec.ops) != 1 or not isinstance(spec.ops[0], ast.NotEq)
                    or not all(isinstance(x, ast.Name) for x in (spec.left, *spec.comparators))):
                raise self.fail(spec, "a Sum condition must read 'k != j' with k the new index and j an enclosing one")
            condition = spec.comparators[0].id
            if condition not in self.bound:
                raise self.fail(spec.comparators[0], f"'{condition}' must be an enclosing Sum's index")
            names = [spec.left]
        else:
            names = spec.elts if isinstance(spec, ast.Tuple) else [spec]
        indices: list[str] = []
        scope = self.scope
        for element in names:
            if not isinstance(element, ast.Name) or not symbols.is_index_name(element.id):
                raise self.fail(element, "a summation index is a single lower-case letter other than n, p, t")
            if element.id in self.bound or element.id in indices:
                raise self.fail(element, f"index '{element.id}' is already in use")
            if element.id in scope.scalar_params or element.id in scope.vector_params or element.id in scope.macros:
                raise self.fail(element, f"'{element.id}' is a parameter or definition, not an index")
            indices.append(element.id)
        return indices, condition
