"""``metricc eval --sweep NAME=SPEC``: a metric for every value of a parameter grid.

Kept apart from :mod:`.evaluate`, which calls :func:`run` from ``eval``. SPEC is
``START:STOP:NUM`` (``NUM`` evenly spaced values, both ends included: ``0:1:11`` is the step
0.1 of Kozak et al. 2022) or a comma list ``0.33,0.66``. A class-vector parameter sweeps
every vector with entries from those values (``NUM ** C`` vectors), a scalar the values.
"""

from __future__ import annotations

import numpy as np

from metricc.core.errors import InputError
from metricc.runtime import averaging
from metricc.api.formats import render
from metricc.api.sweep import MAX_GRID_ELEMENTS
from metricc.api.value_formats import SweepValues

__all__ = ["parse_spec", "run"]


def parse_spec(text: str) -> tuple[str, list[float]]:
    """``"kappa=0:1:11"`` -> ``("kappa", [0.0, 0.1, ..., 1.0])``.

    >>> parse_spec("kappa=0.33,0.66")
    ('kappa', [0.33, 0.66])
    """
    name, sep, spec = text.partition("=")
    name, spec = name.strip(), spec.strip()
    if not sep or not name or not spec:
        raise InputError("--sweep", f"expected NAME=START:STOP:NUM or NAME=V1,V2,..., got {text!r}")
    try:
        if ":" not in spec:
            return name, [float(v) for v in spec.split(",")]
        start, stop, number = spec.split(":")
        start, stop, count = float(start), float(stop), int(number)
        if count < 1:
            raise ValueError
    except ValueError:
        raise InputError("--sweep", f"{spec!r}: expected START:STOP:NUM (NUM a positive integer) or numbers separated by commas") from None
    if count > MAX_GRID_ELEMENTS:  # checked before the values exist: 10**9 of them take gigabytes
        raise InputError("--sweep", f"{count} values exceed the largest grid, {MAX_GRID_ELEMENTS} values "
                                    f"({MAX_GRID_ELEMENTS * 8 / 2**30:.0f} GiB of float64); use fewer values")
    return name, [float(v) for v in np.linspace(start, stop, count)]


def _sweep_input(data: dict) -> tuple[dict, int, int | None]:
    """``eval``'s input -> (keyword arguments of ``sweep``, number of classes, positive class index or None)."""
    from metricc.runtime import confusion

    labels, pos_label = data.get("labels"), data.get("pos_label")
    if "matrix" in data:
        matrix = confusion.check_matrix(confusion.orient(data["matrix"], data["orientation"]))
    elif data.get("multilabel"):
        counts = confusion.multilabel_counts(data["y_true"], data["y_pred"])
        return {"counts": counts}, counts.true_positives.shape[-1], pos_label
    else:
        labels = confusion.class_labels(data["y_true"], data["y_pred"], labels)
        matrix = confusion.confusion_matrix(data["y_true"], data["y_pred"], labels=labels)
    index = pos_label
    if pos_label is not None and labels is not None:
        positions = [i for i, label in enumerate(labels) if label == pos_label]
        if not positions:
            raise InputError("pos_label", f"{pos_label!r} is not one of the labels {list(labels)!r}")
        index = positions[0]
    return {"matrix": matrix}, matrix.shape[-1], index


_SWEEP_OPTIONS = {"grid": "--sweep", "param": "--sweep", "n_classes": "--sweep", "values": "--sweep", "params": "--param"}


def run(args, data: dict, params: dict, weights, zero_division: float, options: dict) -> int:
    """Sweep every ``--metric`` over the grid of ``args.sweep``; print a line per grid value.

    Text: a header, then the grid value and each metric's value, tab-separated. JSON:
    ``{"param": ..., "grid": [...], "values": {metric: [one value per grid entry]}}``.
    """
    from metricc.api import metric, product_grid, sweep
    from metricc.api.sweep import unsweepable

    name, values = parse_spec(args.sweep)
    reasons = [unsweepable(metric(m)) for m in args.metric if unsweepable(metric(m))]
    if reasons:  # before the labels are read
        raise InputError("--sweep", f"{reasons[0]}; run eval once per value with --param")
    try:
        inputs, n_classes, pos_label = _sweep_input(data)
        results, grid = {}, None
        for metric_id in args.metric:
            info = metric(metric_id)
            kinds = {p.name: p.kind for p in info.params}
            if name not in kinds:
                raise InputError("param", f"{info.id} has no parameter '{name}'")
            if grid is None:
                grid = product_grid(values, n_classes, flat=True) if kinds[name] == "class_vector" else values
            binary = info.per_class_counts and averaging.positive_class(args.average or info.default_average)
            if binary and pos_label is None and n_classes > 2:  # one class's value: name it on multi-class data
                raise InputError("--average", f"{info.id} with binary averaging is the value of one class; with "
                                              f"{n_classes} classes name it (--pos-label) or choose another average")
            index = 1 if pos_label is None else pos_label
            kwargs = {"average": args.average, "weights": weights, "pos_label": index} if info.per_class_counts else {}
            result = sweep(info.id, **inputs, param=name, grid=grid, params=params, zero_division=zero_division,
                           progress=not args.quiet, **kwargs)
            batch_axes = np.ndim(inputs["matrix"]) - 2 if "matrix" in inputs else np.ndim(inputs["counts"][0]) - 1
            results[metric_id] = [r.tolist() for r in np.moveaxis(result, batch_axes, 0)]  # grid axis first
    except InputError as error:
        raise InputError(_SWEEP_OPTIONS.get(error.argument) or options.get(error.argument, error.argument), error.message) from None
    rows = grid.tolist() if hasattr(grid, "tolist") else list(grid)
    print(render(SweepValues(name, rows, results), args.format).rstrip("\n"))
    return 0
