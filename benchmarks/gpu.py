"""Benchmark: confusion counts of 1e7 labels on a CUDA GPU, metricc against torchmetrics.

Not a test (no thresholds). Where ``torch.cuda.is_available()``, for each number of classes C
it draws 1e7 true and predicted labels on the GPU and times, as the median of ``--repeat``
runs (``torch.cuda.synchronize()`` before and after each):

- ``metricc counts``: :func:`metricc.runtime.xp_counts.confusion_counts` of labels ``0 .. C - 1``
  (the library's own bincount where it has one beyond the standard), no validation;
- ``metricc update``: ``TrainingMetric(...).update`` (the counts plus the check that every
  label is a class: one boolean read back per batch);
- ``torchmetrics``: ``MulticlassConfusionMatrix(num_classes=C)`` update + compute
  (``torch.bincount``), with and without its argument validation.

Every GPU matrix is compared with numpy's ``bincount`` of the same labels on the host; then
every count-level metric of the catalog, in every averaging mode, is computed on the GPU
(``generated/arrays/``) and compared with numpy's value on the host; any difference is printed
and the exit status is 1. Then (``gpu_rows.py``): f1:macro and mcc of ``(--batch, C, C)`` batched
matrices against the same formulas hand-written in torch; ECE and AUROC of ``--score-n`` scores
against torchmetrics, saying whether metricc computed them on the device; and on a GPU, the
three-metric call and the catalog on JAX (float64) and CuPy arrays. Ratios are metricc's time
over torchmetrics' (without validation on both sides, and with it): above 1 means metricc is
slower. Where there is no CUDA device (or no torch) it prints why and exits 0. A few minutes on
an H100 or H200 (the host references of the score rows dominate).

    python benchmarks/gpu.py [--n 10000000] [--repeat 10] [--device cuda]

``--device cpu --n 100000`` runs the same comparison on the CPU, to check the script itself.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gpu_rows import batches, catalog, median_seconds, other_libraries, scores  # noqa: E402 - beside this script


def _row(torch, where: str, n: int, classes: int, repeat: int, synchronize) -> tuple[list, bool]:
    from torchmetrics.classification import MulticlassConfusionMatrix

    from metricc.api.training import TrainingMetric
    from metricc.runtime.xp_counts import confusion_counts

    generator = torch.Generator(device=where).manual_seed(classes)
    truth = torch.randint(0, classes, (n,), device=where, generator=generator)
    predicted = torch.randint(0, classes, (n,), device=where, generator=generator)
    host = np.bincount(truth.cpu().numpy() * classes + predicted.cpu().numpy(),
                       minlength=classes * classes).reshape(classes, classes)

    def ours():
        return confusion_counts(truth, predicted, classes, validate=False)

    def ours_checked():
        return TrainingMetric("accuracy", classes=classes).update(truth, predicted).counts

    def theirs(validate: bool):
        def run():
            metric = MulticlassConfusionMatrix(num_classes=classes, validate_args=validate).to(where)
            metric.update(predicted, truth)  # torchmetrics takes (preds, target)
            return metric.compute()
        return run

    runs = {"metricc counts": ours, "metricc update": ours_checked,
            "torchmetrics": theirs(False), "torchmetrics checked": theirs(True)}
    equal = True
    for name, run in runs.items():
        matrix = run()
        if str(matrix.device).split(":")[0] != where.split(":")[0]:
            print(f"  {name}: the matrix left the device ({matrix.device})")
            equal = False
        if not np.array_equal(matrix.cpu().numpy(), host):
            print(f"  {name}: differs from numpy's bincount on the host (C={classes})")
            equal = False
    seconds = {name: median_seconds(run, repeat, synchronize) for name, run in runs.items()}
    cells = [classes, *(seconds[name] * 1e3 for name in runs),
             seconds["metricc counts"] / seconds["torchmetrics"],
             seconds["metricc update"] / seconds["torchmetrics checked"], "yes" if equal else "NO"]
    return cells, equal


def _catalog(torch, where: str, n: int, repeat: int, synchronize) -> bool:
    """The catalog from one 10-class matrix counted on the device (see ``gpu_rows.catalog``), then
    ``mc.evaluate`` of three metrics on the labels timed against torchmetrics."""
    from torchmetrics.functional.classification import multiclass_f1_score, multiclass_matthews_corrcoef

    import metricc as mc
    from metricc.runtime.xp_counts import confusion_counts

    classes = 10
    generator = torch.Generator(device=where).manual_seed(0)
    truth = torch.randint(0, classes, (n,), device=where, generator=generator)
    predicted = torch.where(torch.rand(n, device=where, generator=generator) < 0.7, truth,
                            torch.randint(0, classes, (n,), device=where, generator=generator))
    equal = catalog(confusion_counts(truth, predicted, classes), f"{where}, {n:.0e} labels")
    names = ["f1:macro", "mcc", "preference_driven"]
    ours = median_seconds(lambda: mc.evaluate(names, y_true=truth, y_pred=predicted, labels=list(range(classes))),
                          repeat, synchronize)
    theirs = median_seconds(lambda: (multiclass_f1_score(predicted, truth, classes, average="macro"),
                                     multiclass_matthews_corrcoef(predicted, truth, classes)), repeat, synchronize)
    print(f"mc.evaluate({names}) on the labels: {ours * 1e3:.2f} ms; torchmetrics f1 macro + mcc: {theirs * 1e3:.2f} ms")
    return equal


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000_000, help="labels per run (default 1e7)")
    parser.add_argument("--repeat", type=int, default=10, help="timed runs per cell; the median is shown")
    parser.add_argument("--device", default="cuda", help="torch device (cpu to check the script without a GPU)")
    parser.add_argument("--classes", type=int, nargs="+", default=[2, 10, 100, 1000])
    parser.add_argument("--batch", type=int, default=100_000, help="matrices per batch (default 1e5; 0 skips)")
    parser.add_argument("--score-n", type=int, default=10_000_000, help="samples of the score rows (default 1e7; 0 skips)")
    parser.add_argument("--score-repeat", type=int, default=3, help="timed runs per score row")
    args = parser.parse_args(argv)
    try:
        import torch
        import torchmetrics
    except ImportError as error:
        print(f"gpu.py: skipped, {error.name} is not installed (pip install metricc[test])")
        return 0
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("gpu.py: skipped, no CUDA device here (torch.cuda.is_available() is False); "
              "run it on a machine with a GPU, or with --device cpu --n 100000 to check the script")
        return 0
    on_gpu = args.device.startswith("cuda")
    synchronize = torch.cuda.synchronize if on_gpu else (lambda: None)
    name = torch.cuda.get_device_name(args.device) if on_gpu else "CPU"
    print(f"Confusion counts of {args.n:.0e} labels on {name} ({args.device}); torch {torch.__version__}, "
          f"torchmetrics {torchmetrics.__version__}; median of {args.repeat} runs, milliseconds")
    header = ["C", "metricc counts", "metricc update", "torchmetrics", "torchmetrics checked",
              "ratio", "ratio checked", "equal"]
    print("  ".join(f"{h:>20}" if i else f"{h:>5}" for i, h in enumerate(header)))
    all_equal = True
    for classes in args.classes:
        cells, equal = _row(torch, args.device, args.n, classes, args.repeat, synchronize)
        all_equal &= equal
        print("  ".join(f"{c:>5}" if i == 0 else f"{c:>20.2f}" if isinstance(c, float) else f"{c:>20}"
                        for i, c in enumerate(cells)), flush=True)
    print("ratio: metricc counts / torchmetrics (no validation on either side); ratio checked: TrainingMetric.update "
          "/ torchmetrics with validate_args=True. Above 1: metricc is slower. equal: every matrix equals numpy's "
          "bincount on the host and stayed on the device.")
    print("metricc counts with torch.bincount (an extension beyond the standard), torchmetrics with torch.bincount.")
    all_equal &= _catalog(torch, args.device, args.n, args.repeat, synchronize)
    if args.batch:
        all_equal &= batches(torch, args.device, args.batch, args.repeat, synchronize, classes=(2, 10, 20))
    if args.score_n:
        all_equal &= scores(torch, args.device, args.score_n, args.score_repeat, synchronize)
    if on_gpu:
        all_equal &= other_libraries(args.n)
    if not all_equal:
        print("MISMATCH: see the lines above")
    return 0 if all_equal else 1


if __name__ == "__main__":
    sys.exit(main())
