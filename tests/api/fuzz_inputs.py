"""Hostile inputs for the runtime, and the rule every call must keep (issue 13).

The rule: a call returns values of the right shape, each finite or NaN (or infinite where
the metric's declared range is unbounded) and within the declared range, or raises
:class:`~metricc.core.errors.InputError`; never another exception, never a warning. The
command line keeps the same rule as exit codes: 0 or 2 (unusable input), never 3, no traceback.

The generators draw through a :class:`Source`, so the same cases come from hypothesis in
``tests/api/test_fuzz.py`` and from a seeded ``random.Random`` in
``benchmarks/fuzz_runtime.py`` (many more calls than a test run can afford).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import random
import traceback
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from metricc.api import ClassCounts, InputError, catalog, evaluate

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "object", "str", "complex128", "datetime64[s]")
AVERAGES = ("none", "binary", "micro", "macro", "weighted", "geometric", "samples")
BAD_AVERAGES = ("macroo", "", 5, None, ["macro"])
# Numbers a count, score or parameter may be: ordinary, edge, out of domain, huge, not a number.
NUMBERS = (0, 1, 2, 3, 7, 0.5, 1e-300, -1, -0.0, 2 ** 53, 2 ** 53 + 1, 2 ** 62, 2 ** 64, 10 ** 400,
           1e154, 1e200, 1e308, math.nan, math.inf, -math.inf)
ODD_VALUES = (None, "x", "", "2", [1, 2], {"a": 1}, True, 1 + 2j, b"f1")
LABELS = (0, 1, 2, 3, -1, "a", "b", "c", "", None, math.nan, 1.5, True, 2 ** 63, [1], {"a": 1}, b"a")


class Source(Protocol):
    """Where the generators' choices come from."""

    def choice(self, options: Sequence): ...

    def integer(self, low: int, high: int) -> int: ...


class RandomSource:
    """A seeded source for the benchmark script."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def choice(self, options: Sequence):
        return options[self._random.randrange(len(options))]

    def integer(self, low: int, high: int) -> int:
        return self._random.randint(low, high)


class DataSource:
    """A source drawing from hypothesis's ``st.data()``, so failures shrink and replay."""

    def __init__(self, data) -> None:
        from hypothesis import strategies as st

        self._data, self._st = data, st

    def choice(self, options: Sequence):
        return options[self._data.draw(self._st.integers(0, len(options) - 1))]

    def integer(self, low: int, high: int) -> int:
        return self._data.draw(self._st.integers(low, high))


@dataclass(frozen=True)
class Case:
    """One call: a description to reproduce it and the expected shape of each value (None: any)."""

    description: str
    call: Callable[[], object]
    shapes: dict | None = None


# ---------------------------------------------------------------- data

def _maybe(source: Source, rare: float = 0.15) -> bool:
    return source.integer(0, 999) < rare * 1000


class _Calm:
    """A source for a call of valid inputs only: values, not errors, exercise the arithmetic."""

    hostile = False

    def __init__(self, source: Source) -> None:
        self.choice, self.integer = source.choice, source.integer


def _calm(source: Source) -> Source:
    """Half of the calls keep to valid inputs (hostile ones mostly end in an InputError)."""
    return _Calm(source) if _maybe(source, 0.5) else source


def _bad(source: Source, rare: float) -> bool:
    """A hostile choice, never in a calm call."""
    return getattr(source, "hostile", True) and _maybe(source, rare)


def _pick(source: Source, good: Sequence, bad: Sequence = ()):
    return source.choice(tuple(good) + (tuple(bad) if getattr(source, "hostile", True) else ()))


def _array(source: Source, shape: tuple, values: Sequence = (0, 1, 2, 3, 5, 8, 13, 0, 1, 2 ** 40)):
    """Counts or scores of ``shape``, sometimes a hostile number inside, in a random dtype."""
    flat = [source.choice(values) for _ in range(math.prod(shape))]
    if flat and _bad(source, 0.15):
        flat[source.integer(0, len(flat) - 1)] = source.choice(NUMBERS + ODD_VALUES)
    dtype = source.choice(DTYPES) if _bad(source, 0.3) else None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            array = np.empty(len(flat), dtype=object)
            array[:] = flat
            array = array.reshape(shape)
            if dtype is not None:
                return array.astype(dtype)
            return array.tolist() if _maybe(source, 0.5) else np.array(array.tolist())
        except Exception:  # noqa: BLE001 - not every hostile value has this form; keep the list
            return array.tolist()


def _ragged(source: Source):
    return source.choice(([[1, 2], [3]], [[1, [2]], [3, 4]], [[]], [], 5, "[[1]]", None, {"a": 1},
                          np.zeros((2, 2, 2), dtype=int), np.array(5), np.empty((0, 3)), np.array([np.nan, 1.0])))


def _matrix(source: Source, n_classes: int, batch: tuple):
    shape = _pick(source, ((n_classes, n_classes),) * 6 + (batch + (n_classes, n_classes),) * 3,
                  ((n_classes, n_classes + 1), (n_classes,), (0, 0), (), (2, 2, 2, 2)))
    return _ragged(source) if _bad(source, 0.05) else _array(source, shape)


def _counts(source: Source, n_classes: int, batch: tuple):
    if _bad(source, 0.05):
        return _ragged(source)
    shape = batch + (n_classes,)
    arrays = [_array(source, _pick(source, (shape,) * 20, ((n_classes + 1,), ()))) for _ in range(4)]
    return ClassCounts(*arrays) if _maybe(source, 0.5) else tuple(arrays[:_pick(source, (4,), (4, 4, 3))])


def _labels(source: Source, n: int, n_classes: int):
    kind = _pick(source, ("int", "int", "int", "str", "str", "array", "array"), ("mixed", "ragged"))
    if kind == "ragged":
        return _ragged(source)
    pool = list(range(n_classes)) if kind in ("int", "array") else ["a", "b", "c", "d"][:n_classes] if kind == "str" \
        else list(LABELS)
    labels = [source.choice(pool) for _ in range(n)]
    if kind != "mixed" and labels and _bad(source, 0.1):
        labels[source.integer(0, n - 1)] = source.choice(LABELS)
    if kind == "array":
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                return np.array(labels).astype(_pick(source, ("int64", "uint8", "float32", "object"), DTYPES))
            except Exception:  # noqa: BLE001 - not every hostile value has this form; keep the list
                return labels
    return labels


def _scores(source: Source, n: int, n_classes: int):
    n_classes = max(n_classes, 2) if _maybe(source, 0.9) else n_classes
    if _bad(source, 0.05):
        return _ragged(source)
    shape = _pick(source, ((n, n_classes),) * 8 + ((n,),), ((n, 1), (n + 1, n_classes), (0, n_classes)))
    rows = _array(source, shape, (0.0, 0.1, 0.25, 0.5, 0.75, 1.0))
    if _maybe(source, 0.7) and len(shape) == 2 and shape[0] and shape[1]:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                array = np.asarray(rows, dtype=float) + 1e-3
                return (array / array.sum(axis=-1, keepdims=True)).tolist()  # probabilities
            except Exception:  # noqa: BLE001 - not every hostile value has this form; keep the rows
                return rows
    return rows


def _parameter(source: Source, param, n_classes: int):
    if param.kind == "scalar":
        return _pick(source, (param.default, 0.5, 1, 2, 1e-3, 1e-300, 2 ** 53), NUMBERS + ODD_VALUES)
    if param.kind == "metric":
        return _pick(source, ("precision", "recall", "g_mean", "f_beta", ("f_beta", {"beta": 2})),
                     ("nope", "au1u", "mcc", ("f_beta", {"beta": -1}), ("f_beta", {"gamma": 1}), 5, None))
    vector = [source.choice((0.0, 0.25, 0.5, 1.0, 1e-300)) for _ in range(n_classes)]
    if _bad(source, 0.4):
        vector[source.integer(0, n_classes - 1)] = source.choice(NUMBERS + ODD_VALUES)
    return _pick(source, (vector, None), (vector[:-1], vector + [0.5], 0.5))


# ---------------------------------------------------------------- cases

ANY = -1  # an axis of unknown length in an expected shape (the classes of label data)


def _layout(data, tail: int) -> tuple[tuple, int]:
    """(batch axes, classes) of ``data`` whose last ``tail`` axes are per matrix or per class."""
    try:
        shape = np.shape(data)
    except ValueError:  # ragged: an InputError is expected
        return (), ANY
    return (shape[:-tail], shape[-1]) if len(shape) >= tail else ((), ANY)


def _expected_shapes(infos, names, average, batch: tuple, n_classes: int, score_classes: int = ANY) -> dict:
    """Shapes of the values: ``n_classes`` for counts and matrices, ``score_classes`` for scores."""
    shapes = {}
    for name, info in zip(names, infos):
        mode = average or info.default_average
        if info.level in ("score", "curve"):
            per_class = info.level == "curve" or bool(info.averages)  # curves, and score specs with per_class: k
            shapes[name] = (score_classes,) if per_class and mode == "none" else ()
        elif (info.level == "class" or info.level == "matrix" and info.averages) and mode == "none":  # per_class: j
            shapes[name] = batch + (n_classes,)
        else:
            shapes[name] = batch
    return shapes


def _scores_classes(scores) -> int:
    batch, n_classes = _layout(scores, 1)
    return 2 if n_classes != ANY and not batch else n_classes


def evaluate_case(source: Source) -> Case:
    """A call of ``evaluate`` with random metrics, input kind, data, averaging and parameters."""
    source = _calm(source)
    infos = catalog().values()
    n_classes, n = source.integer(1, 4), source.integer(1, 8)
    batch = source.choice(((), (), (2,), (1, 2)))
    if _bad(source, 0.05):
        metrics = source.choice((None, 5, [["f1"]], [], "nope", b"f1", {"f1": 1}, ["f1", 2]))
        chosen = []
    else:
        chosen = [source.choice(infos) for _ in range(source.integer(1, 3))]
        metrics = chosen[0].id if len(chosen) == 1 and _maybe(source, 0.5) else [i.id for i in chosen]
    kwargs: dict = {}
    levels = {info.level for info in chosen}
    if _bad(source, 0.1) or not chosen:
        kind = source.choice(("matrix", "labels", "counts", "multilabel", "scores", "probabilistic"))
    elif levels & {"score", "curve"}:
        kind = "scores"
    elif levels == {"matrix"}:
        kind = source.choice(("matrix", "matrix", "labels", "probabilistic"))
    elif "matrix" in levels:
        kind = source.choice(("matrix", "labels"))
    else:
        kind = source.choice(("matrix", "labels", "counts", "multilabel"))
    if kind == "matrix":
        kwargs["matrix"] = _matrix(source, n_classes, batch)
        if _maybe(source, 0.2):
            kwargs["orientation"] = _pick(source, ("true-rows", "pred-rows"), ("columns", 5))
    elif kind == "counts":
        kwargs["counts"] = _counts(source, n_classes, batch)
    elif kind == "labels":
        kwargs["y_true"], kwargs["y_pred"] = _labels(source, n, n_classes), _labels(source, n, n_classes)
        batch = ()
    elif kind == "multilabel":
        shape = batch + (n, n_classes)
        kwargs.update(y_true=_array(source, shape, (0, 1)), y_pred=_array(source, shape, (0, 1)), multilabel=True)
    elif kind == "scores" and not levels - {"score", "curve"} and _maybe(source, 0.3):
        # multi-label truth beside the scores: ranking metrics and per-label curves
        kwargs.update(y_true=_array(source, (n, n_classes), (0, 1)), scores=_scores(source, n, n_classes), multilabel=True)
    else:
        kwargs["y_true"], kwargs["scores"] = _labels(source, n, n_classes), _scores(source, n, n_classes)
        if levels - {"score", "curve"} and kind == "scores":
            kwargs["y_pred"] = _labels(source, n, n_classes)
        if kind == "probabilistic":
            kwargs["probabilistic"] = _pick(source, ("relative", "absolute"), ("other",))
        batch = ()
    if _bad(source, 0.15):
        kwargs["labels"] = source.choice((list(range(n_classes)), ["a", "b", "c", "d"][:n_classes], [0, 0], 5, [None], [[1]]))
    if _maybe(source, 0.6):
        kwargs["average"] = source.choice(AVERAGES + (BAD_AVERAGES if _bad(source, 0.1) else ()))
    params = {p.name: _parameter(source, p, n_classes) for info in chosen for p in info.params if _maybe(source, 0.6)}
    if params or _bad(source, 0.02):
        kwargs["params"] = params if not _bad(source, 0.05) else source.choice(([("beta", 2)], "beta", 5))
    if _maybe(source, 0.2):
        kwargs["zero_division"] = _pick(source, (0, 1, 0.5, math.nan, "nan", "skip"), ("x", math.inf, None, [1], True))
    if _bad(source, 0.1):
        kwargs["pos_label"] = source.choice((0, 1, 2, -1, 7, "a", None, 1.0, [1]))
    if _bad(source, 0.1):
        kwargs["weights"] = source.choice(([1.0] * n_classes, [1.0], [math.nan] * n_classes, [-1.0] * n_classes, "w"))
    if _bad(source, 0.05):
        kwargs["relevance"] = source.choice(("prevalence", [0.5] * n_classes, {0: 1.0}, "x", [2.0] * n_classes))
    if kind in ("matrix", "multilabel"):
        batch, n_classes = _layout(kwargs["matrix"] if kind == "matrix" else kwargs["y_true"], 2)
    elif kind == "counts":
        batch, n_classes = _layout(kwargs["counts"][0] if isinstance(kwargs["counts"], tuple) else None, 1)
    elif kind == "labels":
        batch, n_classes = _layout(kwargs["y_true"], 1)[0], ANY
    else:
        n_classes = ANY  # class-level metrics count the labels of y_pred
    names = [metrics] if isinstance(metrics, str) else [i.id for i in chosen]
    score_classes = _scores_classes(kwargs["scores"]) if "scores" in kwargs else ANY
    shapes = _expected_shapes(chosen, names, kwargs.get("average"), batch, n_classes, score_classes) if chosen else None
    return Case(f"evaluate({metrics!r}, **{kwargs!r})", lambda: evaluate(metrics, **kwargs), shapes)


def function_case(source: Source) -> Case:
    """A generated function called directly (``metricc.generated.<id>.<id>``)."""
    source = _calm(source)
    info = source.choice(catalog().values())
    n_classes, n = source.integer(1, 4), source.integer(1, 8)
    batch = source.choice(((), (2,)))
    kwargs = {p.name: _parameter(source, p, n_classes) for p in info.params if _maybe(source, 0.5)}
    if _maybe(source, 0.3):
        kwargs["zero_division"] = _pick(source, (0, 1, math.nan, "skip"), ("x", None))
    mode = None
    if (info.level in ("class", "curve") or info.averages) and _maybe(source, 0.7):
        mode = kwargs["average"] = _pick(source, info.averages or AVERAGES, AVERAGES + ("macroo", 3))
    if info.level == "matrix":
        args = (_matrix(source, n_classes, batch),)
        batch, n_classes = _layout(args[0], 2)
    elif info.level in ("class", "aggregate"):
        counts = _counts(source, n_classes, batch)
        args = tuple(counts) if isinstance(counts, tuple) and len(counts) == 4 else (counts, counts, counts, counts)
        batch, n_classes = _layout(args[0], 1)
    else:
        args, batch = (_labels(source, n, n_classes), _scores(source, n, n_classes)), ()
        n_classes = _scores_classes(args[1])
    shapes = _expected_shapes([info], [info.id], mode, batch, n_classes, n_classes)
    return Case(f"{info.id}(*{args!r}, **{kwargs!r})", lambda: {info.id: info.function(*args, **kwargs)}, shapes)


def cli_case(source: Source) -> Case:
    """``metricc eval`` with random options; data inline as JSON."""
    n_classes, n = source.integer(1, 3), source.integer(1, 6)
    metric_ids = [source.choice(tuple(catalog()) + ("nope",)) for _ in range(source.integer(1, 2))]
    argv = ["eval"] + [a for m in metric_ids for a in ("--metric", m)]
    kind = source.choice(("matrix", "labels", "scores"))
    if kind == "matrix":
        argv += ["--matrix", _json(_matrix(source, n_classes, (2,)))]
    else:
        argv += ["--y-true", _json(_labels(source, n, n_classes))]
        argv += ["--scores", _json(_scores(source, n, n_classes))] if kind == "scores" else \
            ["--y-pred", _json(_labels(source, n, n_classes))]
    if _maybe(source, 0.4):
        argv += ["--average", source.choice(AVERAGES)]
    if _maybe(source, 0.3):
        argv += ["--param", source.choice(("beta=2", "beta=1e200", "beta=-1", "beta=null", "alpha=0.5", "kappa=[0.5]",
                                           "beta=[1, 2]", "beta", "beta=nan", "relevance=[1, 1]"))]
    if _maybe(source, 0.15):
        argv += ["--sweep", source.choice(("beta=0.5:2:3", "beta=1,2", "kappa=0:1:3", "beta=0:1:1000000000", "x=1"))]
    if _maybe(source, 0.15):
        argv += ["--zero-division", source.choice(("0", "nan", "skip", "x", "inf"))]
    if _maybe(source, 0.1):
        argv += ["--pos-label", source.choice(("0", "1", "a", "7"))]
    if _maybe(source, 0.1):
        argv += ["--labels", *source.choice((["0", "1"], ["a", "b", "c"], ["1", "1"], [""]))]
    argv += ["--format", source.choice(("json", "text"))]
    return Case("metricc " + " ".join(json.dumps(a) if " " in a else a for a in argv), lambda: _run_cli(argv))


def _json(value) -> str:
    def plain(v):
        if isinstance(v, np.ndarray):
            return plain(v.tolist())
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, dict):
            return {str(k): plain(x) for k, x in v.items()}
        if isinstance(v, (bytes, complex)) or (isinstance(v, float) and not math.isfinite(v)):
            return str(v)
        if isinstance(v, np.generic):
            return plain(v.item())
        if isinstance(v, int) and abs(v) > 10 ** 30:
            return str(v)
        return v if v is None or isinstance(v, (str, int, float)) else str(v)

    return json.dumps(plain(value))


@dataclass(frozen=True)
class CliResult:
    code: int
    stderr: str


def _run_cli(argv: list[str]) -> CliResult:
    from metricc import cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    return CliResult(code, err.getvalue())


GENERATORS = {"evaluate": evaluate_case, "function": function_case, "cli": cli_case}


# ---------------------------------------------------------------- the rule

@dataclass(frozen=True)
class Outcome:
    """``kind``: "value", "input error", or a failure: "exception", "warning", "wrong value"."""

    kind: str
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.kind not in ("value", "input error")


def outcome(case: Case) -> Outcome:
    """Run ``case`` under warnings-as-records and floating-point errors raised, and judge it."""
    with warnings.catch_warnings(record=True) as caught, np.errstate(over="raise", divide="raise", invalid="raise"):
        warnings.simplefilter("always")
        try:
            result = case.call()
        except InputError:
            result = None
        except Exception as error:  # noqa: BLE001 - any other exception breaks the rule
            frames = traceback.extract_tb(error.__traceback__)
            where = f"{frames[-1].filename.rsplit('/', 2)[-1]}:{frames[-1].lineno}" if frames else "?"
            return Outcome("exception", f"{type(error).__name__} at {where}: {str(error)[:200]}")
    if caught:
        first = caught[0]
        return Outcome("warning", f"{first.category.__name__} at {first.filename.rsplit('/', 2)[-1]}:{first.lineno}: "
                                  f"{first.message}")
    if result is None:
        return Outcome("input error")
    if isinstance(result, CliResult):
        if result.code not in (0, 2) or "Traceback" in result.stderr:
            return Outcome("exception", f"exit {result.code}: {result.stderr.strip().splitlines()[-1:]}")
        return Outcome("value" if result.code == 0 else "input error")
    return _judge_values(result, case.shapes)


def _judge_values(result: dict, shapes: dict | None) -> Outcome:
    for name, value in result.items():
        info = catalog()[name]
        array = np.asarray(value)
        if array.dtype.kind != "f":
            return Outcome("wrong value", f"{name}: dtype {array.dtype}, expected float")
        expected = None if shapes is None else shapes.get(name)
        if expected is not None and not (len(array.shape) == len(expected) and all(
                e in (ANY, a) for a, e in zip(array.shape, expected))):
            return Outcome("wrong value", f"{name}: shape {array.shape}, expected {shapes[name]}")
        low, high = info.range
        defined = array[~np.isnan(array)]
        tolerance = 1e-9 * max([1.0, *(abs(b) for b in info.range if math.isfinite(b))])
        if (defined < low - tolerance).any() or (defined > high + tolerance).any():
            return Outcome("wrong value", f"{name}: {array.tolist()!r} outside its range [{low}, {high}]")
    return Outcome("value")
