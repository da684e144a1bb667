"""What every plot shares: a fresh Agg figure (never pyplot's global state), class and
classifier names, and the colour map.

Figures are built as :class:`matplotlib.figure.Figure` objects with their own Agg canvas, so
two calls never draw into one figure and nothing depends on the interactive backend.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from metricc.core.errors import InputError

__all__ = ["SEQUENTIAL", "display_names", "grid_shape", "new_figure", "plain", "save"]

SEQUENTIAL = "viridis"  # perceptually uniform, readable in grey and by colour-blind readers
FORMATS = ("png", "svg")


def new_figure(width: float, height: float) -> Figure:
    """A figure of ``width`` x ``height`` inches on its own Agg canvas."""
    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def plain(value) -> str:
    """A label or name as literal text: matplotlib reads text between two ``$`` as math, and a
    label such as ``$x^{$`` would make it fail when the figure is drawn, so ``$`` is escaped."""
    return str(value).replace("$", r"\$")


def display_names(given, count: int, argument: str, default: str) -> list[str]:
    """``count`` display names: ``given`` (one per item, as literal text), else ``default`` numbered."""
    if given is None:
        return [default.format(k) for k in range(count)]
    if isinstance(given, (str, bytes)):
        raise InputError(argument, f"expected a list of {count} names, got the single text {given!r}")
    listed = [plain(name) for name in np.asarray(given, dtype=object).ravel().tolist()]
    if len(listed) != count:
        raise InputError(argument, f"expected {count} names (one per {default.split()[0]}), got {len(listed)}")
    return listed


def grid_shape(panels: int) -> tuple[int, int]:
    """Rows and columns for ``panels`` small multiples, at most three abreast."""
    columns = min(panels, 3)
    return math.ceil(panels / columns), columns


def save(figure: Figure, path: str, argument: str = "path") -> None:
    """Write ``figure`` as PNG or SVG, chosen by the file name's suffix."""
    suffix = str(path).rsplit(".", 1)[-1].lower() if "." in str(path) else ""
    if suffix not in FORMATS:
        raise InputError(argument, f"{path!r}: name the file .png or .svg (the format follows the suffix)")
    try:
        figure.savefig(path, format=suffix, dpi=150)
    except OSError as error:
        raise InputError(argument, f"cannot write {path}: {error.strerror or error}") from None
