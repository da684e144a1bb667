"""Every PyCM mapping of audit/peers.yaml, evaluated as written (issue 27, item 7).

The table is what ``metricc list --peer PyCM`` prints and what a user follows; each entry
carries the parameters and averaging that make it equal (PyCM's IBA is ``iba(alpha=1)``
times ``g_mean``, not the catalog default alpha = 0.1). Here each covered name's entries are
evaluated exactly as the table spells them, on random matrices, and compared with PyCM's value
at 1e-12: a mapping that needs a parameter it does not state fails.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import metricc as mc
from metricc.audit import peers
from tests.acceptance.peers.test_pycm_class_statistics import _number, _pycm, _random_matrices

pycm = pytest.importorskip("pycm")

TABLE = peers.load_peers()["PyCM"]
# PyCM gives a pair for these; the table's note names the element the entry is.
PAIR_ELEMENT = {"Overall J": 1}


def _covered(group: str):
    return [n for n in TABLE.names if n.group == group and n.status == "covered"]


def _ours(entries, matrix, average_default):
    """The product of the entries (one entry: its value), each with its parameters."""
    value = 1.0
    for spelled in entries:
        metric, params, average = peers.parse_entry(spelled)
        result = mc.evaluate(metric, matrix=matrix, average=average or average_default, params=params)[metric]
        value = value * np.asarray(result, dtype=float)
    return np.asarray(value, dtype=float)


def test_the_table_has_both_pycm_groups():
    assert len(_covered("class")) > 40 and len(_covered("overall")) > 50


@pytest.mark.parametrize("name", _covered("class"), ids=lambda n: n.name)
def test_class_statistic_as_the_table_writes_it(name):
    compared = 0
    for matrix in _random_matrices(25, seed=sum(map(ord, name.name))):
        stat = _pycm(matrix).class_stat[name.name]
        theirs = np.array([_number(stat[k]) for k in range(len(matrix))])
        ours = _ours(name.metrics, matrix, "none")
        both = ~np.isnan(theirs) & ~np.isnan(ours)
        np.testing.assert_allclose(ours[both], theirs[both], rtol=1e-12, atol=1e-12,
                                   err_msg=f"PyCM {name.name} = {' * '.join(name.metrics)} on {matrix.tolist()}")
        compared += int(both.sum())
    assert compared > 20, f"{name.name}: too few defined values compared"


@pytest.mark.parametrize("name", _covered("overall"), ids=lambda n: n.name)
def test_overall_statistic_as_the_table_writes_it(name):
    compared = 0
    for matrix in _random_matrices(25, seed=sum(map(ord, name.name))):
        stat = _pycm(matrix).overall_stat[name.name]
        if isinstance(stat, (tuple, list)):
            assert name.name in PAIR_ELEMENT, f"PyCM {name.name} is a pair: say in PAIR_ELEMENT which element the table means"
            stat = stat[PAIR_ELEMENT[name.name]]
        theirs = _number(stat)
        ours = float(_ours(name.metrics, matrix, None))
        if math.isnan(theirs) or math.isnan(ours):
            continue
        assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-12), f"PyCM {name.name} on {matrix.tolist()}"
        compared += 1
    assert compared > 5, f"{name.name}: too few defined values compared"
