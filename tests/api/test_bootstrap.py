"""api/bootstrap.py: multinomial resampling, seeded reproducibility, percentile and BCa, one batched call."""

import numpy as np
import pytest

import metricc as mc
from metricc.api import bootstrap
from metricc.core.errors import InputError

MATRIX = np.array([[40, 10, 3], [5, 45, 7], [2, 6, 30]])


def _accuracy(m):
    return {"accuracy": np.trace(m, axis1=-2, axis2=-1) / m.sum(axis=(-2, -1))}


def test_resampled_matrices_keep_each_total_and_batch_shape():
    batch = np.stack([MATRIX, MATRIX * 2])
    draws = bootstrap.resampled_matrices(batch, 7, np.random.default_rng(0))
    assert draws.shape == (7, 2, 3, 3)
    assert (draws.sum(axis=(-2, -1)) == batch.sum(axis=(-2, -1))).all()
    assert draws.min() >= 0


def test_a_seed_reproduces_the_interval_and_another_seed_moves_it():
    first = bootstrap.bootstrap_matrix(_accuracy, MATRIX, confidence=0.95, n_resamples=600, random_state=11)
    again = bootstrap.bootstrap_matrix(_accuracy, MATRIX, confidence=0.95, n_resamples=600, random_state=11)
    other = bootstrap.bootstrap_matrix(_accuracy, MATRIX, confidence=0.95, n_resamples=600, random_state=12)
    assert first == again
    assert first["accuracy"].se != other["accuracy"].se


def test_percentiles_of_known_draws():
    draws = np.arange(1, 102, dtype=float)[:, None]  # 1..101
    found = bootstrap.interval_from_draws(np.array([51.0]), draws, 0.9)
    assert (found.lower[0], found.upper[0]) == pytest.approx((6.0, 96.0), rel=1e-12)
    assert found.se[0] == pytest.approx(np.std(draws, ddof=1))


def test_undefined_resamples_are_left_out():
    draws = np.array([[np.nan], [1.0], [2.0], [3.0]])
    found = bootstrap.interval_from_draws(np.array([2.0]), draws, 0.5)
    assert (found.lower[0], found.upper[0]) == (1.5, 2.5)


def test_bca_without_skew_or_bias_is_the_percentile_interval():
    """Symmetric draws centred on the estimate and a symmetric jackknife: z0 = 0 and a = 0."""
    draws = np.linspace(-3, 3, 1001)[:, None]
    jackknife = np.array([[-1.0], [1.0]])
    a = bootstrap._acceleration(jackknife, np.ones(2))
    assert a == 0
    bca = bootstrap.interval_from_draws(np.array([0.0]), draws, 0.9, acceleration=a)
    plain = bootstrap.interval_from_draws(np.array([0.0]), draws, 0.9)
    np.testing.assert_allclose([bca.lower, bca.upper], [plain.lower, plain.upper], rtol=1e-12)


def test_the_jackknife_of_a_matrix_leaves_out_each_occupied_cell_once():
    left_out, weights = bootstrap._jackknife_matrices(np.array([[2, 0], [1, 3]]))
    assert left_out.shape == (4, 2, 2) and weights.tolist() == [2, 0, 1, 3]
    assert [m.sum() for m, w in zip(left_out, weights) if w] == [5, 5, 5]


def test_bca_of_a_proportion_is_near_the_exact_interval():
    """For accuracy 0.85 of 100, BCa moves the percentile interval toward Clopper-Pearson's
    asymmetric one (0.765, 0.914)."""
    found = bootstrap.bootstrap_matrix(_accuracy, np.array([[45, 10], [5, 40]]), confidence=0.95,
                                       n_resamples=4000, random_state=0, bca=True)["accuracy"]
    assert found.lower == pytest.approx(0.765, abs=0.02) and found.upper == pytest.approx(0.914, abs=0.015)


@pytest.mark.parametrize("bad", [10, 2.5, True, "1000", None, 1_000_001, 10**18])
def test_the_number_of_resamples_is_checked(bad):
    with pytest.raises(InputError, match="n_resamples"):
        bootstrap.check_resamples(bad)


@pytest.mark.parametrize("bad", [-1, 1.5, "seed", True])
def test_the_random_state_is_checked(bad):
    with pytest.raises(InputError, match="random_state"):
        bootstrap.generator(bad)


def test_resamples_drawn_in_parts_are_the_same_stream(monkeypatch):
    whole = bootstrap.bootstrap_matrix(_accuracy, MATRIX, confidence=0.95, n_resamples=600, random_state=11, bca=True)
    monkeypatch.setattr(bootstrap, "CHUNK_CELLS", 7 * MATRIX.size)  # 86 calls of 7 resamples, then 4
    assert bootstrap.bootstrap_matrix(_accuracy, MATRIX, confidence=0.95, n_resamples=600, random_state=11,
                                      bca=True) == whole


def test_the_resamples_of_a_small_matrix_are_one_call_and_a_given_value_is_not_recomputed():
    calls = []

    def counted(m):
        calls.append(m.shape)
        return _accuracy(m)

    found = bootstrap.bootstrap_matrix(counted, MATRIX, confidence=0.95, n_resamples=600, random_state=11,
                                       values=_accuracy(MATRIX))
    assert calls == [(600, 3, 3)]
    assert found == bootstrap.bootstrap_matrix(_accuracy, MATRIX, confidence=0.95, n_resamples=600, random_state=11)


def test_evaluate_draws_what_a_vectorized_multinomial_bootstrap_draws():
    """The interval of evaluate is the one of the numpy users write: every resample in one draw
    of the seeded generator, the metric over the batch, percentiles and standard deviation."""
    found = mc.evaluate("f1:macro", matrix=MATRIX, interval="bootstrap", n_resamples=1000, random_state=0)["f1:macro"]
    n = MATRIX.sum()
    draws = np.random.default_rng(0).multinomial(n, MATRIX.ravel() / n, size=1000).reshape(1000, 3, 3)
    values = (2 * np.diagonal(draws, axis1=-2, axis2=-1) / (draws.sum(-1) + draws.sum(-2))).mean(-1)
    expected = (*np.percentile(values, [2.5, 97.5]), values.std(ddof=1))
    np.testing.assert_allclose((found.lower, found.upper, found.se), expected, rtol=1e-12)
