"""Diagnosis: where the device's time goes in a curve metric (AUROC), step by step.

On the H200 ``mc.evaluate(["roc_auc"], ...)`` of 1e7 binary scores took 1.4 s where
torchmetrics takes 3.5 ms. This script found why: ``torch.cumsum`` down the first axis of an
``(n, 2)`` array took 1.39 s, along the rows of its transpose 18.6 ms; the curves are now
worked class by row. It times each step of :func:`metricc.runtime.xp_curves._curves` (both
running sums, the stable descending ``argsort``, the gathers) and the whole call, and prints
the profile of one call. Not a test.

    python benchmarks/gpu_curves.py [--n 10000000] [--device cuda]   # --device cpu checks the script
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000_000)
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("gpu_curves.py: skipped, torch is not installed")
        return 0
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("gpu_curves.py: skipped, no CUDA device here; --device cpu checks the script")
        return 0
    import metricc as mc
    from metricc.runtime import xp_curves, xp_kernel

    synchronize = torch.cuda.synchronize if args.device.startswith("cuda") else (lambda: None)

    def timed(name, run, repeat=3):
        run()
        synchronize()
        start = time.perf_counter()
        for _ in range(repeat):
            run()
        synchronize()
        print(f"{name:>44}: {(time.perf_counter() - start) / repeat * 1e3:10.2f} ms", flush=True)

    generator = torch.Generator(device=args.device).manual_seed(0)
    values = torch.rand(args.n, 2, device=args.device, dtype=torch.float64, generator=generator)
    truth = torch.nn.functional.one_hot((torch.rand(args.n, device=args.device, generator=generator) < 0.5).long(),
                                        2).double()
    xp = xp_kernel.space(values)
    by_class = values.T.contiguous()
    timed("torch.cumsum down dim 0 of (n, 2)", lambda: torch.cumsum(values, dim=0))
    timed("torch.cumsum along the (2, n) transpose", lambda: torch.cumsum(values.T.contiguous(), dim=1))
    timed("torch.argsort of the transpose, last dim", lambda: torch.argsort(by_class, dim=1, descending=True,
                                                                               stable=True))
    timed("xp.argsort (array-api-compat), last axis", lambda: xp.argsort(by_class, axis=1, descending=True, stable=True))
    order = torch.argsort(by_class, dim=1, descending=True, stable=True)
    timed("_rows_at (gather in sorted order)", lambda: xp_curves._rows_at(xp, by_class, order))
    timed("_curves (all of it)", lambda: xp_curves._curves(xp, truth, values))
    scores, labels = values[:, 0].contiguous(), truth[:, 1].long()
    timed("mc.evaluate roc_auc (binary)", lambda: mc.evaluate(["roc_auc"], y_true=labels, scores=scores), repeat=1)
    profile = cProfile.Profile()
    profile.enable()
    xp_curves._curves(xp, truth, values)
    synchronize()
    profile.disable()
    pstats.Stats(profile).sort_stats("tottime").print_stats(12)
    return 0


if __name__ == "__main__":
    sys.exit(main())
