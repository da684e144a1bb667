"""The exact multi-class method of ``metricc consistent`` (compiler/audit/consistent_margins.py).

Brute force: the feasibility condition of the off-diagonal part (r_k + s_k <= R) against every
matrix of tiny totals; the margins search against the full matrix enumeration (``search``) on
generated 3-4 class sets, clean and planted; on totals under 30 per class, every consistent
answer's witness recomputed, every clean set never called inconsistent, and every planted
set that another method refutes found.
"""

from __future__ import annotations

import importlib
import itertools
import math

import numpy as np
import pytest

import metricc as mc
from metricc.audit import consistent_grid as grid
from metricc.audit import consistent_margins as margins
from metricc.audit.consistent import consistent, parse_score

consistent_module = importlib.import_module("metricc.audit.consistent")
POOL = ["accuracy", "balanced_accuracy", "f1:macro", "precision:weighted", "recall:micro", "f1:weighted",
        "precision:macro", "error_rate", "specificity:macro", "mcc", "cohen_kappa", "npv:macro", "jaccard:weighted"]


def _printed(matrix, names, rng) -> list[str]:
    scores = []
    for name in names:
        metric_id, _, average = str(name).partition(":")
        value = float(mc.evaluate(metric_id, matrix=matrix, **({"average": average} if average else {}))[metric_id])
        if not math.isnan(value):
            scores.append(f"{name}={value:.{int(rng.integers(2, 5))}f}")
    return scores


def _gives(matrix, scores) -> bool:
    for score in map(parse_score, scores):
        kwargs = {"average": score.average} if score.average else {}
        value = float(mc.evaluate(score.metric, matrix=matrix, **kwargs)[score.metric])
        if not abs(value - score.value) <= score.tolerance + 1e-9:
            return False
    return True


def test_the_off_diagonal_condition_and_the_witness_against_every_matrix_of_tiny_totals():
    for totals in ([2, 1, 2], [3, 0, 2], [1, 2, 2, 1]):
        classes, n = len(totals), sum(totals)
        seen = set()
        for batch in grid.matrix_batches(totals, n, classes):
            m = batch.matrix
            for diagonal, columns in zip(np.diagonal(m, axis1=1, axis2=2).tolist(), m.sum(axis=1).tolist()):
                seen.add((tuple(diagonal), tuple(columns)))
        for diagonal in itertools.product(*(range(t + 1) for t in totals)):
            for columns in itertools.product(range(n + 1), repeat=classes):
                if sum(columns) != n or any(c < d for c, d in zip(columns, diagonal)):
                    continue
                rows = [t - d for t, d in zip(totals, diagonal)]
                off = [c - d for c, d in zip(columns, diagonal)]
                feasible = all(r + s <= sum(rows) for r, s in zip(rows, off))
                assert feasible == ((diagonal, columns) in seen), (totals, diagonal, columns)
                if feasible:
                    w = np.array(margins.witness(diagonal, columns, totals))
                    assert (w >= 0).all() and w.sum(axis=1).tolist() == totals and w.sum(axis=0).tolist() == list(columns)
                    assert np.diagonal(w).tolist() == list(diagonal)


def test_margins_agrees_with_the_full_enumeration(monkeypatch):
    rng = np.random.default_rng(5)
    decided = set()
    for case in range(30):
        classes = int(rng.integers(3, 5))
        totals = [int(t) for t in rng.integers(1, 5 if classes == 3 else 3, size=classes)]
        matrix = np.stack([rng.multinomial(t, np.ones(classes) / classes) for t in totals]).tolist()
        other = np.stack([rng.multinomial(t, np.ones(classes) / classes) for t in totals]).tolist()
        names = [str(n) for n in rng.choice(POOL, size=3, replace=False)]
        scores = _printed(matrix, names, rng)
        if case % 2:
            scores = _printed(other, names[:1], rng) + scores[1:]
        if len(scores) < 2:
            continue
        monkeypatch.setattr(consistent_module, "SEARCH_LIMIT", 5_000_000)
        truth = consistent(scores, class_totals=totals, readings=False)
        monkeypatch.setattr(consistent_module, "SEARCH_LIMIT", 0)
        ours = consistent(scores, class_totals=totals, readings=False)
        assert (truth.method, ours.method) == ("search", "margins")
        assert ours.status == truth.status, (totals, scores)
        if ours.status == "inconsistent":
            assert ours.conflicts == truth.conflicts, (totals, scores)
        for witness in ours.matrices:
            assert _gives(witness, scores)
        decided.add(ours.status)
    assert decided == {"consistent", "inconsistent"}


def test_totals_under_30_clean_sets_hold_and_planted_ones_are_found():
    """Totals 1-29, 3-4 classes: every clean set consistent (a real witness) or, past the work
    bound, not refuted; every planted set that the interval conditions alone already refute is
    refuted, and the margins method refutes planted sets they cannot."""
    rng = np.random.default_rng(30)
    beyond_intervals = 0
    for case in range(8):
        classes = 3 + case % 2
        totals = [int(t) for t in rng.integers(1, 30, size=classes)]
        matrix = np.stack([rng.multinomial(t, rng.dirichlet(np.ones(classes))) for t in totals]).tolist()
        other = np.stack([rng.multinomial(t, rng.dirichlet(np.ones(classes))) for t in totals]).tolist()
        names = [str(n) for n in rng.choice(POOL[:10], size=3, replace=False)]
        clean = _printed(matrix, names, rng)
        result = consistent(clean, class_totals=totals, readings=False)
        assert result.status in ("consistent", "not_refuted"), (totals, clean)
        assert all(_gives(w, clean) for w in result.matrices)
        planted = _printed(other, names[:1], rng) + clean[1:]
        result = consistent(planted, class_totals=totals, readings=False)
        assert all(_gives(w, planted) for w in result.matrices)
        if result.status == "inconsistent" and result.method == "margins":
            saved = consistent_module.margins.MAX_SAMPLES, consistent_module.SEARCH_LIMIT
            try:
                consistent_module.margins.MAX_SAMPLES, consistent_module.SEARCH_LIMIT = 0, 0
                beyond_intervals += consistent(planted, class_totals=totals, readings=False).status == "not_refuted"
            finally:
                consistent_module.margins.MAX_SAMPLES, consistent_module.SEARCH_LIMIT = saved
    assert beyond_intervals >= 1


def test_scores_reading_cells_off_the_diagonal_fall_back_and_say_so():
    result = consistent(["accuracy=0.5", "chi_squared=3.0"], class_totals=[20, 20, 20], readings=False)
    assert result.method == "intervals" and any("chi_squared reads cells off the diagonal" in n for n in result.notes)
    assert margins.applicable(parse_score("mcc=0.2")) and not margins.applicable(parse_score("ordinal_mae=0.2"))


@pytest.mark.parametrize("limit", ["WORK_LIMIT", "TABLE_LIMIT"])
def test_past_the_work_bound_the_answer_is_necessary_conditions_and_says_so(limit, monkeypatch):
    monkeypatch.setattr(margins, limit, 10)
    result = consistent(["accuracy=0.5", "f1:macro=0.45"], class_totals=[20, 20, 20], readings=False)
    assert (result.status, result.method) == ("not_refuted", "intervals")
    assert any("margins search passed its bounds" in n for n in result.notes)
