"""The interval rows of ``benchmarks/speed.py`` (run as its part: ``--only bootstrap``)."""

from __future__ import annotations

import numpy as np

import metricc.api as mc


def bootstrap_row(table, rng):
    """Issue 31: the bootstrap of macro F1 against the vectorized one users write: one multinomial
    draw of all the resampled matrices, the metric over the batch, percentiles and spread."""
    def hand(m, resamples=1000, seed=0):
        def macro_f1(c):
            with np.errstate(divide="ignore", invalid="ignore"):
                return (2 * np.diagonal(c, axis1=-2, axis2=-1) / (c.sum(-1) + c.sum(-2))).mean(-1)

        n = m.sum()
        values = macro_f1(np.random.default_rng(seed).multinomial(n, m.ravel() / n, size=resamples).reshape(resamples, *m.shape))
        return macro_f1(m), *np.percentile(values, [2.5, 97.5]), values.std(ddof=1)

    m = rng.integers(50, 500, (3, 3)) + np.diag([3000, 2500, 2000])
    ours = lambda: mc.evaluate("f1:macro", matrix=m, interval="bootstrap", n_resamples=1000, random_state=0)
    assert np.allclose(ours()["f1:macro"][:4], hand(m), rtol=1e-12)
    table.add("`bootstrap` interval of macro F1, C = 3, 1000 resamples; target: numpy multinomial", lambda: hand(m), ours)
