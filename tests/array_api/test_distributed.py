"""TrainingMetric synced over two gloo processes (counts all-reduced, score batches gathered) equals one process reading every batch."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import metricc as mc

torch = pytest.importorskip("torch")
if not torch.distributed.is_available():
    pytest.skip("this torch build has no torch.distributed", allow_module_level=True)

from tests.array_api import distributed_worker as worker  # noqa: E402 (needs torch.distributed)

HERE = Path(__file__).resolve().parent


def test_two_processes_sum_their_counts(tmp_path):
    result = subprocess.run([sys.executable, str(HERE / "distributed_worker.py"), str(tmp_path)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    ranks = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]

    single = mc.TrainingMetric(worker.ENTRIES, classes=worker.CLASSES)
    for truth, predicted, scores in worker.batches():
        single.update(torch.asarray(truth), torch.asarray(predicted), scores=torch.asarray(scores))
    assert ranks[0]["local"] != ranks[1]["local"]
    for rank in ranks:
        assert rank["synced"] == single.counts.tolist()
        for name, value in single.compute().items():
            np.testing.assert_allclose(rank["values"][name], value.item(), rtol=1e-12)
