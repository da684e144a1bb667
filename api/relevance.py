"""Relevance of classes, estimated from what the user knows (Branco et al. 2017, Section 4.2).

The relevance-based metrics (``relevance_recall``, ``relevance_precision``,
``relevance_f_beta``, ``relevance_av_f_beta``, ``relevance_cba``) weight each class by a
relevance phi in [0, 1]. Where the user cannot give phi, two estimators derive it:

- **PREV** (Eq. 9), no preference known: phi inversely proportional to the class
  prevalence, ``(1 / t_i) / sum_j (1 / t_j)``;
- **PO / TO** (Eq. 10), a partial or total order of the classes by importance: the average
  rank of the US-model (Brueggemann et al. 2004), ``Rank(x) = |below(x)| + 1 + |U(x)| / 2``
  with ``below(x)`` the classes less relevant than x (transitively) and ``U(x)`` those
  incomparable with x, divided by the largest rank. A total order gives equidistant values
  ``1/C, 2/C, ..., 1``.

>>> relevance_from_order("c3 < c1, c3 < c2", ["c1", "c2", "c3"]).tolist()
[1.0, 1.0, 0.4]
>>> relevance_from_prevalence([5, 10, 300]).round(2).tolist()
[0.66, 0.33, 0.01]
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from metricc.core.errors import InputError

__all__ = ["relevance_from_prevalence", "relevance_from_order", "average_ranks", "order_pairs", "ClassNames"]

_RELATION = re.compile(r"\s*([<>])\s*")


def relevance_from_prevalence(support, *, argument: str = "support") -> np.ndarray:
    """PREV (Eq. 9): phi_i = (1 / t_i) / sum_j (1 / t_j) from true-class totals ``(..., C)``.

    A class without true examples has no prevalence to invert: that is an input error, not
    an infinite relevance.
    """
    try:
        t = np.asarray(support, dtype=float)
    except (TypeError, ValueError):
        raise InputError(argument, "expected one true-class total per class (numbers)") from None
    if t.ndim == 0 or t.shape[-1] == 0:
        raise InputError(argument, "expected one true-class total per class")
    if not np.all(np.isfinite(t)) or np.any(t < 0):
        raise InputError(argument, "true-class totals must be finite and non-negative")
    empty = np.flatnonzero(np.any(t == 0, axis=tuple(range(t.ndim - 1))))
    if empty.size:
        raise InputError(argument, f"class {int(empty[0])} has no true examples: its prevalence-based relevance 1/t is undefined")
    inverse = 1.0 / t
    return inverse / np.sum(inverse, axis=-1, keepdims=True)


class ClassNames:
    """Class indices by label and by label text (``index``: matched as given, or as text), built
    once per call: a lookup per name, not a scan of the labels."""

    def __init__(self, labels: Sequence) -> None:
        self.labels = labels
        self.by_label: dict = {}
        self.by_text: dict[str, int] = {}
        for index, label in enumerate(labels):
            try:
                self.by_label.setdefault(label, index)
            except TypeError:  # unhashable: matched by its text only
                pass
            self.by_text.setdefault(str(label), index)

    def index(self, name, argument: str) -> int:
        try:
            exact = self.by_label.get(name)
        except TypeError:
            exact = None
        found = [i for i in (exact, self.by_text.get(str(name))) if i is not None]
        if found:
            return min(found)  # the first class matching either way, as a scan in class order finds
        shown = ", ".join(str(label) for label in self.labels)
        raise InputError(argument, f"unknown class {name!r}; the classes are {shown}")


def order_pairs(order, labels: Sequence, *, argument: str = "order") -> list[tuple[int, int]]:
    """``(less, more)`` class-index pairs of an order.

    ``order`` is text, relations separated by commas, semicolons or new lines, each a chain
    like ``"c4 < c3 < c2"`` (``>`` reads the other way), or a sequence of ``(less, more)``
    label pairs. Class names are matched against ``labels`` (also as text, so ``"0"`` names
    the label 0).
    """
    pairs = []
    classes = ClassNames(labels)
    if isinstance(order, str):
        items = [item.strip() for item in re.split(r"[,;\n]", order) if item.strip()]
        if not items:
            raise InputError(argument, "empty order: write relations like 'c3 < c1, c3 < c2'")
        for item in items:
            tokens = _RELATION.split(item)
            names, operators = tokens[0::2], tokens[1::2]
            if not operators or any(not name.strip() for name in names):
                raise InputError(argument, f"{item!r} is not a relation: write e.g. 'c3 < c1' or 'c3 < c2 < c1'")
            for low, operator, high in zip(names, operators, names[1:]):
                low, high = (low, high) if operator == "<" else (high, low)
                pairs.append((classes.index(low.strip(), argument), classes.index(high.strip(), argument)))
        return pairs
    try:
        if any(isinstance(pair, str) for pair in order):  # "ab" would silently read as ("a", "b")
            raise TypeError
        relations = [tuple(pair) for pair in order]
    except TypeError:
        raise InputError(argument, "expected text like 'c3 < c1' or a list of (less, more) pairs") from None
    for pair in relations:
        if len(pair) != 2:
            raise InputError(argument, f"expected (less, more) pairs, got {pair!r}")
        pairs.append((classes.index(pair[0], argument), classes.index(pair[1], argument)))
    if not pairs:
        raise InputError(argument, "empty order: give at least one (less, more) pair")
    return pairs


def relevance_from_order(order, labels, *, argument: str = "order") -> np.ndarray:
    """PO / TO (Eq. 10): phi_i = Rank(i) / max_j Rank(j) with the US-model's average rank.

    ``labels`` are the class labels in class order, or the number of classes (the classes
    are then named by their indices 0..C-1). A cyclic order is an input error.

    >>> relevance_from_order("c4 < c3 < c2 < c1", ["c1", "c2", "c3", "c4"]).tolist()
    [1.0, 0.75, 0.5, 0.25]
    """
    rank = average_ranks(order, labels, argument=argument)
    return rank / np.max(rank)


def average_ranks(order, labels, *, argument: str = "order") -> np.ndarray:
    """The US-model's average rank of each class: ``|below| + 1 + |incomparable| / 2``.

    The mean of the lowest rank a class can take in a linear extension of the order
    (``|below| + 1``) and the highest (``|below| + 1 + |incomparable|``); rank 1 is the
    least relevant. Branco et al.'s Figure 1: E with 2 classes below, 3 incomparable: 4.5.

    >>> float(average_ranks("A < E, C < E, E < D", list("ABCDEFG"))[4])
    4.5
    """
    if isinstance(labels, (int, np.integer)) and not isinstance(labels, bool):
        labels = list(range(int(labels)))
    labels = list(labels)
    n_classes = len(labels)
    if n_classes == 0:
        raise InputError(argument, "need at least one class")
    pairs = order_pairs(order, labels, argument=argument)
    ordered = _topological(n_classes, pairs)
    if len(ordered) < n_classes:
        cyclic = _on_cycles(n_classes, pairs, set(range(n_classes)) - set(ordered))
        names = ", ".join(str(labels[k]) for k in cyclic)
        raise InputError(argument, f"the order is cyclic: it puts {names} below themselves")
    # Reachability as Python-integer bit sets along the topological order: linear in the
    # relations, where a transitive closure of the C x C matrix is cubic (3,200 classes: 24 s).
    higher = [[] for _ in range(n_classes)]
    lower = [[] for _ in range(n_classes)]
    for low, high in pairs:
        higher[low].append(high)
        lower[high].append(low)
    below = [0] * n_classes
    for k in ordered:
        for low in lower[k]:
            below[k] |= below[low] | (1 << low)
    above = [0] * n_classes
    for k in reversed(ordered):
        for high in higher[k]:
            above[k] |= above[high] | (1 << high)
    below_count = np.array([b.bit_count() for b in below], dtype=float)
    incomparable = n_classes - 1 - below_count - np.array([a.bit_count() for a in above], dtype=float)
    below = below_count
    return below + 1 + incomparable / 2


def _topological(n_classes: int, pairs: list[tuple[int, int]]) -> list[int]:
    """Kahn's order of the classes, least relevant first; shorter than C when there is a cycle."""
    indegree = [0] * n_classes
    higher = [[] for _ in range(n_classes)]
    for low, high in pairs:
        higher[low].append(high)
        indegree[high] += 1
    ready = [k for k in range(n_classes) if indegree[k] == 0]
    ordered = []
    while ready:
        k = ready.pop()
        ordered.append(k)
        for high in higher[k]:
            indegree[high] -= 1
            if indegree[high] == 0:
                ready.append(high)
    return ordered


def _on_cycles(n_classes: int, pairs: list[tuple[int, int]], left: set[int]) -> list[int]:
    """The classes an order puts below themselves, among those a topological order left."""
    index = {k: i for i, k in enumerate(sorted(left))}
    less = np.zeros((len(index), len(index)), dtype=bool)
    for low, high in pairs:
        if low in index and high in index:
            less[index[low], index[high]] = True
    for k in range(len(index)):  # transitive closure (Warshall), of the classes left only
        less |= less[:, k : k + 1] & less[k : k + 1, :]
    return [k for k, i in sorted(index.items()) if less[i, i]]
