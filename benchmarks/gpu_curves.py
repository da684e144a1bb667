"""Diagnosis: where the device's time goes in a curve metric (AUROC), step by step.

On the H200 ``mc.evaluate(["roc_auc"], ...)`` of 1e7 binary scores took 1.4 s where
torchmetrics takes 3 ms (``benchmarks/results/gpu_h200.txt``), with ECE on the same data
faster than torchmetrics: this script times each step of :func:`metricc.runtime.xp_curves._curves`
(the stable descending ``argsort`` as ``array-api-compat`` writes it and as torch does it, the
gathers, the tie-group ends) and the whole call, and prints the profile of one call, so that
the next session with a GPU finds the slow step in one run. Not a test.

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
    order = torch.argsort(values, dim=0, descending=True, stable=True)
    timed("torch.argsort dim 0, stable, descending", lambda: torch.argsort(values, dim=0, descending=True, stable=True))
    timed("torch.argsort of the transpose, last dim", lambda: torch.argsort(values.T.contiguous(), dim=1,
                                                                               descending=True, stable=True))
    timed("xp.argsort (array-api-compat)", lambda: xp.argsort(values, axis=0, descending=True, stable=True))
    timed("_columns_at (gather in sorted order)", lambda: xp_curves._columns_at(xp, values, order))
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
