"""Benchmark: ``metricc build`` of the whole catalog without the cache, cold, warm, and after
editing one spec.

Not a test. Each build runs in a fresh Python process (as ``metricc build`` does, so sympy's
in-process caches do not flatter the later builds) on a copy of the project's specs, with one
cache folder shared by the cached builds; it prints wall and CPU seconds (CPU time is the
steadier number on a busy machine; the build's worker processes included), what each build recomputed, and checks that every build
gives the same files as the one without the cache.

    PYTHONPATH=... python benchmarks/build.py [--edit f_beta]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# What each build runs: the compiler over ./specs with the given cache folder (or none).
CHILD = """
import hashlib, json, resource, sys, time
from pathlib import Path
def cpu_seconds():  # this process and the build's workers (forked, waited for)
    return sum(u.ru_utime + u.ru_stime for u in (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)))
start, cpu = time.perf_counter(), cpu_seconds()
from metricc.compiler import build
from metricc.compiler.analysis.cache import Cache
cache = Cache(Path(sys.argv[1]) if sys.argv[1] else None)
files = build.compile_catalog(Path("specs"), cache)
kinds = {}
for key in cache.made:
    kinds[key.split(":")[0]] = kinds.get(key.split(":")[0], 0) + 1
print(json.dumps({"wall": time.perf_counter() - start, "cpu": cpu_seconds() - cpu,
                  "computed": kinds, "digest": hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()}))
"""
# A change of the formula's text that keeps its meaning: the spec and what inlines it are redone.
EDITS = {
    "f_beta": ("formula: (1 + beta**2) * precision * recall / (beta**2 * precision + recall)",
               "formula: (1 + beta**2) * TP / ((1 + beta**2) * TP + beta**2 * FN + FP)"),
}


def _build(project: Path, cache: Path | None) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, str(cache or "")], cwd=project, capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edit", default="f_beta", choices=sorted(EDITS), help="the spec edited before the last build")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        project, cache = Path(folder) / "project", Path(folder) / "cache"
        shutil.copytree(REPO / "specs", project / "specs")
        shutil.copytree(REPO / "docs", project / "docs")
        rows = [("without the cache", _build(project, None)), ("cold cache", _build(project, cache)),
                ("warm cache", _build(project, cache))]
        spec = project / "specs" / f"{args.edit}.yaml"
        old, new = EDITS[args.edit]
        spec.write_text(spec.read_text().replace(old, new))
        rows += [(f"{args.edit} edited", _build(project, cache)), ("edited, without the cache", _build(project, None))]
    print(f"{'build':28} {'wall s':>8} {'CPU s':>8}  recomputed")
    for name, row in rows:
        computed = ", ".join(f"{n} {kind}" for kind, n in sorted(row["computed"].items())) or "nothing"
        print(f"{name:28} {row['wall']:8.2f} {row['cpu']:8.2f}  {computed}")
    assert rows[0][1]["digest"] == rows[1][1]["digest"] == rows[2][1]["digest"], "cached builds differ"
    assert rows[3][1]["digest"] == rows[4][1]["digest"], "the rebuild after the edit differs from a fresh build"
    print("same files with and without the cache: yes")


if __name__ == "__main__":
    main()
