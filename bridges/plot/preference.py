"""The solution space of the preference-driven measure (Kozak et al. 2022, Figures 2-5 and 7).

For every preference vector kappa with entries from a value set, :func:`metricc.api.sweep`
gives the measure of a confusion matrix in one call. Two classes: a heatmap over
(kappa_1, kappa_2). Three: one heatmap over (kappa_1, kappa_2) per chosen kappa_3. More: the
histogram of all values (the paper's Figure 7). Macro precision (kappa = 1), macro recall
(kappa = 0) and Kozak's F1 of the macro averages (Eq. 23) are marked: as points where kappa
gives them, and as the level lines where the measure equals them.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from metricc.bridges.plot._figure import SEQUENTIAL, display_names, grid_shape, new_figure
from metricc.runtime import confusion
from metricc.core.errors import InputError
from metricc.api.evaluate import evaluate
from metricc.api.sweep import product_grid, sweep

__all__ = ["preference_space"]

MEASURE = "preference_driven"
REFERENCES = (("precision", "precision", "tab:red"), ("recall", "recall", "tab:orange"),
              ("F1", "f1_of_macro_averages", "white"))
DEFAULT_VALUES = tuple(np.linspace(0.0, 1.0, 11))  # the paper's step of 0.1


def _matrices(matrix, orientation) -> np.ndarray:
    m = confusion.check_matrix(confusion.orient(matrix, orientation))
    if m.ndim not in (2, 3):
        raise InputError("matrix", f"expected a confusion matrix (C, C) or a list of them (B, C, C), got shape {m.shape}")
    return m[None] if m.ndim == 2 else m


def _references(m: np.ndarray) -> dict[str, np.ndarray]:
    """Macro precision, macro recall and the F1 of both, per matrix ``(B,)``."""
    values = evaluate([metric for _, metric, _ in REFERENCES], matrix=m, average="macro")
    return {label: np.asarray(values[metric], dtype=float) for label, metric, _ in REFERENCES}


def _edges(axis: np.ndarray) -> np.ndarray:
    """Cell edges around sorted grid values (midpoints; the outer cells as wide as their neighbours)."""
    if axis.size == 1:
        return np.array([axis[0] - 0.05, axis[0] + 0.05])
    middle = (axis[:-1] + axis[1:]) / 2
    return np.r_[2 * axis[0] - middle[0], middle, 2 * axis[-1] - middle[-1]]


def _heatmap(ax, axis, surface, norm, references, corners, class_names):
    """One (kappa_1, kappa_2) panel; ``surface[i, j]`` is the value at (axis[i], axis[j]).
    ``corners``: which of precision and recall this panel holds the kappa vector of."""
    image = ax.pcolormesh(_edges(axis), _edges(axis), surface.T, cmap=SEQUENTIAL, norm=norm)
    low, high = np.nanmin(surface), np.nanmax(surface)
    for (label, _, colour), level in zip(REFERENCES, references):
        if axis.size > 1 and np.isfinite(level) and low < level < high:
            ax.contour(axis, axis, surface.T, levels=[level], colors=[colour], **_line_style(label))
    for label, point in (("precision", (1.0, 1.0)), ("recall", (0.0, 0.0))):
        if label in corners:
            value, colour = next((v, c) for (name, _, c), v in zip(REFERENCES, references) if name == label)
            ax.plot(*point, marker="o", markersize=9, markeredgecolor="black", color=colour, linestyle="none",
                    label=f"{label} = {value:.4f}", clip_on=False, zorder=3)
    ax.set_xlabel(f"κ₁ ({class_names[0]})")
    ax.set_ylabel(f"κ₂ ({class_names[1]})")
    ax.set_aspect("equal")
    return image


def _line_style(label: str) -> dict:
    """Dashed precision and recall lines; the F1 line white with a black edge, visible on any colour."""
    from matplotlib import patheffects

    if label == "F1":
        return {"linewidths": 1.6, "linestyles": "solid",
                "path_effects": [patheffects.withStroke(linewidth=3, foreground="black")]}
    return {"linewidths": 1.6, "linestyles": "dashed"}


def _key(figure) -> None:
    """One legend for every panel: what the dots and lines mean (the values are in the titles)."""
    from matplotlib import patheffects
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color="tab:red", linestyle="dashed", marker="o", markeredgecolor="black",
                      label="macro precision: κ = (1, …, 1), and its level line"),
               Line2D([], [], color="tab:orange", linestyle="dashed", marker="o", markeredgecolor="black",
                      label="macro recall: κ = (0, …, 0), and its level line"),
               Line2D([], [], color="white", linewidth=1.6, label="F1 of macro precision and recall (Eq. 23): level line",
                      path_effects=[patheffects.withStroke(linewidth=3, foreground="black")])]
    figure.legend(handles=handles, loc="outside lower center", ncols=1, fontsize=8, frameon=False)


def _values_text(references) -> str:
    precision, recall, f1 = references
    return f"precision {precision:.4f} · recall {recall:.4f} · F1 {f1:.4f}"


def preference_space(matrix, *, values=DEFAULT_VALUES, labels=None, names=None,
                     slices=None, orientation: str = "true-rows") -> Figure:
    """The preference-driven measure over the grid of preference vectors, for one confusion
    matrix ``(C, C)`` or several ``(B, C, C)`` (one panel, or row of panels, each).

    ``values``: the entries of kappa (default 0, 0.1, ..., 1: 11**C vectors). ``labels``
    names the classes, ``names`` the matrices. For three classes, ``slices`` are
    the kappa_3 values shown (default: first, middle and last of ``values``).
    """
    m = _matrices(matrix, orientation)
    batch, n_classes = m.shape[0], m.shape[-1]
    if n_classes < 2:
        raise InputError("matrix", "the preference-driven measure needs at least two classes")
    class_names = display_names(labels, n_classes, "labels", "class {}")
    titles = display_names(names, batch, "names", "matrix {}") if names is not None or batch > 1 else [""]
    axis = np.asarray(product_grid(values, 1, flat=True)[:, 0])
    if (np.diff(axis) <= 0).any() or axis[0] < 0 or axis[-1] > 1:
        raise InputError("values", f"expected increasing kappa values within [0, 1] without repeats, got "
                                   f"{np.round(axis, 6).tolist()}")
    grid = product_grid(axis, n_classes)
    surfaces = sweep(MEASURE, matrix=m, grid=grid, average="macro")  # (B, V, ..., V)
    references = _references(m)
    if n_classes == 2:
        return _two_classes(axis, surfaces, references, class_names, titles)
    if n_classes == 3:
        return _three_classes(axis, surfaces, references, class_names, titles, slices)
    return _histograms(surfaces, references, titles, axis.size)


def _norm(surfaces):
    from matplotlib.colors import Normalize

    low, high = np.nanmin(surfaces), np.nanmax(surfaces)
    return Normalize(low - 0.5, high + 0.5) if low == high else Normalize(low, high)


def _two_classes(axis, surfaces, references, class_names, titles) -> Figure:
    rows, columns = grid_shape(len(titles))
    figure = new_figure(3.8 * columns + 1.2, 3.6 * rows + 1.4)
    norm = _norm(surfaces)
    image = None
    for k, title in enumerate(titles):
        ax = figure.add_subplot(rows, columns, k + 1)
        refs = [references[label][k] for label, _, _ in REFERENCES]
        image = _heatmap(ax, axis, surfaces[k], norm, refs, ("precision", "recall"), class_names)
        ax.set_title(f"{title}\n{_values_text(refs)}" if title else _values_text(refs), fontsize=9)
    figure.colorbar(image, ax=figure.axes, shrink=0.8, label="preference-driven measure (macro)")
    figure.suptitle("Preference-driven measure over the preference vectors κ")
    _key(figure)
    return figure


def _slices(axis, slices) -> list[int]:
    if slices is None:
        return sorted({0, axis.size // 2, axis.size - 1})
    wanted = np.atleast_1d(np.asarray(slices, dtype=float))
    chosen = []
    for value in wanted.tolist():
        hits = np.flatnonzero(np.isclose(axis, value))
        if hits.size == 0:
            raise InputError("slices", f"κ₃ = {value:g} is not one of the grid values {np.round(axis, 6).tolist()}")
        chosen.append(int(hits[0]))
    return chosen


def _three_classes(axis, surfaces, references, class_names, titles, slices) -> Figure:
    """One row of (kappa_1, kappa_2) panels per matrix, one panel per chosen kappa_3."""
    chosen = _slices(axis, slices)
    figure = new_figure(3.4 * len(chosen) + 1.2, 3.4 * len(titles) + 1.6)
    norm = _norm(surfaces)
    rows = np.atleast_1d(figure.subfigures(len(titles), 1))
    for k, (title, row) in enumerate(zip(titles, rows)):
        refs = [references[label][k] for label, _, _ in REFERENCES]
        panels = np.atleast_1d(row.subplots(1, len(chosen)))
        for ax, index in zip(panels, chosen):
            corners = [name for name, at in (("precision", 1.0), ("recall", 0.0)) if np.isclose(axis[index], at)]
            image = _heatmap(ax, axis, surfaces[k][:, :, index], norm, refs, corners, class_names)
            ax.set_title(f"κ₃ ({class_names[2]}) = {axis[index]:.2g}", fontsize=9)
        row.suptitle(f"{title}: {_values_text(refs)}" if title else _values_text(refs), fontsize=10)
        row.colorbar(image, ax=panels.tolist(), shrink=0.8, label="preference-driven (macro)")
    figure.suptitle("Preference-driven measure over the preference vectors κ")
    _key(figure)
    return figure


def _histograms(surfaces, references, titles, size) -> Figure:
    rows, columns = grid_shape(len(titles))
    figure = new_figure(max(6.0, 4.0 * columns), 3.2 * rows + 0.6)
    for k, title in enumerate(titles):
        ax = figure.add_subplot(rows, columns, k + 1)
        ax.hist(surfaces[k].ravel(), bins=40, color="tab:blue", alpha=0.8)
        for (label, _, colour), value in zip(REFERENCES, (references[label][k] for label, _, _ in REFERENCES)):
            ax.axvline(value, color=colour if colour != "white" else "black", linestyle="dashed",
                       label=f"{label} = {value:.4f}")
        ax.set_xlabel("preference-driven measure (macro)")
        ax.set_ylabel(f"preference vectors (of {surfaces[k].size})")
        ax.set_title(title)
        ax.legend(fontsize=7)
    figure.suptitle(f"Preference-driven measure over {surfaces[0].size:,} preference vectors κ "
                    f"({size} values per class)")
    return figure
