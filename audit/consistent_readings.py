"""Which reading of the printed scores is consistent, when the scores as stated are not?

Papers leave conventions implicit. For a score set that no matrix gives as stated, this
search changes how the scores are read, the simplest changes first, and keeps every reading
under which some matrix gives every score:

- ``average``: another averaging of a class-level score (binary, macro, micro, weighted);
- ``class``: the other class as the positive one (two classes), for one score or for all;
- ``metric``: a near relative printed under the score's name (the convention search's
  :data:`~metricc.audit.conventions.RELATIVES`, and balanced accuracy printed as the
  adjusted one, Youden's J);
- ``scale``: a fraction printed as a percent without the sign, or back;
- ``digits``: the printed digits truncated, not rounded (for one score or for all).

Single changes are tried first, then pairs of changes; a change must touch every smallest
conflict set of the stated search (else it cannot help), and a pair is tried only when
neither half works alone. The caller's ``decide`` answers each candidate score set.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

from metricc.audit.conventions import RELATIVES
from metricc.api.evaluate import metric
from metricc.runtime.averaging import MODES, POSITIVE_CLASS, READINGS

__all__ = ["Change", "score_changes", "global_changes", "search_readings", "describe"]

# Relatives this search adds to the convention search's: balanced accuracy printed as the
# adjusted one (Youden's J of two classes; scikit-learn's adjusted=True), F1 vs the G-measure.
EXTRA_RELATIVES = (("balanced_accuracy", "youden_j"), ("f1", "g_measure"))
MAX_READINGS = 5


@dataclass(frozen=True)
class Change:
    """One change of reading: ``kind``, the score it applies to (``None``: all it applies to)
    and a phrase for the reviewer (``"F1 is macro-averaged"``)."""

    kind: str
    score: int | None
    text: str
    replacement: object = None  # the changed Score (one score); None for a change of all


def _relatives(metric_id: str) -> list[str]:
    related = {m for group in (*RELATIVES, *EXTRA_RELATIVES) if metric_id in group for m in group}
    return sorted(related - {metric_id})


def _truncated(score):
    """The score read as truncated: the true value lies between the printed one and the next
    printed digit away from zero."""
    if score.tolerance < 1e-6 or score.value == 0:
        return None
    shift = score.tolerance if score.value > 0 else -score.tolerance
    return replace(score, value=score.value + shift)


def _percent(score):
    info = metric(score.metric)
    high = info.range[1] if info.range else None
    if score.printed.endswith("%"):
        return replace(score, value=score.value * 100, tolerance=score.tolerance * 100), "is a fraction printed with a percent sign"
    if high is not None and high <= 1 and abs(score.value) > 1:
        return replace(score, value=score.value / 100, tolerance=score.tolerance / 100), "is printed in percent"
    return None


def _name(score) -> str:
    return score.label


def score_changes(score, index: int, classes: int, make) -> list[Change]:
    """Every single change of one score's reading. ``make(metric, average, pos_label)``
    builds a checked score with this one's printed value, or None where it does not apply."""
    info = metric(score.metric)
    found = []
    if info.per_class_counts:
        of_one_class = score.average == POSITIVE_CLASS
        current = (score.average, (1 if score.pos_label is None else score.pos_label) if of_one_class else None)
        for average in READINGS:
            if average not in info.averages or (MODES[average].positive_class and classes != 2):
                continue
            for positive in ((0, 1) if MODES[average].positive_class else (None,)):
                changed = None if (average, positive) == current else make(score.metric, average, positive)
                if changed is None:
                    continue
                if average == score.average == POSITIVE_CLASS:
                    found.append(Change("class", index, f"{info.id} is of class {positive}", changed))
                elif average == POSITIVE_CLASS:
                    found.append(Change("average", index, f"{info.id} is of class {positive} (binary)", changed))
                else:
                    found.append(Change("average", index, f"{info.id} is {average}-averaged", changed))
    for relative in _relatives(score.metric):
        other = metric(relative)
        average = score.average if other.per_class_counts and score.average in other.averages else None
        if other.per_class_counts and average is None:
            average = POSITIVE_CLASS if classes == 2 else other.default_average
        changed = make(relative, average, score.pos_label if average == POSITIVE_CLASS else None)
        if changed is not None:
            found.append(Change("metric", index, f"the printed {_name(score)} is {changed.label}", changed))
    scaled = _percent(score)
    if scaled:
        found.append(Change("scale", index, f"{_name(score)} {scaled[1]}", scaled[0]))
    truncated = _truncated(score)
    if truncated:
        found.append(Change("digits", index, f"{_name(score)}'s digits are truncated, not rounded", truncated))
    return found


def global_changes(scores, classes: int) -> list[tuple[Change, list]]:
    """Changes of every score at once, each with the changed score list."""
    found = []
    if classes == 2 and sum(s.average == POSITIVE_CLASS for s in scores) > 1:
        flipped = [replace(s, pos_label=0 if (s.pos_label if s.pos_label is not None else 1) == 1 else 1)
                   if s.average == POSITIVE_CLASS else s for s in scores]
        found.append((Change("class", None, "every class-level score is of class 0, the other class"), flipped))
    truncated = [_truncated(s) or s for s in scores]
    if sum(t is not s for t, s in zip(truncated, scores)) > 1:
        found.append((Change("digits", None, "every score's digits are truncated, not rounded"), truncated))
    scaled = [(_percent(s) or (s,))[0] for s in scores]
    if sum(t is not s for t, s in zip(scaled, scores)) > 1:
        found.append((Change("scale", None, "every score is printed in percent"), scaled))
    return found


def _hits(indices: set[int], conflict_sets: list[set[int]]) -> bool:
    return all(indices & c for c in conflict_sets)


def search_readings(scores, classes: int, conflict_sets: list[set[int]], decide, makers, budget: int) -> tuple[list, bool]:
    """Readings under which ``decide(scores)`` finds a matrix: [(changes, outcome)], simplest
    first, at most ``MAX_READINGS``; and whether ``budget`` decisions ran out first. ``makers``:
    per score, ``make(metric, average, pos_label)`` (see :func:`score_changes`)."""
    per_score = [score_changes(s, i, classes, makers[i]) for i, s in enumerate(scores)]
    tries = 0
    found = []

    def attempt(changes, changed_scores) -> bool:
        nonlocal tries
        tries += 1
        outcome = decide(changed_scores)
        if outcome.feasible:
            found.append((changes, outcome))
        return outcome.feasible

    for change, changed in global_changes(scores, classes):
        if tries >= budget:
            return found, True
        attempt([change], changed)
    singles = [c for i, changes in enumerate(per_score) if _hits({i}, conflict_sets) for c in changes]
    for change in singles:
        if tries >= budget or len(found) >= MAX_READINGS:
            return found[:MAX_READINGS], tries >= budget
        attempt([change], _apply(scores, [change]))
    if found:
        return found[:MAX_READINGS], False
    everything = [c for changes in per_score for c in changes]
    for first, second in itertools.combinations(everything, 2):
        if first.score == second.score or not _hits({first.score, second.score}, conflict_sets):
            continue
        if tries >= budget or len(found) >= MAX_READINGS:
            return found[:MAX_READINGS], tries >= budget
        attempt([first, second], _apply(scores, [first, second]))
    return found[:MAX_READINGS], False


def _apply(scores, changes: list[Change]) -> list:
    changed = list(scores)
    for change in changes:
        changed[change.score] = change.replacement
    return changed


def describe(changes: list[Change]) -> str:
    """``F1 is macro-averaged and specificity is of class 0``."""
    return " and ".join(c.text for c in changes)
