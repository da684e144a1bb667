"""Validate stage: check a loaded spec against ``specs/schema.json`` and a few rules beyond it.

Every problem of the file is collected, sorted by position and raised as one
:class:`~metricc.compiler.errors.SchemaError`. jsonschema's own messages are rewritten
into short ones that say how to fix the spec, e.g.
``$.averages[1]: 'macroo' is not one of none, binary, micro, macro, weighted, geometric, samples``
or ``$.formla: unknown key; did you mean 'formula'?``. Rules the schema cannot express:
the id equals the file stem, ``default_average`` is one of ``averages``, ``range`` is
increasing, no YAML infinities or NaNs, and formula texts that the parser would misread or
that exceed :mod:`.limits`: no ``#`` (Python reads the rest as a comment), no comment on a
formula's line (YAML drops it), at most ``MAX_FORMULA_CHARS`` characters and numbers of at
most ``MAX_NUMBER_DIGITS`` digits, checked before anything parses the formula.
"""

from __future__ import annotations

import difflib
import functools
import importlib.resources
import json
import math
import re
from pathlib import PurePath
from typing import Any, Iterator

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from metricc.compiler.errors import Diagnostic, SchemaError
from metricc.compiler.language import averaging, bands, symbols
from metricc.compiler.language.levels import Level, rules
from metricc.compiler.language.limits import MAX_FORMULA_CHARS, MAX_NUMBER_DIGITS, over_limit
from metricc.compiler.language.load import SourceSpec

__all__ = ["schema", "validate", "validate_catalog"]

# How each schema pattern reads in a message. Patterns end in (?!\n)$: jsonschema matches
# with re.search, where a bare $ also matches before a final line break ("zz_o\n").
_PATTERNS = {
    "^[a-z][a-z0-9_]*(?!\\n)$": "snake_case (a lower-case letter, then lower-case letters, digits or '_')",
    "^[a-z][a-z0-9_]*(\\[[a-z](, ?[a-z])*\\])?(?!\\n)$":
        "a snake_case name, optionally indexed like s[j] or s[i, j]",
    "^[\\[(] *(-?inf|-?[0-9]+(\\.[0-9]+)?) *, *(-?inf|-?[0-9]+(\\.[0-9]+)?) *[\\])](?!\\n)$":
        "an interval like '[0.2, 0.4)' ([ ] closed end, ( ) open end, -inf / inf for no bound)",
}
_PATTERNS["^[a-moq-su-z](?!\\n)$"] = "one lower-case letter other than n, p and t (those name the totals), e.g. j"
_TYPES = {"string": "a string", "number": "a number", "integer": "an integer",
          "boolean": "true or false", "array": "a list", "object": "a mapping", "null": "null"}
# Words YAML 1.1 read as booleans; the YAML 1.2 core schema of specs reads them as text.
_YAML_1_1_BOOLEANS = {"y", "yes", "n", "no", "on", "off"}
_MIN_ITEMS = {("references",): "list at least one reference",
              ("averages",): "list at least one averaging mode"}


def validate(spec: SourceSpec) -> SourceSpec:
    """Return ``spec`` unchanged if it is valid, else raise :class:`SchemaError` (all problems).

    >>> import pathlib, tempfile
    >>> from metricc.compiler.language.load import load_spec
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "g.yaml").write_text("id: g\\nlevel: matrix\\nformla: n\\n")
    >>> try:
    ...     validate(load_spec(d / "g.yaml"))
    ... except SchemaError as exc:
    ...     print("\\n".join(f"{x.key}: {x.message}" for x in exc.diagnostics))
    $: missing required key 'name'
    $: missing required key 'description'
    $: missing required key 'references'
    $: missing required key 'formula'
    $: missing required key 'range'
    $: missing required key 'higher_is_better'
    $.formla: unknown key; did you mean 'formula'?
    """
    found: dict[Diagnostic, None] = {}  # ordered set: one error can surface twice
    for error in _validator().iter_errors(spec.data):
        found.update(dict.fromkeys(_from_schema_error(spec, error)))
    found.update(dict.fromkeys(_beyond_schema(spec)))
    if found:
        ordered = sorted(found, key=lambda d: (d.location.line, d.location.column))
        raise SchemaError(ordered)
    return spec


def schema() -> dict:
    """The spec JSON Schema (``specs/schema.json``), parsed."""
    return json.loads(_schema_text())


@functools.cache
def _schema_text() -> str:
    return (importlib.resources.files("metricc.specs") / "schema.json").read_text("utf-8")


@functools.cache
def _validator() -> Draft202012Validator:
    """The schema's validator, its averaging modes those of the averaging table (the file lists
    them for editors; a test keeps the two equal)."""
    document = schema()
    document["$defs"]["average"] = {"enum": list(averaging.MODES)}
    Draft202012Validator.check_schema(document)
    return Draft202012Validator(document)


# --- jsonschema errors -> diagnostics --------------------------------------------------


def _from_schema_error(spec: SourceSpec, error: ValidationError) -> Iterator[Diagnostic]:
    path = tuple(error.absolute_path)
    schema_path = tuple(error.absolute_schema_path)
    kind, value, instance = error.validator, error.validator_value, error.instance

    if "propertyNames" in schema_path:  # the key itself is malformed; instance is the key
        key_path = path + (instance,)
        what = {"params": "parameter name", "let": "let name"}.get(path[-1] if path else "", "key")
        message = f"{what} {_show(instance)} must be {_PATTERNS.get(value, f'like {value}')}"
        yield _diag(spec, key_path, message, at_key=True)
    elif kind == "required":
        missing = [key for key in value if key not in instance]
        why = ""
        if "then" in schema_path:
            level = instance.get("level")
            why = (" (required with per_class: the values per class are averaged)" if "per_class" in instance
                   else " (required for level 'class', the default)" if level is None
                   else f" (required for level {level!r})")
        for key in missing:
            yield _diag(spec, path, f"missing required key {key!r}{why}")
    elif kind == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        for key in instance:
            if key not in allowed:
                close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
                hint = (f"did you mean {close[0]!r}?" if close
                        else f"remove it (allowed: {', '.join(allowed)})")
                yield _diag(spec, path + (key,), f"unknown key; {hint}", at_key=True)
    elif kind is None and schema_path[-2:] == ("then", "properties"):
        # A key forbidden by a level conditional. jsonschema reports `false` schemas
        # without the key's path, so look up which forbidden keys the spec has.
        container = _lookup(spec.data, path)
        level = container.get("level")
        for key, rule in _at_schema_path(schema_path).items():
            if rule is False and key in container:
                why = ("only curve and score formulas read scores" if key == "scores"
                       else "only score formulas read the truth matrix Y" if key == "truth"
                       else "only matrix formulas are given matrices that may hold fractions" if key == "counts"
                       else f"it is {rules(level or Level.CLASS).value_unit}{_PER_CLASS_HINT.get(level, '')}")
                message = f"{key} is not allowed for level {level or 'class'!r} ({why}); remove it"
                yield _diag(spec, path + ("level",), message)
    elif kind == "enum":
        yield _diag(spec, path, f"{_show(instance)} is not one of {', '.join(map(str, value))}")
    elif kind == "type":
        types = [value] if isinstance(value, str) else value
        expected = " or ".join(_TYPES.get(t, t) for t in types)
        hint = ("; quote it to make it text"
                if value == "string" and isinstance(instance, (bool, int, float)) else "")
        if "boolean" in types and isinstance(instance, str) and instance.lower() in _YAML_1_1_BOOLEANS:
            hint = "; write true or false (specs read YAML 1.2, where yes, no, on and off are text)"
        elif path == ("higher_is_better",) and isinstance(instance, str) and instance.lower() in ("none", "null", "neither"):
            hint = "; write null (unquoted) for a statistic with no better direction"
        yield _diag(spec, path, f"expected {expected}, got {_describe(instance)}{hint}")
    elif kind == "anyOf":
        expected = error.schema.get("description", "a different value")
        yield _diag(spec, path, f"expected {expected}, got {_describe(instance)}")
    elif kind in ("minItems", "maxItems") and path == ("range",):
        yield _diag(spec, path, f"expected two bounds [low, high], got {len(instance)}")
    elif kind == "minItems":
        message = _MIN_ITEMS.get(path, f"expected at least {value} item(s), got {len(instance)}")
        yield _diag(spec, path, message)
    elif kind == "uniqueItems":
        for index, item in enumerate(instance):
            if item in instance[:index]:
                yield _diag(spec, path + (index,),
                            f"{_show(item)} is listed more than once; remove the duplicate")
    elif kind == "minLength":
        yield _diag(spec, path, "must not be empty")
    elif kind == "pattern" and value == "\\S":
        yield _diag(spec, path, "must not be blank")
    elif kind == "pattern":
        yield _diag(spec, path, f"{_show(instance)} is not {_PATTERNS.get(value, value)}")
    else:  # a rule without a tailored message: jsonschema's, if it is short
        message = error.message if len(error.message) <= 100 else f"violates the {kind!r} rule"
        yield _diag(spec, path, message)


def _at_schema_path(schema_path: tuple) -> Any:
    node: Any = _validator().schema
    for step in schema_path:
        node = node[step]
    return node


# --- rules beyond the schema -------------------------------------------------------------


def _beyond_schema(spec: SourceSpec) -> Iterator[Diagnostic]:
    data = spec.data
    identifier = data.get("id")
    file_name = PurePath(spec.path).name
    if isinstance(identifier, str) and identifier != PurePath(spec.path).stem:
        yield _diag(spec, ("id",), f"{_show(identifier)} does not match the file name "
                    f"{_show(file_name)}")

    yield from per_class_problems(spec)
    averages, default = data.get("averages"), data.get("default_average")
    if ((data.get("level", Level.CLASS) == Level.CLASS or "per_class" in data) and isinstance(default, str)
            and isinstance(averages, list) and all(isinstance(a, str) for a in averages)
            and default not in averages):
        yield _diag(spec, ("default_average",), f"{_show(default)} is not in averages "
                    f"({', '.join(averages)}); add it there or pick one of them")

    bounds = data.get("range")
    if isinstance(bounds, list) and len(bounds) == 2:
        low, high = (_bound(b) for b in bounds)
        if low is not None and high is not None and not low < high:
            yield _diag(spec, ("range",), f"low bound {bounds[0]} must be less than high "
                        f"bound {bounds[1]}; write [low, high]")

    for path, message in bands.problems(data):
        yield _diag(spec, path, message)

    for path in _formula_paths(data):
        problem = _formula_problem(spec, path)
        if problem:
            yield problem

    for path, item in _walk(data, ()):
        if isinstance(item, float) and math.isnan(item):
            yield _diag(spec, path, "NaN is not allowed; write a number")
        elif isinstance(item, float) and math.isinf(item):
            text = "-inf" if item < 0 else "inf"
            yield _diag(spec, path, f"write the string {text!r} instead of a YAML infinity")


_PER_CLASS_HINT = {Level.MATRIX: "; for one value per class, declare the class index, e.g. per_class: j",
                   Level.SCORE: "; for one value per class, declare the class index, e.g. per_class: k"}
# Levels whose formulas may declare a free class index: a matrix formula for class j (PyCM's
# class CEN), a score formula for class k (one-vs-all hinge). Class and curve formulas are
# already per class; an aggregate formula is over averaged metrics.
PER_CLASS_LEVELS = (Level.MATRIX, Level.SCORE)
# Averaging modes of per-class values of a matrix or score formula: those the averaging table
# does not refuse for them (micro pools counts, samples reads per-instance counts).
PER_CLASS_AVERAGES = tuple(name for name, mode in averaging.MODES.items() if mode.refused_for_values is None)
_NO_MEANING = {name: mode.refused_for_values for name, mode in averaging.MODES.items() if mode.refused_for_values}
_INPUTS = {Level.MATRIX: ("matrix", "a confusion matrix"), Level.SCORE: ("score matrix", "the score matrix")}


def per_class_problems(spec: SourceSpec) -> Iterator[Diagnostic]:
    """``per_class`` belongs to matrix and score formulas, whose per-class values take none, binary,
    macro, weighted; at the score level the class index cannot be a sample index (s, u, v)."""
    data = spec.data
    if "per_class" not in data:
        return
    level = data.get("level", Level.CLASS)
    if level not in PER_CLASS_LEVELS:
        yield _diag(spec, ("per_class",), f"per_class is for levels 'matrix' and 'score' (a formula over M, t, p "
                    f"or over S, Y for one class); level {data.get('level', 'class')!r} formulas are already per class or per data set: "
                    "remove per_class or set 'level: matrix' or 'level: score'", at_key=True)
        return
    index = data["per_class"]
    if level == Level.SCORE and symbols.is_sample_index_name(index):
        yield _diag(spec, ("per_class",), f"{_show(index)} is a sample index at the score level "
                    f"({', '.join(symbols.SAMPLE_INDICES)} run over the samples); name the class index with "
                    "another letter, e.g. per_class: k")
    averages = data.get("averages")
    words = dict(zip(("input", "what"), _INPUTS[Level(level)]), level=level)
    for position, mode in enumerate(averages if isinstance(averages, list) else ()):
        if mode in _NO_MEANING:
            yield _diag(spec, ("averages", position), f"{_show(mode)} has no meaning for the per-class values of a "
                        f"{level} formula ({_NO_MEANING[mode].format(**words)}); use {', '.join(PER_CLASS_AVERAGES)}")


# An identifier whole (its digits are no number's), or a number literal with its fraction and exponent.
_NAME_OR_NUMBER = re.compile(r"[^\W\d]\w*|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][-+]?[\d_]+)?")


def _formula_paths(data: dict) -> Iterator[tuple]:
    """Paths of every formula text: formula, let definitions, parameter defaults and domains,
    the conditioning scale."""
    lets, params = data.get("let"), data.get("params")
    candidates = [("formula",), ("conditioning", "scale")]
    candidates += [("let", name) for name in lets] if isinstance(lets, dict) else []
    candidates += [("params", name, key) for name in params for key in ("default", "domain")] if isinstance(params, dict) else []
    yield from (path for path in candidates if isinstance(_lookup(data, path), str))


def _formula_problem(spec: SourceSpec, path: tuple) -> Diagnostic | None:
    """The first reason the formula text at ``path`` would be misread or is too large."""
    text = _lookup(spec.data, path)
    key = spec.key_name(path)
    comment = spec.comment_after(path)
    if comment is not None:
        return Diagnostic(comment, key, "a comment after a formula on the same line is ambiguous: "
                          "move it to its own line")
    if len(text) > MAX_FORMULA_CHARS:
        message = over_limit("formula too long", len(text), "characters", MAX_FORMULA_CHARS, "in a formula")
        return _diag(spec, path, message)
    if "#" in text:
        return Diagnostic(spec.locate_in_value(path, text.index("#")), key, "'#' is not allowed in a formula "
                          "(Python would read the rest as a comment); remove it")
    for token in _NAME_OR_NUMBER.finditer(text):
        digits = sum(ch.isdigit() for ch in token[0]) if token[0][0] in "0123456789." else 0
        if digits > MAX_NUMBER_DIGITS:
            message = over_limit("number too long", digits, "digits", MAX_NUMBER_DIGITS, "in a number")
            return Diagnostic(spec.locate_in_value(path, token.start()), key, message)
    return None


def _bound(value: Any) -> float | None:
    if value in ("-inf", "inf"):
        return float(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value):
        return float(value)
    return None


def _walk(value: Any, path: tuple) -> Iterator[tuple[tuple, Any]]:
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, path + (index,))


# --- helpers -------------------------------------------------------------------------------


def _diag(spec: SourceSpec, path: tuple, message: str, *, at_key: bool = False) -> Diagnostic:
    """A diagnostic at ``path``: at the key for unknown keys and for mappings and lists
    (whose value starts on a later line), else at the value."""
    value = _lookup(spec.data, path)
    if at_key or isinstance(value, (dict, list)):
        location = spec.locate_key(path)
    else:
        location = spec.locate(path)
    return Diagnostic(location, spec.key_name(path), message)


def _lookup(data: Any, path: tuple) -> Any:
    for step in path:
        try:
            data = data[step]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _show(value: Any, limit: int = 40) -> str:
    """A value as it appears in a message: short, control characters escaped."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 4] + "..." + (text[0] if isinstance(value, str) else "")
    return text


def _describe(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, (int, float)):
        return f"a number ({value})"
    if isinstance(value, str):
        return f"a string ({_show(value)})"
    return _show(value)


def validate_catalog(sources: list[SourceSpec]) -> list[SourceSpec]:
    """Validate every file, reporting the problems of all files together."""
    problems = []
    for source in sources:
        try:
            validate(source)
        except SchemaError as error:
            problems.extend(error.diagnostics)
    if problems:
        raise SchemaError(problems)
    return sources
