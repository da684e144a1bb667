"""Sums over a second sample that compare keys, emitted as group-bys (``emit/group_by.py``).

The grouped modules must equal the broadcast over the pairs of samples the formula states
(printed from the same simplified IR without the rewrite) at 1e-12, on inputs that stress
the keys: tied rows, tied top scores, confidences on bin edges and at 1 (a bin of its own);
a formula pairing samples otherwise keeps its broadcast, and the runtime refuses it clearly
where that needs more than the memory limit.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import sympy

from metricc.compiler import build
from metricc.compiler.emit import group_by, numpy_kernel, numpy_module
from metricc.compiler.emit.numpy_printer import Printed
from metricc.compiler.language import symbols
from metricc.runtime import kernel
from metricc.core.errors import InputError

SPECS = Path(__file__).resolve().parents[3] / "specs"
CALIBRATION = ("calibration_error", "max_calibration_error", "rms_calibration_error", "binary_calibration_error",
               "binary_max_calibration_error")

HAND_MADE = {
    # Keys of the truth and values with a class axis: Sum over u of [y(s) = y(u)] * S[u, k], per class k.
    "same_class_scores": """
id: same_class_scores
name: Mean score of each class among the samples of the same class
description: For each sample, the mean over the samples of its class of their score of each class, averaged.
level: score
scores: probabilities
references: ["Hand-made test spec"]
let:
  label[s]: Sum(k * Y[s, k], k)
  same[s, u]: indicator(label[s] == label[u])
formula: Sum(Sum(Sum(same[s, u] * S[u, k] * S[s, k], u), k) / Sum(same[s, u], u), s) / n
range: [0, 1]
higher_is_better: true
""",
    # Pairs ranked by a score: no key equality, so it stays a broadcast over (s, u).
    "pairs_above": """
id: pairs_above
name: Share of pairs ranked above
description: The share of ordered pairs of samples whose first score of class 1 exceeds the second's.
level: score
scores: probabilities
references: ["Hand-made test spec"]
let:
  score[s]: Sum(indicator(k == 1) * S[s, k], k)
formula: Sum(Sum(indicator(score[s] > score[u]), u), s) / n**2
range: [0, 1]
higher_is_better: true
""",
}


@pytest.fixture(scope="module")
def metrics(tmp_path_factory):
    folder = tmp_path_factory.mktemp("specs")
    for metric_id in CALIBRATION:
        shutil.copy(SPECS / f"{metric_id}.yaml", folder)
    for metric_id, text in HAND_MADE.items():
        (folder / f"{metric_id}.yaml").write_text(text.lstrip(), encoding="utf-8")
    return build.analyzed_metrics(folder)


def _function(metric):
    namespace: dict = {}
    exec(compile(numpy_module.emit_module(metric), "<generated>", "exec"), namespace)  # test only
    return namespace[metric.id]


def _broadcast(metric, y_true, scores, **params):
    """The value as the formula states it: its simplified IR printed without the group-by, so
    every sum over a second sample broadcasts over the pairs (s, u)."""
    Y, S = kernel.check_scores(y_true, scores, None, probabilities=True)
    names = {symbols.SCORE: Printed("S"), symbols.TRUTH: Printed("Y"), symbols.N_TOTAL: Printed("n")}
    names |= {p.symbol: Printed(p.name, batched=False) for p in metric.params}
    printed = numpy_kernel.kernel([metric.simplified], names, ranges=(symbols.N_TOTAL,))
    code = "\n".join(line.strip() for line in printed.lines) + f"\nvalue = {printed.value}"
    namespace = {name: getattr(kernel, name) for name in kernel.__all__} | {"S": S, "Y": Y, "n": S.shape[0],
                                                                            "C": S.shape[1]}
    namespace |= {p.name: float(params.get(p.name, p.default)) for p in metric.params}
    exec(code, namespace)  # test only: the printed broadcast
    return float(namespace["value"])


def _stressed(seed: int, bins: int):
    """Labels and probability rows with tied rows, tied top scores and confidences on the bin
    edges b / bins and at 1."""
    rng = np.random.default_rng(seed)
    n_classes, n = 3, 60
    rows = rng.dirichlet(np.ones(n_classes), size=n)
    edge = rng.integers(1, bins + 1, size=n) / bins  # on an edge, 1 included
    for s in range(0, n, 4):  # every fourth row: its top score on a bin edge
        rest = rng.dirichlet(np.ones(n_classes - 1)) * (1 - edge[s])
        rows[s] = np.r_[edge[s], rest] if edge[s] >= rest.max() else rows[s]
    rows[1::9] = [0.5, 0.5, 0.0]  # tied top scores: the first class is the top label
    rows[2::11] = [1.0, 0.0, 0.0]
    rows[3::13] = rows[5]  # tied rows
    return rng.integers(0, n_classes, size=n), rows


@pytest.mark.parametrize("metric_id", [*CALIBRATION, "same_class_scores"])
@pytest.mark.parametrize("bins", [1, 3, 5, 15])
@pytest.mark.parametrize("seed", range(3))
def test_grouped_sums_equal_the_broadcast_over_pairs(metrics, metric_id, bins, seed):
    metric = metrics[metric_id]
    y, scores = _stressed(seed, bins)
    params = {"bins": bins} if metric.params else {}
    grouped = float(_function(metric)(y, scores, **params))
    assert grouped == pytest.approx(_broadcast(metric, y, scores, **params), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("metric_id", [*CALIBRATION, "same_class_scores"])
def test_the_emitted_code_has_no_array_over_pairs_of_samples(metrics, metric_id):
    kernel_ = numpy_module.SHAPES["score"].kernel(metrics[metric_id], {})
    assert "group_sum" in kernel_.helpers
    assert all(samples <= 1 and classes <= 1 for samples, classes in kernel_.arrays)  # O(n C)


def test_a_formula_pairing_samples_otherwise_keeps_its_broadcast_and_is_refused_when_too_big(metrics):
    metric = metrics["pairs_above"]
    kernel_ = numpy_module.SHAPES["score"].kernel(metric, {})
    assert "group_sum" not in kernel_.helpers and (2, 0) in kernel_.arrays
    scores = np.full((20_000, 3), 1 / 3)
    with pytest.raises(InputError, match=r"pairs_above on 20000 samples and 3 classes needs arrays of 3\.0 GiB "
                                         r"\(n\*\*2 floats\), above the limit of 1 GiB"):
        _function(metric)(np.arange(20_000) % 3, scores)
    y, small = _stressed(0, 4)
    assert float(_function(metric)(y, small)) == pytest.approx(_broadcast(metric, y, small), rel=1e-12)


def test_the_diagonal_substitutes_and_factors_free_of_the_pair_leave_the_sum():
    s, u = (symbols.index_symbol(name) for name in "su")
    n = symbols.N_TOTAL
    key = sympy.floor(3 * symbols.SCORE[u, 0])
    body = (sympy.KroneckerDelta(s, u) - 1) * sympy.KroneckerDelta(sympy.floor(3 * symbols.SCORE[s, 0]), key)
    rewritten = group_by.rewrite([sympy.Sum(body * symbols.SCORE[s, 1], (u, 0, n - 1))])
    (output,), vectors = rewritten.outputs, dict(rewritten.vectors)
    assert not output.has(u) and not output.atoms(sympy.Sum)
    assert output.has(symbols.SCORE[s, 1]) and len(output.atoms(group_by.group_sum)) == 1  # [s = u]: h(s, s)
    assert list(vectors.values()) == [sympy.floor(3 * symbols.SCORE[s, 0])]  # one key vector, shared


def test_a_sum_with_a_key_of_two_samples_is_left_alone():
    s, u, v = (symbols.index_symbol(name) for name in "suv")
    n = symbols.N_TOTAL
    body = sympy.KroneckerDelta(symbols.SCORE[s, 0] + symbols.SCORE[v, 0], symbols.SCORE[u, 0])
    pairwise = sympy.Sum(body, (u, 0, n - 1))
    assert group_by.rewrite([pairwise]).outputs == (pairwise,)
