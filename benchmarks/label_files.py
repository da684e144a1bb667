"""``metricc eval`` on label files of hundreds of MB (issue 30): time, peak memory, exact counts.

Writes a pair of plain label files (one class name per line, ``--classes`` classes drawn at
random, the prediction right with probability 0.8) of about ``--megabytes`` each, runs
``metricc eval --metric accuracy --metric recall:none`` on them in a child process, and prints
the wall time, the throughput and the child's peak resident memory, which stays near the
interpreter's own whatever the file size (:mod:`metricc.cli.label_stream`: chunks of 8 MiB);
the values must equal the counts written. Exit status 1 if they do not.

    python benchmarks/label_files.py [--megabytes 300] [--classes 5] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

BLOCK = 1_000_000  # samples written at a time


def write_pair(folder: Path, megabytes: float, classes: int, seed: int) -> np.ndarray:
    """The two files, and the confusion matrix they hold (true rows)."""
    rng = np.random.default_rng(seed)
    names = np.array([f"class_{k}" for k in range(classes)])
    line = len("class_0\n") + (classes > 10)
    samples = int(megabytes * 2**20 / line)
    matrix = np.zeros((classes, classes), dtype=np.int64)
    with open(folder / "y_true.txt", "w") as truth, open(folder / "y_pred.txt", "w") as predicted:
        for start in range(0, samples, BLOCK):
            size = min(BLOCK, samples - start)
            t = rng.integers(0, classes, size)
            p = np.where(rng.random(size) < 0.8, t, rng.integers(0, classes, size))
            np.add.at(matrix, (t, p), 1)
            truth.write("\n".join(names[t]) + "\n")
            predicted.write("\n".join(names[p]) + "\n")
    return matrix


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=300.0, help="size of each label file (default 300)")
    parser.add_argument("--classes", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="metricc-labels-") as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        matrix = write_pair(folder, args.megabytes, args.classes, args.seed)
        size = sum(f.stat().st_size for f in folder.iterdir()) / 2**20
        print(f"wrote 2 files, {size:.0f} MiB, {matrix.sum():,} samples each, in {time.perf_counter() - start:.1f} s")
        command = [sys.executable, "-m", "metricc", "eval", "--metric", "accuracy", "--metric", "recall:none",
                   "--y-true", str(folder / "y_true.txt"), "--y-pred", str(folder / "y_pred.txt"), "--format", "json"]
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux
    if done.returncode:
        print(f"metricc eval failed ({done.returncode}):\n{done.stderr}")
        return 1
    values = json.loads(done.stdout)
    expected_accuracy = np.trace(matrix) / matrix.sum()
    expected_recall = np.diag(matrix) / matrix.sum(axis=1)
    recall = [values["recall:none"][f"class_{k}"] for k in range(args.classes)]
    exact = values["accuracy"] == expected_accuracy and np.array_equal(recall, expected_recall)
    print(f"metricc eval: {elapsed:.1f} s ({size / elapsed:.0f} MiB/s over both files), peak memory {peak:.0f} MiB")
    print(f"accuracy {values['accuracy']!r}, expected {expected_accuracy!r}: {'equal' if exact else 'DIFFERENT'}")
    return 0 if exact else 1


if __name__ == "__main__":
    sys.exit(main())
