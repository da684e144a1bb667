"""Emit one numpy module per metric, and the registry module ``generated/__init__.py``.

Kernels are printed from the simplified form after common-subexpression elimination; the
undefined mask is printed from the derived denominators. The Jinja2 templates lay out the
files; :mod:`metricc.compiler.emit.numpy_printer` writes the expressions.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence

import jinja2
import sympy

from metricc.compiler.language import ir, symbols
from metricc.compiler.names import TERM_SEPARATOR
from metricc.compiler.emit.numpy_printer import NumpyPrinter, Printed

__all__ = ["emit_module", "emit_registry", "python_string"]

_ENVIRONMENT = jinja2.Environment(
    loader=jinja2.PackageLoader("metricc.compiler.emit", "templates"),
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
    trim_blocks=True,
    lstrip_blocks=True,
    autoescape=False,
)


def python_string(text: str) -> str:
    """A double-quoted Python literal body for ``text``: no spec text can end the string."""
    out = []
    for char in text:
        if char == "\\":
            out.append("\\\\")
        elif char == '"':
            out.append('\\"')
        elif char == "\n":
            out.append("\n")
        elif char.isprintable() and unicodedata.category(char) not in ("Cf", "Zl", "Zp"):
            out.append(char)
        else:
            out.append(f"\\u{ord(char):04x}" if ord(char) < 0x10000 else f"\\U{ord(char):08x}")
    return "".join(out)


_ENVIRONMENT.filters["pystr"] = python_string
_ENVIRONMENT.filters["pyrepr"] = lambda value: '"' + python_string(str(value)).replace("\n", "\\n") + '"'


def _number(value: sympy.Expr) -> str:
    if value == sympy.oo:
        return "math.inf"
    if value == -sympy.oo:
        return "-math.inf"
    return repr(float(value))


def _kernel_body(outputs: Sequence[sympy.Expr], names: dict, indent: str = "    ",
                 ranges: tuple[sympy.Symbol, ...] = ()) -> tuple[list[str], list[Printed]]:
    """CSE over ``outputs``; returns assignment lines and the printed outputs.

    Sum limits must stay intact for the printer: ``ranges`` are further index bounds
    (samples, thresholds) that CSE must not pull out of them.
    """
    replacements, reduced = sympy.cse(
        list(outputs), symbols=sympy.numbered_symbols("x"), order="canonical", ignore=(symbols.N_CLASSES, *ranges)
    )
    names = dict(names)
    printer = NumpyPrinter(names)
    lines = []
    for symbol, expr in replacements:
        printed = printer.print(expr)
        lines.append(f"{indent}{symbol} = {printed.code}")
        names[symbol] = Printed(str(symbol), printed.indices, printed.batched)
    return lines, [printer.print(expr) for expr in reduced]


def _undefined_code(printed: Sequence[Printed]) -> str:
    parts = []
    for p in printed:
        test = f"({p.code} == 0)"
        if p.indices:
            axes = ", ".join(str(-i) for i in range(len(p.indices), 0, -1))
            test = f"np.any({p.code} == 0, axis=({axes},))"
        parts.append(test)
    return " | ".join(parts) if parts else "False"


_COUNT_NAMES = {symbols.TP: "tp", symbols.FP: "fp", symbols.FN: "fn", symbols.TN: "tn"}


def _class_kernel(expr: sympy.Expr, undefined: Sequence[sympy.Expr], params: Sequence[ir.Param]) -> dict:
    names = {s: Printed(code) for s, code in _COUNT_NAMES.items()}
    names.update({p.symbol: Printed(f"{p.name}_value" if p.kind == "metric" else p.name) for p in params})
    used = [p.name for p in params if expr.has(p.symbol) or any(u.has(p.symbol) for u in undefined)]
    lines, printed = _kernel_body([expr, *undefined], names)
    # A metric parameter is a kernel of the bound metric: its values, and where it is undefined.
    bound = [p.name for p in params if p.kind == "metric" and p.name in used]
    lines = [f"    {name}_value, {name}_undefined = {name}(tp, fp, fn, tn)" for name in bound] + lines
    undefined_code = " | ".join(([_undefined_code(printed[1:])] if len(printed) > 1 else []) + [f"{name}_undefined" for name in bound])
    return {"lines": lines, "value": printed[0].code, "undefined": undefined_code or "False", "params": used}


def _previous_points(expr: sympy.Expr) -> sympy.Expr:
    """``TP[i - 1]`` -> ``TP_prev[i]``: the kernel gets the previous points as their own arrays."""
    previous = {e: sympy.IndexedBase(f"{e.base.label}_prev")[e.indices[0] + 1]
                for e in expr.atoms(sympy.Indexed)
                if str(e.base.label) in symbols.CURVE_NAMES and not e.indices[0].is_Symbol}
    return expr.xreplace(previous)


def _curve_kernel(metric: ir.Metric) -> dict:
    names = {symbols.CURVE_TOTALS["P"]: Printed("positives"), symbols.CURVE_TOTALS["N"]: Printed("negatives")}
    for name, base in symbols.CURVE_NAMES.items():
        names[base] = Printed(name.lower())
        names[sympy.IndexedBase(f"{name}_prev")] = Printed(f"{name.lower()}_prev")
    outputs = [_previous_points(e) for e in (metric.simplified, *metric.undefined)]
    lines, printed = _kernel_body(outputs, names, ranges=(symbols.THRESHOLDS,))
    return {"lines": lines, "value": printed[0].code, "undefined": _undefined_code(printed[1:]), "params": []}


def _param_info(param: ir.Param) -> dict:
    check = None
    if param.domain:
        printer = NumpyPrinter({param.symbol: Printed(param.name)})
        tests = []
        for relation in param.domain:
            op = {sympy.StrictLessThan: "<", sympy.LessThan: "<=", sympy.StrictGreaterThan: ">", sympy.GreaterThan: ">="}[type(relation)]
            tests.append(f"({printer.code(relation.lhs)} {op} {printer.code(relation.rhs)})")
        check = f"lambda {param.name}: " + " & ".join(tests)
    info = {"name": param.name, "kind": param.kind, "check": check, "domain": param.domain_text or "any real value",
            "description": param.description, "default": None, "default_kernel": None}
    if param.kind == "scalar":
        info["default"] = _number(param.default)
    elif param.kind == "metric":
        info["default"] = '"' + python_string(param.reference) + '"'
        info["domain"] = "a class-level metric id"
    else:
        info["default_kernel"] = _class_kernel(param.default, (), ())
    return info


def _python_name(term: ir.Term) -> str:
    """The term's variable in generated code, from its IR fields: ``macro__f_beta__beta_2``,
    ``weighted_by_relevance__recall``, ``class__recall``. Spec names cannot contain the
    separator (``names.python_clash``), so these never clash with ids or parameters."""
    suffix = "".join(f"{TERM_SEPARATOR}{k}_{v}" for k, v in term.bindings)
    suffix = re.sub(r"\W", "_", suffix.replace("/", "_").replace("-", "m").replace(".", "p"))
    mode = f"{term.mode}_by_{term.weights}" if term.weights else term.mode or "class"
    return f"{mode}{TERM_SEPARATOR}{term.metric}{suffix}"


def _terms(metric: ir.Metric) -> list[dict]:
    out = []
    for term in metric.terms:
        kernel = _class_kernel(term.simplified, term.undefined, metric.params)
        out.append({"name": _python_name(term), "label": term.label, "mode": term.mode or "none", "kernel": kernel,
                    "weights": term.weights})
    return out


def _matrix_names(metric: ir.Metric) -> dict:
    names: dict = {
        symbols.M: Printed("M"),
        symbols.ROW_TOTAL: Printed("t"),
        symbols.COLUMN_TOTAL: Printed("p"),
        symbols.N_TOTAL: Printed("n"),
    }
    for term in metric.terms:
        names[term.symbol] = Printed(_python_name(term))
    for param in metric.params:
        if param.kind == "scalar":
            names[param.symbol] = Printed(param.name, batched=False)
        else:
            names[sympy.IndexedBase(param.name)] = Printed(param.name)
    return names


def module_context(metric: ir.Metric) -> dict:
    context = {
        "metric": metric,
        "source": metric.source,
        "digest": metric.digest,
        "range": [_number(v) for v in metric.range],
        "params": [_param_info(p) for p in metric.params],
        "undefined_text": [sympy.sstr(u) + " = 0" for u in metric.undefined],
        "simplified_text": sympy.sstr(metric.simplified),
        "equivalences_text": [e.text(metric.id) for e in metric.equivalences if e.stated],
        "terms": _terms(metric),
        "per_instance": any(t.mode == "samples" for t in metric.terms),
    }
    if metric.level == "class":
        context["kernel"] = _class_kernel(metric.simplified, metric.undefined, metric.params)
    elif metric.level == "curve":
        context["kernel"] = _curve_kernel(metric)
    elif metric.level == "score":
        names = {symbols.SCORE: Printed("S"), symbols.TRUTH: Printed("Y"), symbols.N_TOTAL: Printed("n")}
        lines, printed = _kernel_body([metric.simplified, *metric.undefined], names, ranges=(symbols.N_TOTAL,))
        context["kernel"] = {"lines": lines, "value": printed[0].code, "undefined": _undefined_code(printed[1:])}
    else:
        names = _matrix_names(metric) if metric.level == "matrix" else {t.symbol: Printed(_python_name(t)) for t in metric.terms}
        names.update({p.symbol: Printed(p.name, batched=False) for p in metric.params if p.kind == "scalar"})
        lines, printed = _kernel_body([metric.simplified, *metric.undefined], names)
        context["kernel"] = {"lines": lines, "value": printed[0].code, "undefined": _undefined_code(printed[1:])}
    return context


def emit_module(metric: ir.Metric) -> str:
    """The source of ``generated/<id>.py``, importing only the runtime helpers it uses."""
    from metricc.runtime import kernel

    template = _ENVIRONMENT.get_template("metric.py.j2")
    context = module_context(metric)
    draft = template.render(context, imports=kernel.__all__)
    body = draft.split("from metricc.runtime.registry", 1)[1]
    used = [name for name in kernel.__all__ if re.search(rf"\b{name}\b", body)]
    return template.render(context, imports=used)


def emit_registry(metrics: Mapping[str, ir.Metric]) -> str:
    """The source of ``generated/__init__.py``: every metric and its metadata."""
    return _ENVIRONMENT.get_template("registry.py.j2").render(metrics=list(metrics.values()))
