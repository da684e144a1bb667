"""The one place where ``metricc review`` calls the other audit tools (an adapter).

``identify`` (which metric a formula defines), ``consistent`` (could any matrix give these
scores), identify's label reader and the convention search are called here only, through
their public entry points, and their answers are turned into the plain values the review's
checking stage reads. When those tools change their signatures or answers, this module is the
one to adjust.
"""

from __future__ import annotations

from dataclasses import dataclass

from metricc.core.errors import InputError

__all__ = ["FormulaAnswer", "ScoresAnswer", "identify_formula", "label_names", "scores_consistent"]


@dataclass(frozen=True)
class FormulaAnswer:
    """What identify said: ``matches`` as ``metric [average]`` strings, whether the
    label agrees (None: no label it knows), and the nearest metrics' differences."""

    parsed: str
    matches: tuple[str, ...]
    label_agrees: bool | None
    label_names: str | None
    nearest: tuple[str, ...]
    error: str | None = None
    forced: bool = True  # False: the matches hold only under a reading of a letter (said in each match)
    inferred: tuple[str, ...] = ()  # what identify read the paper's letters as, and why
    contradiction: str | None = None  # the forms of a chain L = A = B that are not equal (identify_chain)


@dataclass(frozen=True)
class ScoresAnswer:
    consistent: bool
    method: str
    matrices: tuple
    conflicts: tuple
    feasible_count: int | None
    unchecked: tuple = ()
    status: str = "consistent"  # consistent | inconsistent | not_refuted (necessary conditions only)
    readings: tuple = ()  # when inconsistent as stated: (reading in words, status, matrices) that hold


def _variant(metric: str, average: str | None) -> str:
    return f"{metric} [{average}]" if average else metric


def label_names(label: str) -> tuple[str | None, str | None]:
    """(metric id, averaging) that identify reads in a printed label such as ``p_w``."""
    from metricc.audit.notation import label_metric

    return label_metric(label)


def identify_formula(formula: str) -> FormulaAnswer:
    """identify() on one displayed equation; an unreadable one is an answer with ``error``."""
    from metricc.audit.identify import identify

    try:
        found = identify(formula)
    except InputError as error:
        return FormulaAnswer("", (), None, None, (), error.message)
    except (RecursionError, ValueError, TypeError, ArithmeticError) as error:  # the parser's own limits
        return FormulaAnswer("", (), None, None, (), f"identify could not read it ({type(error).__name__})")
    metric, mode = found.label_names
    return FormulaAnswer(found.parsed, tuple(_match_text(m) for m in found.matches), found.label_agrees,
                         _variant(metric, mode) if metric else None,
                         tuple(f"{_variant(n.metric, n.average)}: {n.differs}" for n in found.nearest),
                         forced=found.forced, inferred=tuple(found.inferred), contradiction=found.contradiction)


def _match_text(match) -> str:
    """``metric [average]``, then the parameter values and the letters' reading it needs."""
    text = _variant(match.metric, match.average)
    if match.params:
        text += " with " + ", ".join(f"{name} = {value}" for name, value in match.params)
    if match.reading:
        text += " (if " + "; ".join(match.reading) + ")"
    return text


def scores_consistent(scores: list[str], class_totals=None, samples=None, classes=None) -> ScoresAnswer:
    """consistent() on ``ID[:AVERAGE]=PRINTED`` scores; InputError for scores it refuses."""
    from metricc.audit.consistent import consistent

    answer = consistent(scores, class_totals=class_totals, samples=samples, classes=classes, progress=False)
    readings = tuple((r["reading"], r["status"], tuple(r["matrices"][:3])) for r in answer.readings)
    return ScoresAnswer(answer.consistent, answer.method, tuple(answer.matrices[:3]), tuple(tuple(c) for c in answer.conflicts),
                        answer.feasible_count, tuple(answer.unchecked), answer.status, readings)
