"""Two processes of ``torch.distributed`` (gloo, CPU), each counting its half of the batches.

Run by test_distributed.py as a script (``python distributed_worker.py DIR``): each rank feeds
its shard to a TrainingMetric (counted and scored metrics) and writes the synced counts and values to ``DIR/rank<r>.json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

import metricc as mc

WORLD = 2
CLASSES = 4
ENTRIES = ["f1:macro", "mcc", "accuracy", "roc_auc:macro", "calibration_error"]


def batches():
    """Every batch of the data set (true labels, predicted labels, scores); rank r takes batches r, r + WORLD, ..."""
    rng = np.random.default_rng(7)
    return [(rng.integers(0, CLASSES, n), rng.integers(0, CLASSES, n), rng.dirichlet(np.ones(CLASSES), n))
            for n in (30, 11, 50, 2, 17)]


def work(rank: int, folder: str) -> None:
    dist.init_process_group("gloo", init_method=f"file://{folder}/rendezvous", rank=rank, world_size=WORLD)
    try:
        metric = mc.TrainingMetric(ENTRIES, classes=CLASSES)
        for truth, predicted, scores in batches()[rank::WORLD]:
            metric.update(torch.asarray(truth), torch.asarray(predicted), scores=torch.asarray(scores))
        local = metric.counts.tolist()
        synced = metric.synced_counts().tolist()
        values = {name: value.item() for name, value in metric.compute().items()}
        assert metric.counts.tolist() == local, "syncing changed the local counts"
        Path(folder, f"rank{rank}.json").write_text(json.dumps({"local": local, "synced": synced, "values": values}))
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(work, args=(sys.argv[1],), nprocs=WORLD, join=True)
