"""Could any confusion matrix produce these printed scores? (``metricc consistent``)

Given class totals (or the number of samples) and printed scores, decide whether at least
one integer confusion matrix gives every score within half a unit of its last printed digit.

How a score is read: a class-level score without ``:AVERAGE`` is, with two classes, the
positive class's value (class 1), as scikit-learn's ``average="binary"`` and mlscorecheck
read papers, and the answer says so (``assumptions``). With more classes it is ambiguous:
every averaging it has (macro, micro, weighted) is searched and the answer names the ones
that hold (``readings``). Names may be the catalog's or a peer's (:mod:`.consistent_names`);
a name of several meanings (``Se``) is searched as each (:mod:`.consistent_ambiguous`).

Methods, by the size of the search (each bound is a module constant):

- two classes: ``exhaustive`` -- every (TP, TN) of the totals, exactly (``EXHAUSTIVE_LIMIT`` cells);
  past that, every (TP, TN) that the scores of TP alone, of TN alone and of the trace allow,
  intersected value by value without the grid (:mod:`.consistent_decide`);
- more classes, few matrices: ``search`` -- every matrix with the totals (``SEARCH_LIMIT``);
- more classes, more matrices (class totals given, up to ``margins.MAX_SAMPLES`` samples and
  ``margins.MAX_CLASSES`` classes):
  ``margins`` -- exact, over each class's diagonal cell and column total, for scores that read
  nothing else (:mod:`.consistent_margins`), within a work bound;
- otherwise ``intervals`` -- sound necessary conditions on the trace (:mod:`.consistent_intervals`,
  up to ``TRACE_LIMIT`` samples): an inconsistency they find is real; when none fails the
  answer is ``not_refuted``, never ``consistent``;
- beyond that, ``range``: each score against its metric's range only (``not_refuted`` at best).

When the scores are inconsistent as stated, ``conflicts`` are the smallest sets of scores that
cannot hold together, and ``readings`` the readings under which they can
(:mod:`.consistent_readings`: another averaging, the other positive class, a near relative,
percent, truncated digits), each with the matrices it admits.

>>> result = consistent(["accuracy=0.842912", "balanced_accuracy=0.700056"], class_totals=[415, 107])
>>> result.consistent, result.status, result.method, result.matrices
(True, 'consistent', 'exhaustive', [[[391, 24], [58, 49]]])
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field

import numpy as np

from metricc.audit import consistent_ambiguous as ambiguity
from metricc.audit import consistent_decide as decider
from metricc.audit import consistent_grid as grid
from metricc.audit import consistent_margins as margins
from metricc.audit import consistent_readings as readings_search
from metricc.audit import consistent_space as space
from metricc.audit.claims import printed_value
from metricc.audit.consistent_names import AmbiguousAbbreviation, resolve_name
from metricc.core.errors import InputError
from metricc.api.evaluate import metric
from metricc.runtime.averaging import MODES, POSITIVE_CLASS, READINGS

__all__ = ["Score", "Consistency", "parse_score", "make_score", "consistent", "EXHAUSTIVE_LIMIT", "SEARCH_LIMIT",
           "TRACE_LIMIT", "MAX_SCORES", "EXACT_TOTAL_LIMIT"]

EXHAUSTIVE_LIMIT = 120_000_000  # two classes: a 10^4 x 10^4 (TP, TN) grid is searched exactly
SEARCH_LIMIT = 5_000_000  # more classes: matrices enumerated one by one
TRACE_LIMIT = 2_000_000  # intervals: conditions over every trace 0..n
EXACT_TOTAL_LIMIT = 2**53  # counts beyond float64's integers: only each score's range is checked
MAX_SCORES = 100
READINGS_BUDGET = {"masked": 2000, "range": 200, "other": 12}  # score sets the readings search decides
MAX_MATRICES = space.MAX_MATRICES


@dataclass(frozen=True)
class Score:
    """One printed score: ``f1:macro=0.494`` -> metric f1, average macro, 0.494 +- 0.0005;
    ``pos_label``: with binary averaging, the class read as positive (None: class 1)."""

    metric: str
    average: str | None
    printed: str
    value: float
    tolerance: float
    pos_label: int | None = None

    @property
    def label(self) -> str:
        text = self.metric + (f":{self.average}" if self.average else "")
        return text + (f"@{self.pos_label}" if self.pos_label not in (None, 1) else "")


@dataclass(frozen=True)
class Consistency:
    """The answer.

    - ``consistent``: True only when some matrix gives every score as stated (exact method);
    - ``status``: ``consistent``, ``inconsistent`` or ``not_refuted`` (only necessary
      conditions were checked and none fails: the set may or may not be consistent);
    - ``method``: ``exhaustive`` | ``search`` | ``intervals`` | ``range`` (see the module);
    - ``feasible_count``: matrices giving every score (None unless exact), ``matrices``: up to
      ten of them, rows = true class;
    - ``conflicts``: when inconsistent, the smallest sets of scores that cannot hold together;
    - ``unchecked``: scores the necessary conditions could not bound;
    - ``scores``: each score as read (``f1:binary``), ``assumptions``: how unqualified scores
      were read, in words;
    - ``readings``: when the stated set is inconsistent (or its averaging was not given), the
      readings that make it hold: dicts with ``reading`` (``"f1 is macro-averaged and
      specificity is of class 0"``), ``changes`` (kind, score, read_as), ``status``,
      ``feasible_count`` and ``matrices``;
    - ``notes``: bounds that limited the answer (sizes over a limit, a search budget spent).
    """

    consistent: bool
    method: str
    feasible_count: int | None
    matrices: list = field(default_factory=list)
    conflicts: list = field(default_factory=list)
    unchecked: list = field(default_factory=list)
    status: str = "consistent"
    scores: list = field(default_factory=list)
    assumptions: list = field(default_factory=list)
    readings: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)


def _parse_scores(texts) -> tuple[list[Score], dict[int, tuple[str, list[Score]]]]:
    """Scores of one set, and each name that stays ambiguous with the scores it may be. A
    header's abbreviation of several metrics (``SE``: sensitivity or selectivity) stands for one
    the set's other scores do not name (beside ``SP``: sensitivity); else each is a reading to
    try, as a symbol of several customary meanings is read: never by one table entry."""
    parsed: list = [t if isinstance(t, Score) else None for t in texts]
    pending = []
    for i, text in enumerate(texts):
        if parsed[i] is None:
            try:
                parsed[i] = parse_score(text)
            except AmbiguousAbbreviation:
                pending.append(i)
    taken = frozenset(s.metric for s in parsed if s is not None)
    names = {}
    for i in pending:
        try:
            parsed[i] = parse_score(texts[i], taken)
        except AmbiguousAbbreviation as ambiguous:  # each choice alone: the others taken
            names[i] = ambiguous.name, [s for s in (_meaning(texts[i], taken | set(ambiguous.choices) - {meant})
                                                    for meant in ambiguous.choices) if s is not None]
            if not names[i][1]:
                raise
            parsed[i] = names[i][1][0]
    return parsed, names


def _meaning(text: str, taken: frozenset) -> Score | None:
    try:
        return parse_score(text, taken)
    except InputError:
        return None


_PERCENT_UNIT = re.compile(r"\s*(\(%\)|\[%\]|%)\s*$")


def parse_score(text: str, taken: frozenset = frozenset()) -> Score:
    """``NAME[:AVERAGE][@CLASS]=PRINTED``; NAME a catalog id or alias or a peer's name (``sens``,
    ``F1 Macro``); ``@CLASS`` reads a binary score of that class (``specificity@0``)."""
    name, sep, printed = str(text).partition("=")
    if not sep or not name.strip() or not printed.strip():
        raise InputError("score", f"expected ID[:AVERAGE]=PRINTED such as f1:macro=0.494, got {text!r}")
    unit = _PERCENT_UNIT.search(name)
    if unit:  # a header's unit, "Se (%)": the printed value is a percentage
        name = name[:unit.start()]
        printed = printed if "%" in printed else printed.strip() + "%"
    name, at, positive = name.partition("@")
    metric_id, _, average = name.strip().partition(":")
    pos_label = None
    if at:
        if not positive.strip().isdigit() or len(positive.strip()) > 6:
            raise InputError("score", f"{text}: @CLASS is a class index such as @0, got {positive!r}")
        pos_label = int(positive)
    try:
        value, tolerance = printed_value(printed.strip())
    except ValueError as error:
        raise InputError("score", f"{text}: {error}") from None
    return make_score(metric_id, average or None, printed.strip(), value, tolerance, pos_label=pos_label, taken=taken)


def make_score(metric_id: str, average: str | None, printed: str, value: float, tolerance: float,
               pos_label: int | None = None, taken: frozenset = frozenset()) -> Score:
    """A checked :class:`Score`: one number per confusion matrix (no per-class or per-sample values).
    ``taken``: metrics the set's other scores name, which an abbreviation does not stand for."""
    if not (math.isfinite(value) and math.isfinite(tolerance)):
        raise InputError("score", f"{metric_id}={printed}: the printed value is not a finite number")
    resolved, implied = resolve_name(metric_id, usable=lambda m: m not in taken and not metric(m).needs_scores
                                     and not metric(m).per_instance)
    info = metric(resolved)
    # a peer's binary name (mlscorecheck's sens) is the positive class of a two-class paper: an
    # unqualified score, read as class 1's with two classes and searched over averagings with more
    average = average or (None if implied == POSITIVE_CLASS else implied)
    if pos_label is not None:
        if not info.per_class_counts or average not in (None, POSITIVE_CLASS):
            raise InputError("score", f"{metric_id}@{pos_label}: @CLASS names the positive class of a binary "
                                      "class-level score (e.g. specificity@0), not of an average")
        average = POSITIVE_CLASS
    if info.per_instance:
        raise InputError("score", f"{metric_id} averages over the samples of multi-label data, not a confusion matrix")
    if info.needs_scores:
        raise InputError("score", f"{metric_id} needs scores or labels, not a confusion matrix; "
                                  "give metrics of counts or matrices (e.g. accuracy, f1, mcc)")
    if average is not None and not info.per_class_counts:
        raise InputError("score", f"{metric_id} has no averaging; write it without ':{average}'")
    if average in MODES and not MODES[average].one_number:
        raise InputError("score", f"{metric_id}:{average} is not one number per matrix; use {', '.join(READINGS)}")
    if average is not None and average not in info.averages:
        raise InputError("score", f"{metric_id} does not support {average!r} averaging; one of {', '.join(info.averages)}")
    if info.per_class_counts and average is None and not set(info.averages) & set(READINGS):
        raise InputError("score", f"{metric_id} averages per {info.default_average} by default; give :micro, :macro, ...")
    return Score(info.id, average, printed, value, tolerance, pos_label)


# -- sizes -----------------------------------------------------------------------------------


def _totals(class_totals, samples, classes) -> tuple[list[int] | None, int, int]:
    if (class_totals is None) == (samples is None):
        raise InputError("class-totals", "give either the class totals (--class-totals) or the number of samples (--samples)")
    if class_totals is not None:
        totals = list(class_totals)
        if len(totals) < 2 or not all(isinstance(t, (int, np.integer)) and not isinstance(t, bool) and t >= 0 for t in totals):
            raise InputError("class-totals", f"expected two or more non-negative integers (samples per true class), got {class_totals!r}")
        if classes is not None and classes != len(totals):
            raise InputError("classes", f"{classes} classes but {len(totals)} class totals")
        if sum(totals) == 0:
            raise InputError("class-totals", "the totals add up to no samples")
        return [int(t) for t in totals], int(sum(totals)), len(totals)
    classes = 2 if classes is None else classes
    if not isinstance(samples, (int, np.integer)) or isinstance(samples, bool) or samples < 1:
        raise InputError("samples", f"expected a positive number of samples, got {samples!r}")
    if not isinstance(classes, (int, np.integer)) or isinstance(classes, bool) or classes < 2:
        raise InputError("classes", f"expected two or more classes, got {classes!r}")
    return None, int(samples), int(classes)


def _plan(totals, n, classes, progress: bool = False) -> decider.Plan:
    if n >= EXACT_TOTAL_LIMIT:
        return decider.Plan("range", totals, n, classes, note=f"{n} samples is over 2**53 (counts past float64's integers): "
                                                       "only each score's range was checked")
    if classes == 2 and totals is not None:
        size, batches = (totals[0] + 1) * (totals[1] + 1), lambda: grid.binary_batches(totals[0], totals[1])
        method, limit = "exhaustive", EXHAUSTIVE_LIMIT
    elif classes == 2:
        size = grid.binary_samples_size(n)
        batches = lambda: (b for p in range(n + 1) for b in grid.binary_batches(n - p, p))  # noqa: E731
        method, limit = "exhaustive", EXHAUSTIVE_LIMIT
    else:
        size = grid.matrix_search_size(totals, n, classes, limit=SEARCH_LIMIT)
        batches = lambda: grid.matrix_batches(totals, n, classes)  # noqa: E731
        method, limit = "search", SEARCH_LIMIT
    if size <= limit:
        masked = space.Space(batches, progress) if size <= space.MASK_LIMIT else None
        return decider.Plan(method, totals, n, classes, batches, masked, size)
    what = "(TP, TN) pairs" if classes == 2 else "matrices"
    over = f"more than {limit:,} {what} (the exact {method} bound)"
    if 2 < classes <= margins.MAX_CLASSES and totals is not None and n <= margins.MAX_SAMPLES:
        return decider.Plan("margins", totals, n, classes, size=size)
    if n <= TRACE_LIMIT:
        return decider.Plan("intervals", totals, n, classes, note=f"{over}: necessary conditions only (intervals)")
    return decider.Plan("range", totals, n, classes, note=f"{over} and {n:,} samples, over the interval bound "
                                                  f"{TRACE_LIMIT:,}: only each score's range was checked")


# -- readings --------------------------------------------------------------------------------


def _reading(changes, outcome: decider.Outcome, method: str) -> dict:
    return {"reading": readings_search.describe(changes),
            "changes": [{"kind": c.kind, "score": c.score, "read_as": getattr(c.replacement, "label", None)}
                        for c in changes],
            "status": outcome.status, "method": outcome.method or method, "feasible_count": outcome.count,
            "matrices": outcome.matrices}


def _maker(score: Score):
    def make(metric_id, average, pos_label):
        try:
            return make_score(metric_id, average, score.printed, score.value, score.tolerance, pos_label=pos_label)
        except InputError:
            return None
    return make


def _usable(meanings: list[Score], classes: int) -> list[Score]:
    """The meanings of an ambiguous name that can be evaluated on matrices of this size."""
    usable = []
    for meant in meanings:
        try:
            space.check_usable([meant], classes)
        except InputError:
            continue
        usable.append(meant)
    return usable


def _ambiguous_readings(scores, ambiguous, labels, plan, progress) -> tuple[list, decider.Outcome]:
    """Every reading combination of the ambiguous scores (averagings, meanings of a name):
    those that hold, and the outcome of the first (for its conflicts when none holds)."""
    found, first = [], None
    for read, changes in ambiguity.combinations(scores, ambiguous, labels):
        outcome = decider.decide(read, plan, progress)
        first = first or outcome
        if outcome.feasible:
            found.append(_reading(changes, outcome, plan.method))
    return found, first


def consistent(scores, *, class_totals=None, samples=None, classes=None, progress: bool = True,
               readings: bool = True) -> Consistency:
    """Decide whether some confusion matrix gives every printed score (``Score`` or text); a
    long search shows a progress bar on stderr when it is a terminal (``progress=False``: none).
    ``readings=False``: no search of other readings when the scores are inconsistent."""
    scores, names = _parse_scores(scores)
    if not scores:
        raise InputError("score", "give at least one score, e.g. --score accuracy=0.84")
    if len(scores) > MAX_SCORES:
        raise InputError("score", f"{len(scores)} scores: at most {MAX_SCORES} are checked together; split the set")
    totals, n, classes = _totals(class_totals, samples, classes)
    for score in scores:
        if score.pos_label is not None and score.pos_label >= classes:
            raise InputError("score", f"{score.label}: there is no class {score.pos_label} among {classes} classes")
    names = {i: (printed, _usable(meanings, classes) or meanings) for i, (printed, meanings) in names.items()}
    scores, assumptions, ambiguous = ambiguity.unqualified(scores, classes, names)
    space.check_usable(scores, classes)
    plan = _plan(totals, n, classes, progress)
    notes = [plan.note] if plan.note else []
    labels = [names[i][0] if i in names else s.metric if i in ambiguous else s.label for i, s in enumerate(scores)]
    found = []
    if ambiguous:
        found, outcome = _ambiguous_readings(scores, ambiguous, labels, plan, progress)
        if found:
            best = next((r for r in found if r["status"] == "consistent"), found[0])
            return Consistency(best["status"] == "consistent", best["method"], best["feasible_count"], best["matrices"],
                               [], outcome.unchecked, best["status"], labels, assumptions, found, notes)
    else:
        outcome = decider.decide(scores, plan, progress)
    method = outcome.method or plan.method
    notes = ([plan.note] if plan.note and method == plan.method else []) + outcome.notes
    if outcome.feasible:
        return Consistency(outcome.status == "consistent", method, outcome.count, outcome.matrices, [],
                           outcome.unchecked, outcome.status, labels, assumptions, [], notes)
    if readings:
        conflict_sets = [set(c) for c in outcome.indices]
        budget = READINGS_BUDGET["masked" if plan.space is not None else "range" if plan.method == "range" else "other"]
        decide = lambda changed: decider.decide(changed, plan, False, explain=False)  # noqa: E731
        makers = [_maker(s) for s in scores]
        changed_found, spent = readings_search.search_readings(scores, classes, conflict_sets, decide, makers, budget)
        found = [_reading(changes, result, plan.method) for changes, result in changed_found]
        found.sort(key=lambda r: r["status"] != "consistent")  # proved readings before merely unrefuted ones
        if spent:
            notes.append(f"the search of other readings stopped after {budget} score sets")
    return Consistency(False, method, outcome.count, [], outcome.conflicts, outcome.unchecked, "inconsistent",
                       labels, assumptions, found, notes)

