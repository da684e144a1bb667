"""Rows of ``benchmarks/gpu.py`` beyond label counting: the catalog on one device matrix, batched
matrices, score metrics, and the same checks on JAX and CuPy arrays.

Each function prints its table and returns whether every value equalled numpy's on the host and
stayed on the device. Timings are medians with the device synchronised before and after each run.
"""

from __future__ import annotations

import statistics
import time
import warnings

import numpy as np


def median_seconds(run, repeat: int, synchronize) -> float:
    run()  # warm-up: kernels compiled, memory pools filled
    times = []
    for _ in range(repeat):
        synchronize()
        start = time.perf_counter()
        run()
        synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _same_device(value, matrix) -> bool:
    from metricc.runtime import namespace

    return str(namespace.device(value)) == str(namespace.device(matrix))


def catalog(matrix, label: str) -> bool:
    """Every class-, aggregate- and matrix-level metric, in every averaging mode, computed from a
    confusion ``matrix`` of some Array API library (``generated/arrays/``) equals numpy's on the
    host (1e-12) and stays on the matrix's device."""
    import metricc as mc
    from metricc.api.evaluate_arrays import values_of_counts
    from metricc.generated import CATALOG
    from metricc.runtime import namespace
    from metricc.runtime.xp_kernel import HostFallbackWarning

    infos = [i for i in CATALOG.values() if i.level in ("class", "aggregate", "matrix")]
    entries = [f"{i.id}:{mode}" for i in infos if i.per_class for mode in i.averages if mode != "samples"]
    entries += [i.id for i in infos if not i.per_class and not i.per_instance]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HostFallbackWarning)
        found = values_of_counts(entries, mc.metric, matrix=matrix, pos_label=1)
    expected = mc.evaluate(entries, matrix=namespace.to_host(matrix), pos_label=1)
    wrong = []
    for entry in entries:
        host, reference = namespace.to_host(found[entry]), np.asarray(expected[entry], dtype=np.float64)
        close = np.allclose(host, reference, rtol=1e-12, atol=1e-12, equal_nan=True)
        if not _same_device(found[entry], matrix) or not close:
            wrong.append(f"{entry}: {host} on {namespace.device(found[entry])}, numpy {reference}")
    print(f"Catalog on {label}: {len(entries)} metric entries, {len(entries) - len(wrong)} equal numpy's on the host "
          "and stayed on the device", flush=True)
    for line in wrong:
        print(f"  MISMATCH {line}")
    return not wrong


def batches(torch, where: str, batch: int, repeat: int, synchronize, classes=(2, 10, 100)) -> bool:
    """f1:macro and mcc of ``(batch, C, C)`` matrices on the device against the same two formulas
    hand-written in torch (torchmetrics has no batched form), and against numpy on the host."""
    import metricc as mc
    from metricc.api.evaluate_arrays import values_of_counts

    print(f"\nBatched matrices ({batch:.0e}, C, C) on {where}: f1:macro + mcc, median of {repeat} runs, ms")
    print(f"{'C':>5}  {'metricc':>12}  {'hand torch':>12}  {'ratio':>8}  equal")
    all_equal = True
    for c in classes:
        generator = torch.Generator(device=where).manual_seed(c)
        matrix = torch.randint(0, 50, (batch, c, c), device=where, generator=generator)

        def ours():
            return values_of_counts(["f1:macro", "mcc"], mc.metric, matrix=matrix)

        def hand():
            m = matrix.double()
            tp = torch.diagonal(m, dim1=-2, dim2=-1)
            predicted, actual = m.sum(-2), m.sum(-1)
            f1 = (2 * tp / (predicted + actual)).mean(-1)
            total, correct = m.sum((-2, -1)), tp.sum(-1)
            mcc = (correct * total - (predicted * actual).sum(-1)) / torch.sqrt(
                (total ** 2 - (predicted ** 2).sum(-1)) * (total ** 2 - (actual ** 2).sum(-1)))
            return f1, mcc

        found = ours()
        expected = mc.evaluate(["f1:macro", "mcc"], matrix=matrix.cpu().numpy())
        equal = all(_same_device(found[k], matrix) and np.allclose(found[k].cpu().numpy(), expected[k], rtol=1e-12,
                                                                     atol=1e-12, equal_nan=True) for k in found)
        all_equal &= equal
        seconds = median_seconds(ours, repeat, synchronize), median_seconds(hand, repeat, synchronize)
        print(f"{c:>5}  {seconds[0] * 1e3:>12.2f}  {seconds[1] * 1e3:>12.2f}  {seconds[0] / seconds[1]:>8.2f}  "
              f"{'yes' if equal else 'NO'}", flush=True)
    return all_equal


def scores(torch, where: str, n: int, repeat: int, synchronize, classes: int = 5) -> bool:
    """ECE and AUROC of ``n`` scores on the device: metricc's ``evaluate`` against torchmetrics on
    the same tensors, and against numpy's value on the host; says where metricc computed."""
    import metricc as mc
    from metricc.runtime import namespace
    from torchmetrics.functional.classification import (binary_auroc, multiclass_auroc,
                                                        multiclass_calibration_error)

    generator = torch.Generator(device=where).manual_seed(1)
    truth = torch.randint(0, classes, (n,), device=where, generator=generator)
    logits = torch.randn(n, classes, device=where, dtype=torch.float64, generator=generator)
    logits[torch.arange(n, device=where), truth] += 1.0  # an informative classifier
    probabilities = torch.softmax(logits, dim=1)
    binary_truth, binary_scores = (truth == 0).long(), probabilities[:, 0].contiguous()
    rows = [
        ("calibration_error (ECE, 15 bins)", "calibration_error", truth, probabilities,
         lambda: multiclass_calibration_error(probabilities, truth, classes, n_bins=15, validate_args=False)),
        (f"roc_auc:macro ({classes} classes)", "roc_auc:macro", truth, probabilities,
         lambda: multiclass_auroc(probabilities, truth, classes, average="macro", validate_args=False)),
        ("roc_auc (binary)", "roc_auc", binary_truth, binary_scores,
         lambda: binary_auroc(binary_scores, binary_truth, validate_args=False)),
    ]
    print(f"\nScore metrics of {n:.0e} samples on {where}, median of {repeat} runs, ms")
    print(f"{'metric':>34}  {'metricc':>10}  {'torchmetrics':>12}  {'ratio':>7}  {'|diff| tm':>9}  where metricc computed")
    all_equal = True
    for title, entry, y, s, theirs in rows:
        host = mc.evaluate([entry], y_true=y.cpu().numpy(), scores=s.cpu().numpy())[entry]

        def ours():
            return mc.evaluate([entry], y_true=y, scores=s)[entry]

        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                value = ours()
        except Exception as error:  # noqa: BLE001 - a benchmark reports what happened and goes on
            print(f"{title:>34}  metricc failed: {type(error).__name__}: {str(error)[:120]}")
            all_equal = False
            continue
        stayed = namespace.is_torch(value) and str(value.device) == str(s.device)
        fallback = [str(w.message)[:60] for w in caught if "Fallback" in type(w.message).__name__]
        place = "on the device" if stayed and not fallback else f"host ({fallback[0] if fallback else type(value).__name__})"
        found = float(value.cpu()) if hasattr(value, "cpu") else float(value)
        equal = np.isclose(found, float(host), rtol=1e-9, atol=1e-12)
        all_equal &= bool(equal) and stayed
        reference = float(theirs())
        seconds = median_seconds(ours, repeat, synchronize), median_seconds(theirs, repeat, synchronize)
        print(f"{title:>34}  {seconds[0] * 1e3:>10.2f}  {seconds[1] * 1e3:>12.2f}  {seconds[0] / seconds[1]:>7.2f}  "
              f"{abs(found - reference):>9.1e}  {place}{'' if equal else f' MISMATCH numpy {float(host)!r}'}",
              flush=True)
    return all_equal


def other_libraries(n: int, classes: int = 10) -> bool:
    """``mc.evaluate`` of three metrics on JAX and CuPy arrays on the GPU (where installed): values
    equal to numpy's, on the arrays' device; then the whole catalog on a matrix of each."""
    import metricc as mc

    rng = np.random.default_rng(2)
    truth = rng.integers(0, classes, n)
    predicted = np.where(rng.random(n) < 0.7, truth, rng.integers(0, classes, n))
    names = ["f1:macro", "mcc", "preference_driven"]
    expected = mc.evaluate(names, y_true=truth, y_pred=predicted)
    matrix = np.asarray(mc.confusion_matrix(truth, predicted))
    ok = True
    for library, put in _libraries():
        if put is None:
            print(f"\n{library}: not installed or no GPU, skipped")
            continue
        t, p = put(truth), put(predicted)
        values = mc.evaluate(names, y_true=t, y_pred=p)
        from metricc.runtime import namespace

        equal = all(_same_device(values[k], t) and np.allclose(namespace.to_host(values[k]), expected[k], rtol=1e-12,
                                                                 atol=1e-12) for k in names)
        print(f"\n{library}: mc.evaluate({names}) of {n:.0e} labels on {namespace.device(t)}: "
              f"{'equal to numpy, on the device' if equal else 'MISMATCH'} "
              f"({', '.join(f'{k}={float(namespace.to_host(values[k])):.6f}' for k in names)})")
        ok &= equal
        ok &= catalog(put(matrix), f"{library} ({namespace.device(t)})")
    return ok


def _libraries():
    """(name, put-on-the-GPU function or None) for JAX (with float64) and CuPy."""
    found = []
    try:
        import jax

        jax.config.update("jax_enable_x64", True)
        gpus = [d for d in jax.devices() if d.platform == "gpu"]
        found.append(("JAX", (lambda a: jax.device_put(a, gpus[0])) if gpus else None))
    except Exception:  # noqa: BLE001 - JAX missing or without a GPU backend
        found.append(("JAX", None))
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
        found.append(("CuPy", cupy.asarray))
    except Exception:  # noqa: BLE001 - CuPy missing or without a device
        found.append(("CuPy", None))
    return found
