"""The Dask row of ``speed.py`` (issue 31): confusion counts of labels in a Parquet file read by
Dask, ``metricc.bridges.dask.accumulate`` against the hand-written Dask program (one ``bincount``
of ``C * true + predicted`` per partition, summed), both on the synchronous scheduler so that the
CPU time of this process is the whole work. Skipped where Dask or pyarrow is not installed.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np


def dask_row(table, n: int, rng, classes: int = 10) -> None:
    try:
        import dask
        import dask.dataframe as dd
        import pandas as pd

        from metricc.bridges.dask import accumulate
    except ImportError as error:
        print(f"  Dask row skipped: {error.name} is not installed (pip install 'metricc[dask]')")
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "labels.parquet"
        pd.DataFrame({"y_true": rng.integers(0, classes, n), "y_pred": rng.integers(0, classes, n)}).to_parquet(
            path, row_group_size=max(1, n // 10))

        def hand():
            frame = dd.read_parquet(path, split_row_groups=True)

            def count(part):
                return np.bincount(part["y_true"].to_numpy() * classes + part["y_pred"].to_numpy(),
                                   minlength=classes * classes)

            totals = dask.delayed(sum)([dask.delayed(count)(p) for p in frame.to_delayed()])
            return dask.compute(totals, scheduler="sync")[0].reshape(classes, classes)

        def ours():
            frame = dd.read_parquet(path, split_row_groups=True)
            return accumulate(frame["y_true"], frame["y_pred"], labels=list(range(classes)), scheduler="sync").matrix

        assert np.array_equal(np.asarray(ours()), hand())
        table.add(f"Dask bridge, {n:.0e} labels in Parquet (10 row groups), C = {classes}; target: a hand-written "
                  "Dask bincount per partition", hand, ours)
