"""The build's process pool: the same results as one process, errors raised as one process raises them."""

import pytest
import sympy

from metricc.compiler.analysis import parallel
from metricc.core.errors import InputError

C = sympy.Symbol("C", integer=True)


def _unevaluated(k: int) -> sympy.Expr:
    with sympy.evaluate(False):
        return sympy.Max(2, 2 * (C - k))


def _refuses_three(k: int) -> int:
    if k == 3:
        raise ValueError(f"item {k} refused")
    return k * k


def test_workers_send_back_sympy_trees_exactly_as_built(monkeypatch):
    """sympy's own pickles re-evaluate 2*(C - 1) into 2*C - 2; generated text would change."""
    monkeypatch.setenv(parallel.JOBS_ENVIRONMENT, "2")
    made = parallel.mapped(_unevaluated, range(6))
    assert [sympy.srepr(e) for e in made] == [sympy.srepr(_unevaluated(k)) for k in range(6)]
    assert str(made[1]) == "Max(2, 2*(C - 1))"


def test_an_error_in_a_worker_is_raised_by_the_parent_as_a_serial_run_raises_it(monkeypatch):
    monkeypatch.setenv(parallel.JOBS_ENVIRONMENT, "2")
    with pytest.raises(ValueError, match="item 3 refused"):
        parallel.mapped(_refuses_three, range(8))
    assert parallel.mapped(_refuses_three, [0, 1, 2, 4, 5]) == [0, 1, 4, 16, 25]


@pytest.mark.parametrize("given", ["0", "-1", "two", "1.5"])
def test_a_bad_number_of_jobs_is_refused_by_name(monkeypatch, given):
    monkeypatch.setenv(parallel.JOBS_ENVIRONMENT, given)
    with pytest.raises(InputError, match="METRICC_BUILD_JOBS"):
        parallel.jobs()


def test_one_job_runs_in_this_process(monkeypatch):
    monkeypatch.setenv(parallel.JOBS_ENVIRONMENT, "1")
    seen = []
    assert parallel.mapped(lambda k: seen.append(k) or k, range(5)) == list(range(5))
    assert seen == list(range(5))  # a worker's append would not be seen here
