"""Benchmark: confusion counts of 1e7 labels on a CUDA GPU, metricc against torchmetrics.

Not a test (no thresholds). Where ``torch.cuda.is_available()``, for each number of classes C
it draws 1e7 true and predicted labels on the GPU and times, as the median of ``--repeat``
runs (``torch.cuda.synchronize()`` before and after each):

- ``metricc counts``: :func:`metricc.runtime.xp_counts.confusion_counts`, the Array API
  standard's functions only (sort + searchsorted; the standard has no bincount), no validation;
- ``metricc update``: ``TrainingMetric(...).update`` (the counts plus the check that every
  label is a class: one boolean read back per batch);
- ``torchmetrics``: ``MulticlassConfusionMatrix(num_classes=C)`` update + compute
  (``torch.bincount``), with and without its argument validation.

Every GPU matrix is compared with numpy's ``bincount`` of the same labels on the host; then
every count-level metric of the catalog, in every averaging mode, is computed on the GPU
(``generated/arrays/``) and compared with numpy's value on the host; any difference is printed
and the exit status is 1. Ratios are metricc's time over torchmetrics'
(without validation on both sides, and with it): above 1 means metricc is slower. Where there is
no CUDA device (or no torch) it prints why and exits 0. About a minute on an H100.

    python benchmarks/gpu.py [--n 10000000] [--repeat 10] [--device cuda]

``--device cpu --n 100000`` runs the same comparison on the CPU, to check the script itself.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np


def _median_seconds(run, repeat: int, synchronize) -> float:
    run()  # warm-up: kernels compiled, memory pools filled
    times = []
    for _ in range(repeat):
        synchronize()
        start = time.perf_counter()
        run()
        synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _row(torch, where: str, n: int, classes: int, repeat: int, synchronize) -> tuple[list, bool]:
    from torchmetrics.classification import MulticlassConfusionMatrix

    from metricc.api.training import TrainingMetric
    from metricc.runtime.xp_counts import confusion_counts

    generator = torch.Generator(device=where).manual_seed(classes)
    truth = torch.randint(0, classes, (n,), device=where, generator=generator)
    predicted = torch.randint(0, classes, (n,), device=where, generator=generator)
    labels = torch.arange(classes, device=where)
    host = np.bincount(truth.cpu().numpy() * classes + predicted.cpu().numpy(),
                       minlength=classes * classes).reshape(classes, classes)

    def ours():
        return confusion_counts(truth, predicted, labels, validate=False)

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
    seconds = {name: _median_seconds(run, repeat, synchronize) for name, run in runs.items()}
    cells = [classes, *(seconds[name] * 1e3 for name in runs),
             seconds["metricc counts"] / seconds["torchmetrics"],
             seconds["metricc update"] / seconds["torchmetrics checked"], "yes" if equal else "NO"]
    return cells, equal


def _catalog(torch, where: str, n: int, repeat: int, synchronize) -> bool:
    """Every class-, aggregate- and matrix-level metric, in every averaging mode, computed on the
    device from one matrix (``generated/arrays/``) equals numpy's on the host (1e-12), and stays
    there; then ``mc.evaluate`` of three metrics on the labels is timed against torchmetrics."""
    import warnings

    from torchmetrics.functional.classification import multiclass_f1_score, multiclass_matthews_corrcoef

    import metricc as mc
    from metricc.api.evaluate_arrays import values_of_counts
    from metricc.generated import CATALOG
    from metricc.runtime.xp_counts import confusion_counts
    from metricc.runtime.xp_kernel import HostFallbackWarning

    classes = 10
    generator = torch.Generator(device=where).manual_seed(0)
    truth = torch.randint(0, classes, (n,), device=where, generator=generator)
    predicted = torch.where(torch.rand(n, device=where, generator=generator) < 0.7, truth,
                            torch.randint(0, classes, (n,), device=where, generator=generator))
    matrix = confusion_counts(truth, predicted, torch.arange(classes, device=where))
    infos = {info.id: info for info in CATALOG.values() if info.level in ("class", "aggregate", "matrix")}
    entries = [f"{i.id}:{mode}" for i in infos.values() if i.per_class for mode in i.averages if mode != "samples"]
    entries += [i.id for i in infos.values() if not i.per_class and not i.per_instance]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HostFallbackWarning)
        found = values_of_counts(entries, mc.metric, matrix=matrix, pos_label=1)
    expected = mc.evaluate(entries, matrix=matrix.cpu().numpy(), pos_label=1)
    wrong = []
    for entry in entries:
        value, reference = found[entry], np.asarray(expected[entry], dtype=np.float64)
        host = value.cpu().numpy()
        close = np.allclose(host, reference, rtol=1e-12, atol=1e-12, equal_nan=True)
        if value.device != matrix.device or not close:
            wrong.append(f"{entry}: {host} on {value.device}, numpy {reference}")
    print(f"Catalog on {where}: {len(entries)} metric entries from one {classes}-class matrix of {n:.0e} labels, "
          f"{len(entries) - len(wrong)} equal numpy's on the host and stayed on the device")
    for line in wrong:
        print(f"  MISMATCH {line}")
    names = ["f1:macro", "mcc", "preference_driven"]
    ours = _median_seconds(lambda: mc.evaluate(names, y_true=truth, y_pred=predicted, labels=list(range(classes))),
                           repeat, synchronize)
    theirs = _median_seconds(lambda: (multiclass_f1_score(predicted, truth, classes, average="macro"),
                                      multiclass_matthews_corrcoef(predicted, truth, classes)), repeat, synchronize)
    print(f"mc.evaluate({names}) on the labels: {ours * 1e3:.2f} ms; torchmetrics f1 macro + mcc: {theirs * 1e3:.2f} ms")
    return not wrong


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000_000, help="labels per run (default 1e7)")
    parser.add_argument("--repeat", type=int, default=10, help="timed runs per cell; the median is shown")
    parser.add_argument("--device", default="cuda", help="torch device (cpu to check the script without a GPU)")
    parser.add_argument("--classes", type=int, nargs="+", default=[2, 10, 100, 1000])
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
    print("metricc counts with the Array API standard only (sort + searchsorted), torchmetrics with torch.bincount.")
    all_equal &= _catalog(torch, args.device, args.n, args.repeat, synchronize)
    if not all_equal:
        print("MISMATCH: see the lines above")
    return 0 if all_equal else 1


if __name__ == "__main__":
    sys.exit(main())
