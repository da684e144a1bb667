"""Audit published numbers: recompute every claim of an audit file and compare.

Not part of the numpy-only runtime: it reads YAML; it evaluates through the public API.

An audit file (YAML) is a list of *examples*: the data a paper prints (a confusion
``matrix``, ``y_true``/``y_pred`` labels, or any other input :func:`evaluate` takes) and the
*claims* it makes about that data::

    - source: "Wenzel, Figure 5"
      matrix: [[9, 1], [2, 8]]            # any keyword of evaluate(): y_true, scores, ...
      claims:
        - metric: precision
          average: binary
          pos_label: 0
          printed: "0.82"                 # as printed; precision is read from the digits
          where: "Section 3.1.3"
        - metric: accuracy
          printed: "7/10"                 # fractions are exact
          erratum: wenzel-s323-fig6-accuracy
          correct: 0.822222222222         # a known erratum: what the data really gives

Any other catalog metric that gives the printed value on that data is listed in
``coincides_with`` (closest relative first), a hint that does not change the status.

A claim *agrees* when the recomputed value is within half a unit of the last printed digit
(or ``tolerance``). A claim with an ``erratum`` is expected to differ from its printed value
and to agree with ``correct``. For any claim that differs, the usual conventions are searched
(:mod:`.conventions`): a difference one of them reproduces is ``explained`` (``explained_by``,
the simplest, and ``alternatives``); it is still a failure, as the stated convention does not
give the printed number. An erratum that a convention reproduces names it in the audit file
(``explained_by``), and the search must find it.
"""

from __future__ import annotations

import difflib
import inspect
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np
import yaml

from metricc.audit.conventions import coincidences, explain
from metricc.compiler.errors import YamlSyntaxError
from metricc.compiler.language.load import DataLoader, load_data_file
from metricc.core.errors import InputError
from metricc.api.evaluate import evaluate

__all__ = ["ClaimResult", "MAX_CLAIMS", "MAX_CLASSES", "MAX_FILE_BYTES", "MAX_PRINTED_CHARS", "audit_file", "explain_claim", "format_value",
           "printed_value"]

# Bounds of an audit file, each refused with the file, the claim and the bound (not a
# traceback, not a minutes-long run): a printed number longer than any table prints (a float
# holds 17 significant digits), a claim list longer than a paper's (each differing claim runs
# the convention search, ~10 ms), a matrix wider than the search's positive-class choices.
MAX_PRINTED_CHARS = 40
MAX_CLAIMS = 2_000
MAX_CLASSES = 1_000
# An audit file's bytes, checked before the YAML is read (reading is the slow part: a 1,000-class
# matrix of 6-digit counts is about 8 MB and 40 s to read; a file past it would only be refused later).
MAX_FILE_BYTES = 8_000_000
_MAX_NUMBER_CHARS = 400  # any YAML number: beyond Python's int-string limit long before it bites

# Keys of a claim that are not passed to evaluate().
_CLAIM_KEYS = {"metric", "printed", "tolerance", "erratum", "correct", "where", "explained_by"}
_EXAMPLE_KEYS = {"source", "description", "claims", "printed_matrix", "printed_orientation", "class_names"}
_EVALUATE_KEYS = frozenset(inspect.signature(evaluate).parameters) - {"metrics"}
_NUMBER = re.compile(r"^\s*[~≈]?\s*(-?\d+(?:\.(\d+))?)\s*(%?)\s*$")
_FRACTION = re.compile(r"^\s*(-?\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class ClaimResult:
    """One recomputed claim. ``status``: agrees | erratum | explained | differs | stale-erratum.

    ``explained_by``: the simplest convention (changed arguments) that reproduces the printed
    value of a claim that differs, ``alternatives`` the others; see :mod:`.conventions`.
    """

    file: str
    line: int
    source: str
    where: str
    metric: str
    printed: str
    recomputed: object
    status: str
    erratum: str | None
    explained_by: dict | None = None
    alternatives: tuple = ()
    coincides_with: tuple = ()  # other catalog metrics that give the printed value (a hint)

    @property
    def ok(self) -> bool:
        return self.status in ("agrees", "erratum")


class _PrintedTooLong(ValueError):
    """A printed value past MAX_PRINTED_CHARS: refused with the claim's name."""


def printed_value(text) -> tuple[float, float]:
    """``"0.82"`` -> (0.82, 0.005); ``"9/10"`` -> (0.9, 1e-9); ``"36.5%"`` -> (0.365, 0.0005).

    A number the YAML parser has already read (``0.82``) counts its digits from ``repr``.
    """
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise ValueError(f"a printed value is a number or a string such as '0.82' or '9/10', got {text!r}")
    text = str(text) if not isinstance(text, int) or abs(text) < 10**MAX_PRINTED_CHARS else "9" * (MAX_PRINTED_CHARS + 1)
    if len(text.strip()) > MAX_PRINTED_CHARS:
        raise _PrintedTooLong(f"a printed value of {len(text.strip())} characters; at most {MAX_PRINTED_CHARS} "
                         "(a float holds 17 significant digits): give the number as the paper prints it")
    fraction = _FRACTION.match(text)
    if fraction:
        if int(fraction.group(2)) == 0:
            raise ValueError(f"'{text}' divides by zero")
        return float(Fraction(int(fraction.group(1)), int(fraction.group(2)))), 1e-9
    number = _NUMBER.match(text)
    if not number:
        raise ValueError(f"cannot read '{text}' as a printed number (e.g. 0.82, ~0.745, 36.5%, 9/10)")
    decimals = len(number.group(2) or "")
    scale = 100.0 if number.group(3) else 1.0
    return float(number.group(1)) / scale, 0.5 * 10.0**-decimals / scale


class _TooLong(ValueError):
    def __init__(self, line: int, length: int):
        super().__init__(f"a number of {length} characters; at most {_MAX_NUMBER_CHARS} (write a printed value as a string)")
        self.line = line


class _LineLoader(DataLoader):
    """Records the line of every mapping, so results and errors point into the file; refuses
    numbers too long to read (Python's int-string limit would raise deep inside PyYAML)."""

    def construct_yaml_int(self, node):
        if len(node.value) > _MAX_NUMBER_CHARS:
            raise _TooLong(node.start_mark.line + 1, len(node.value))
        return super().construct_yaml_int(node)

    def construct_yaml_float(self, node):
        if len(node.value) > _MAX_NUMBER_CHARS:
            raise _TooLong(node.start_mark.line + 1, len(node.value))
        return super().construct_yaml_float(node)

    def construct_mapping(self, node, deep=False):
        mapping = super().construct_mapping(node, deep=deep)
        mapping["__line__"] = node.start_mark.line + 1
        mapping["__lines__"] = {key.value: key.start_mark.line + 1 for key, _ in node.value if isinstance(key, yaml.ScalarNode)}
        return mapping


_LineLoader.add_constructor("tag:yaml.org,2002:int", _LineLoader.construct_yaml_int)
_LineLoader.add_constructor("tag:yaml.org,2002:float", _LineLoader.construct_yaml_float)


def _load(path: Path) -> list[dict]:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputError("audit", f"{path}: {size:,} bytes; at most {MAX_FILE_BYTES:,} per audit file (split the file)")
        data = load_data_file(path.read_text(encoding="utf-8"), str(path), _LineLoader)
    except OSError as error:
        raise InputError("audit", f"cannot read {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise InputError("audit", f"{path}: not UTF-8 text") from None
    except YamlSyntaxError as error:
        first = error.diagnostics[0]
        raise InputError("audit", f"{path}:{first.location.line}: {first.message}") from None
    except _TooLong as error:
        raise InputError("audit", f"{path}:{error.line}: {error}") from None
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        raise InputError("audit", f"{path}:1: an audit file is a list of examples, each with data and 'claims'")
    return data


def _plain_data(value):
    """YAML data without the line bookkeeping of :class:`_LineLoader`."""
    if isinstance(value, dict):
        return {k: _plain_data(v) for k, v in value.items() if not str(k).startswith("__")}
    if isinstance(value, list):
        return [_plain_data(v) for v in value]
    return value


def _matches(value, expected: float, tolerance: float) -> bool:
    values = np.asarray(value, dtype=float)
    return values.shape == np.shape(expected) and bool(np.all(np.abs(values - expected) <= tolerance + 1e-12))


def _plain(value):
    array = np.asarray(value, dtype=float)
    return float(array) if array.ndim == 0 else array.tolist()


def _expected(printed, tolerance, where: str):
    try:
        if isinstance(printed, list):
            pairs = [printed_value(p) for p in printed]
            return [v for v, _ in pairs], tolerance if tolerance is not None else max(t for _, t in pairs)
        value, tol = printed_value(printed)
        return value, tolerance if tolerance is not None else tol
    except ValueError as error:
        raise InputError("audit", f"{where}: {error}") from None


def _claim(path: Path, example: dict, claim: dict, errata: frozenset | None) -> ClaimResult:
    line = claim.get("__line__", example["__line__"])
    missing = [k for k in ("metric", "printed") if k not in claim]
    if missing:
        raise InputError("audit", f"{path}:{line}: a claim needs '{missing[0]}'")
    where, named = f"{path}:{line}", f"{path}:{line}: claim {claim['metric']}"
    erratum = claim.get("erratum")
    for printed in claim["printed"] if isinstance(claim["printed"], list) else [claim["printed"]]:
        try:
            printed_value(printed)
        except _PrintedTooLong as error:
            raise InputError("audit", f"{named}: {error}") from None
        except ValueError:
            pass  # reported below, at the key
    if erratum is not None and errata is not None and erratum not in errata:
        near = difflib.get_close_matches(str(erratum), sorted(errata), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        raise InputError("audit", f"{named}: erratum {erratum!r} is not an id of the errata file "
                                  f"(docs/errata.yaml, {len(errata)} ids){hint}")
    inputs = {}
    for mapping, ignored in ((example, _EXAMPLE_KEYS), (claim, _CLAIM_KEYS)):
        for key, value in mapping.items():
            if key in ignored or key.startswith("__"):
                continue
            if key not in _EVALUATE_KEYS:
                known = ", ".join(sorted((_EVALUATE_KEYS | ignored) - {"metrics"}))
                raise InputError("audit", f"{path}:{mapping['__lines__'].get(key, line)}: unknown key '{key}'; known keys: {known}")
            inputs[key] = _plain_data(value)
    matrix = inputs.get("matrix")
    if isinstance(matrix, list) and len(matrix) > MAX_CLASSES:
        raise InputError("audit", f"{named}: a matrix of {len(matrix)} rows; at most {MAX_CLASSES} classes")
    printed, tolerance = _expected(claim["printed"], claim.get("tolerance"), where)
    try:
        value = evaluate(claim["metric"], **inputs)[claim["metric"]]
    except InputError as error:
        raise InputError("audit", f"{where}: {error.argument}: {error.message}") from None
    if _matches(value, printed, tolerance):
        status = "stale-erratum" if erratum else "agrees"
    elif erratum:
        if "correct" not in claim:
            raise InputError("audit", f"{where}: a claim with an erratum needs 'correct', the value the data gives")
        correct, correct_tolerance = _expected(claim["correct"], claim.get("tolerance"), where)
        status = "erratum" if _matches(value, correct, correct_tolerance) else "differs"
    else:
        status = "differs"
    explanations = [] if status in ("agrees", "stale-erratum") else explain(claim["metric"], inputs, printed, tolerance)
    coincide = [] if status in ("agrees", "stale-erratum") else coincidences(claim["metric"], inputs, printed, tolerance)
    if status == "differs" and explanations and not erratum:
        status = "explained"
    declared = claim.get("explained_by")
    if declared is not None and _plain_data(declared) != (explanations[0] if explanations else None):
        found = explanations[0] if explanations else "nothing"
        raise InputError("audit", f"{where}: explained_by {_plain_data(declared)} is not what the convention search finds first: {found}")
    shown = claim["printed"] if isinstance(claim["printed"], str) else repr(claim["printed"])
    return ClaimResult(str(path), line, str(example.get("source", "")), str(claim.get("where", "")),
                       claim["metric"], shown, _plain(value), status, erratum,
                       explanations[0] if explanations else None, tuple(explanations[1:]), tuple(coincide))


def audit_file(path: str | Path, errata=None) -> list[ClaimResult]:
    """Recompute every claim of one audit file, in file order. ``errata``: the known erratum
    ids (``docs/errata.yaml``); a claim naming another is refused. None: ids are not checked."""
    path = Path(path)
    errata = None if errata is None else frozenset(errata)
    examples = _load(path)
    total = sum(len(e["claims"]) for e in examples if isinstance(e.get("claims"), list))
    if total > MAX_CLAIMS:
        raise InputError("audit", f"{path}: {total} claims; at most {MAX_CLAIMS} per file (split the file)")
    results = []
    for example in examples:
        claims = example.get("claims")
        if not isinstance(claims, list) or not claims:
            raise InputError("audit", f"{path}:{example['__line__']}: an example needs a non-empty list of 'claims'")
        for claim in claims:
            if not isinstance(claim, dict):
                raise InputError("audit", f"{path}:{example['__line__']}: each claim is a mapping with 'metric' and 'printed'")
            results.append(_claim(path, example, claim, errata))
    return results


def explain_claim(metric: str, printed, *, tolerance: float | None = None, **inputs) -> ClaimResult:
    """Recompute one claim (any keyword of ``evaluate``) and, if it differs, search conventions.

    >>> result = explain_claim("f1", "0.9051", matrix=[[391, 24], [58, 49]], average="binary")
    >>> result.status, result.explained_by
    ('explained', {'pos_label': 0})
    """
    unknown = sorted(set(inputs) - _EVALUATE_KEYS)
    if unknown:
        raise TypeError(f"explain_claim() got an unexpected keyword argument '{unknown[0]}'")
    value = evaluate(metric, **inputs)[metric]
    expected, tol = _expected(printed, tolerance, "printed")
    agrees = _matches(value, expected, tol)
    explanations = [] if agrees else explain(metric, inputs, expected, tol)
    coincide = [] if agrees else coincidences(metric, inputs, expected, tol)
    status = "agrees" if agrees else "explained" if explanations else "differs"
    shown = printed if isinstance(printed, str) else repr(printed)
    return ClaimResult("", 0, "", "", metric, shown, _plain(value), status, None,
                       explanations[0] if explanations else None, tuple(explanations[1:]), tuple(coincide))


def format_value(value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    return "NaN" if isinstance(value, float) and math.isnan(value) else f"{value:.6g}"
