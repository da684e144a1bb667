"""The readings of printed scores that do not say all they mean, for ``metricc consistent``.

A class-level score printed without its averaging is, with two classes, the positive class's
value (class 1), as scikit-learn's ``average="binary"`` and mlscorecheck read papers. With
more classes it is ambiguous, and each averaging the table offers as a reading
(:data:`~metricc.runtime.averaging.READINGS`, macro first) is tried. A printed name of several
customary meanings (``Se``: sensitivity or selectivity) is ambiguous too, and each meaning is
tried, read as above: the caller decides every combination and keeps those that hold.

>>> from metricc.audit.consistent import parse_score
>>> read, assumptions, ambiguous = unqualified([parse_score("f1=0.5")], 3, {})
>>> [score.label for _, _, score in ambiguous[0]]
['f1:macro', 'f1:micro', 'f1:weighted']
"""

from __future__ import annotations

import itertools
from dataclasses import replace

from metricc.api.evaluate import metric
from metricc.audit.consistent_readings import Change
from metricc.core.errors import InputError
from metricc.runtime.averaging import MODES, POSITIVE_CLASS, READINGS

__all__ = ["MAX_AMBIGUOUS_READINGS", "combinations", "unqualified"]

MAX_AMBIGUOUS_READINGS = 81  # reading combinations of the ambiguous scores of one set
# The averagings of an unqualified score with more than two classes, in the table's order of readings (macro first).
AVERAGINGS = tuple(name for name in READINGS if not MODES[name].positive_class)


def _choices(candidate, classes: int, printed: str | None, positive: list) -> list[tuple[str, str, object]]:
    """(kind, phrase, read score) of each reading of one meaning of a score."""
    info = metric(candidate.metric)
    meaning = f"the printed {printed} is {info.id}" if printed else None
    if not info.per_class_counts or candidate.average is not None:
        return [("metric", meaning, candidate)]
    if classes == 2 and POSITIVE_CLASS in info.averages:
        positive.append(info.id)
        return [("metric", meaning, replace(candidate, average=POSITIVE_CLASS))]
    return [("metric" if printed else "average", f"{meaning or info.id}, {average}-averaged" if printed else
             f"{info.id} is {average}-averaged", replace(candidate, average=average))
            for average in AVERAGINGS if average in info.averages]


def unqualified(scores: list, classes: int, names: dict) -> tuple[list, list[str], dict[int, list]]:
    """Each score as first read, the assumptions in words, and for each ambiguous one its
    readings ``[(kind, phrase, score)]``. ``names``: index -> (name as printed, the scores it
    may be) for a name of several meanings."""
    read, assumptions, ambiguous, positive = [], [], {}, []
    for i, score in enumerate(scores):
        printed, meanings = names.get(i, (None, [score]))
        choices = [c for meant in meanings for c in _choices(meant, classes, printed, positive)]
        read.append(choices[0][2])
        if len(choices) == 1:
            continue
        ambiguous[i] = choices
        if printed:
            assumptions.append(f"{printed} names several metrics: searched as "
                               f"{', '.join(s.label for _, _, s in choices)}")
        else:
            assumptions.append(f"{score.metric} (no averaging given, {classes} classes) is ambiguous: "
                               f"searched as {', '.join(s.average for _, _, s in choices)}")
    if positive:
        listed = ", ".join(dict.fromkeys(positive))
        assumptions.insert(0, f"{listed} (no averaging given): the value of class 1, the positive class, as "
                              f"scikit-learn's average='binary' and mlscorecheck read papers; write "
                              f"{positive[0]}:macro or {positive[0]}@0 for another reading")
    return read, assumptions, ambiguous


def combinations(scores: list, ambiguous: dict[int, list], labels: list[str]):
    """Every combination of the ambiguous scores' readings: (scores so read, their changes)."""
    combos = list(itertools.product(*ambiguous.values()))
    if len(combos) > MAX_AMBIGUOUS_READINGS:
        listed = ", ".join(f"{labels[i]} ({'/'.join(s.label if kind == 'metric' else s.average for kind, _, s in c)})"
                           for i, c in ambiguous.items())
        raise InputError("score", f"{len(combos)} reading combinations of unqualified scores: {listed}; "
                                  "give each its averaging and metric, e.g. f1:macro=0.49")
    for combo in combos:
        read, changes = list(scores), []
        for i, (kind, phrase, score) in zip(ambiguous, combo):
            read[i] = score
            changes.append(Change(kind, i, phrase, score))
        yield read, changes
