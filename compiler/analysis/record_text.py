"""Build results as one line of text each, read back exactly: what the build record stores.

The record (:mod:`.record`) is committed beside the specs, so it is text, not pickle: readable
in a diff and read back without running code. A value is written as a Python expression of
constructor calls (``Add(Symbol('TP', integer=True, nonnegative=True), Integer(1))``,
``Term(symbol=..., metric='recall', ...)``) and read back by walking its syntax tree, calling
only the sympy classes, IR dataclasses and enums this module knows: never ``eval``.

sympy trees are rebuilt as they were written, without re-evaluation (``2*(C - 1)`` stays
unexpanded), as the build cache's pickler rebuilds them. ``srepr`` is close to this but drops
an undefined function's assumptions (``Function('recall', real=True)``), so trees are written
here. :func:`encoded` refuses a value that does not read back equal (:class:`Unrecordable`):
such a result is computed by every build, never recorded wrong.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import functools
import math

import sympy
from sympy.core.function import AppliedUndef, UndefinedFunction
from sympy.core.operations import AssocOp

from metricc.compiler.errors import Location
from metricc.compiler.language import ir, levels, symbols

__all__ = ["Unrecordable", "decoded", "encoded", "key_text"]


class Unrecordable(TypeError):
    """A value this module cannot write, or that would not read back equal."""


# Atoms whose sympy text names their class and its plain arguments: srepr writes them exactly.
_PLAIN_ATOMS = (sympy.Symbol, sympy.Number, sympy.NumberSymbol, sympy.logic.boolalg.BooleanAtom,
                sympy.core.numbers.ImaginaryUnit)


def _expr(node: sympy.Basic, memo: dict, exact: bool) -> str:
    text = memo.get(node)
    if text is None:
        if isinstance(node, _PLAIN_ATOMS) and not isinstance(node, sympy.Dummy):
            text = sympy.srepr(node)
        elif isinstance(node, AppliedUndef):
            given = "".join(f", {k}={v!r}" for k, v in sorted(type(node)._explicit_class_assumptions.items()))
            text = f"Function({type(node).__name__!r}{given})({', '.join(_expr(a, memo, exact) for a in node.args)})"
        elif node.args and all(isinstance(a, sympy.Basic) for a in node.args):
            text = f"{type(node).__name__}({', '.join(_expr(a, memo, exact) for a in node.args)})"
        elif not exact:  # a key only tells inputs apart: sympy's own text will do
            text = sympy.srepr(node)
        else:
            raise Unrecordable(f"no text for the sympy {type(node).__name__} {node}")
        memo[node] = text
    return text


def _text(value, memo: dict, exact: bool = True) -> str:
    if isinstance(value, sympy.Basic):
        return _expr(value, memo, exact)
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}({value.value!r})"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = ", ".join(f"{f.name}={_text(getattr(value, f.name), memo, exact)}"
                           for f in dataclasses.fields(value) if f.init or not exact)
        return f"{type(value).__name__}({fields})"
    if isinstance(value, tuple):
        return "(" + "".join(f"{_text(v, memo, exact)}, " for v in value) + ")"
    if isinstance(value, list) and not exact:
        return "[" + ", ".join(_text(v, memo, exact) for v in value) + "]"
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return "{" + ", ".join(f"{k!r}: {_text(v, memo, exact)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    if value is None or isinstance(value, (str, int, float, bool)):
        return repr(value)
    raise Unrecordable(f"no text for a {type(value).__name__}")


def key_text(*parts) -> str:
    """A text that determines ``parts`` (what the build cache digests into a key): the record's
    text, with sympy's ``srepr`` for nodes it cannot read back. One pass over each tree, equal
    subtrees written once: ten times faster than ``srepr``."""
    memo: dict = {}
    return "\0".join(_text(part, memo, exact=False) for part in parts)


def encoded(value) -> str:
    """One line that :func:`decoded` reads back as a value equal to ``value``."""
    text = _text(value, {})
    if decoded(text) != value:
        raise Unrecordable(f"a {type(value).__name__} does not read back equal")
    return text


@functools.cache
def _classes() -> dict[str, type]:
    """The constructors a record may call, by name; a name two sympy classes share is left out."""
    found: dict[str, type | None] = {}
    pending = [sympy.Basic]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if isinstance(cls, UndefinedFunction):
            continue
        found[cls.__name__] = cls if found.get(cls.__name__, cls) is cls else None
    found.update({cls.__name__: cls for cls in vars(ir).values() if dataclasses.is_dataclass(cls) and isinstance(cls, type)})
    found.update({"Location": Location, "Level": levels.Level})
    return {name: cls for name, cls in found.items() if cls is not None}


_NAMED = {"oo": sympy.oo, "zoo": sympy.zoo, "nan": sympy.nan, "pi": sympy.pi, "E": sympy.E, "I": sympy.I,
          "true": sympy.true, "false": sympy.false, "EulerGamma": sympy.EulerGamma, "None": None}


def _built(cls: type, args: list, kwargs: dict):
    if not (isinstance(cls, type) and issubclass(cls, sympy.Basic)):
        return cls(*args, **kwargs)
    if kwargs or not all(isinstance(a, sympy.Basic) for a in args):
        return cls(*args, **kwargs)
    if issubclass(cls, AssocOp):
        return cls._from_args(args)
    try:
        built = cls(*args, evaluate=False)
    except TypeError:
        built = cls(*args)
    if type(built) is cls and built.args == tuple(args):
        return built
    return sympy.Basic.__new__(cls, *args)  # a constructor that rewrites what it is given (Sum)


def _read(node: ast.AST):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, (ast.Constant, ast.Name)):
        return -_read(node.operand)  # -1.5, and sympy's -oo
    if isinstance(node, ast.Tuple):
        return tuple(_read(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return {_read(k): _read(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.Name) and node.id in _NAMED:
        return _NAMED[node.id]
    if isinstance(node, ast.Call):
        args = [_read(a) for a in node.args]
        kwargs = {k.arg: _read(k.value) for k in node.keywords}
        if isinstance(node.func, ast.Call):  # Function('recall', real=True)(TP, FP, FN, TN)
            return _read(node.func)(*args)
        if isinstance(node.func, ast.Name) and node.func.id == "float" and len(args) == 1 and isinstance(args[0], str):
            return float(args[0])
        if isinstance(node.func, ast.Name) and node.func.id == "Function":
            return sympy.Function(*args, **kwargs)
        if isinstance(node.func, ast.Name) and node.func.id in _classes():
            cls = _classes()[node.func.id]
            if isinstance(cls, type) and issubclass(cls, enum.Enum):
                return cls(*args)
            return _built(cls, args, kwargs)
    raise Unrecordable(f"the record holds {ast.dump(node)[:80]}, which no build writes")


def decoded(text: str):
    """The value :func:`encoded` wrote as ``text``."""
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, MemoryError) as error:
        raise Unrecordable(f"unreadable record text: {error}") from None
    return _read(tree.body)
