"""The score state of :class:`~metricc.api.training.TrainingMetric`: every batch's labels and scores, on their device.

A curve metric (AUROC, average precision) or a calibration error is not a function of
counts: as torchmetrics does for such metrics, the state is the batches themselves, kept where
they live (memory O(N), the price of an exact curve; bin the scores first where that is too
much), joined at ``compute`` and evaluated by the namespace-generic generated modules
(:func:`~metricc.api.evaluate_arrays.evaluate_scores`), numpy's as ``evaluate`` does. Under
``torch.distributed`` the rows of every process are gathered at ``compute`` (an all-gather of
each process's rows, padded to the longest), and the local state is left as it was.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping

from metricc.api.evaluate import evaluate
from metricc.api.evaluate_arrays import evaluate_scores
from metricc.core.errors import InputError
from metricc.runtime import namespace

__all__ = ["ScoreBatches", "torch_distributed"]


def torch_distributed():
    """``torch.distributed`` when the caller has imported torch and initialised a process group."""
    torch = sys.modules.get("torch")
    if torch is None or not torch.distributed.is_available() or not torch.distributed.is_initialized():
        return None
    return torch.distributed


class ScoreBatches:
    """The ``(N,)`` (or ``(N, C)`` indicator) truth and ``(N, C)`` (or ``(N,)``) scores of each batch."""

    def __init__(self) -> None:
        self.truth: list = []
        self.scores: list = []

    def __bool__(self) -> bool:
        return bool(self.truth)

    def add(self, y_true, scores, width: int) -> None:
        """Keep one batch, checked against the earlier ones: one library, ``width`` score columns (2 classes may
        give one column of the positive class's scores)."""
        xp = namespace.array_namespace(y_true, scores)
        if self.truth and namespace.array_namespace(self.truth[0]) is not xp:
            raise InputError("scores", "this batch is of another array library than the earlier ones; reset() first")
        if scores.shape[0] != y_true.shape[0]:
            raise InputError("scores", f"expected one row of scores per sample ({y_true.shape[0]}), "
                                       f"got {scores.shape[0]}")
        columns = scores.shape[1] if scores.ndim == 2 else 1
        if scores.ndim not in (1, 2) or columns not in (width, 1 if width == 2 else width):
            raise InputError("scores", f"expected scores (N, {width})" + (" or (N,)" if width == 2 else "")
                             + f" for the {width} classes, got shape {tuple(scores.shape)}")
        self.truth.append(y_true)
        self.scores.append(scores)

    def merge(self, other: ScoreBatches) -> None:
        self.truth += other.truth
        self.scores += other.scores

    def joined(self) -> tuple:
        """The batches as one truth and one score array, gathered from every process under ``torch.distributed``."""
        xp = namespace.array_namespace(self.truth[0])
        truth, scores = (xp.concat(parts, axis=0) for parts in (self.truth, self.scores))
        distributed = torch_distributed()
        if distributed is None or not namespace.is_torch(truth):
            return truth, scores
        return _gathered(distributed, truth), _gathered(distributed, scores)

    def values(self, names: list[str], lookup: Callable, labels: list, multilabel: bool, options: Mapping) -> dict:
        truth, scores = self.joined()
        if namespace.is_numpy(namespace.array_namespace(truth)):
            return evaluate(names, y_true=truth, scores=scores, labels=labels, multilabel=multilabel, **options)
        return evaluate_scores(names, lookup, y_true=truth, scores=scores, labels=labels, multilabel=multilabel,
                               **options)


def _gathered(distributed, rows):
    """``rows`` of every process, in rank order: each pads its rows to the longest, one all-gather."""
    import torch  # the rows are tensors: torch is imported already

    world = distributed.get_world_size()
    size = torch.tensor([rows.shape[0]], device=rows.device)
    sizes = [torch.zeros_like(size) for _ in range(world)]
    distributed.all_gather(sizes, size)
    lengths = [int(s.item()) for s in sizes]
    padded = torch.zeros((max(lengths), *rows.shape[1:]), dtype=rows.dtype, device=rows.device)
    padded[:rows.shape[0]] = rows
    parts = [torch.empty_like(padded) for _ in range(world)]
    distributed.all_gather(parts, padded)
    return torch.cat([part[:length] for part, length in zip(parts, lengths)])
