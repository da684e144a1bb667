"""Benchmark: ``metricc build`` of the whole catalog without the cache, as a fresh clone does
(the committed build record, no cache), cold, warm, and after editing one spec.

Not a test. Each build runs in a fresh Python process (as ``metricc build`` does, so sympy's
in-process caches do not flatter the later builds) on a copy of the project's specs (with their
build record) and ``generated/``, with one cache folder shared by the cached builds; it prints
wall and CPU seconds (CPU time is the steadier number on a busy machine; the build's worker
processes included), what each build recomputed and took from the record, and checks that
every build gives the same files as the one without the cache.

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
from metricc.compiler.analysis.record import Record
record = Record(Path("specs"), Path("generated"), check=True) if sys.argv[2] == "record" else None
cache = Cache(Path(sys.argv[1]) if sys.argv[1] else None, record)
files = build.compile_catalog(Path("specs"), cache)
kinds = {}
for key in cache.made:
    kinds[key.split(":")[0]] = kinds.get(key.split(":")[0], 0) + 1
print(json.dumps({"wall": time.perf_counter() - start, "cpu": cpu_seconds() - cpu, "computed": kinds,
                  "recorded": dict(record.read) if record else {}, "stale": bool(record and record.stale),
                  "digest": hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()}))
"""
# A change of the formula's text that keeps its meaning: the spec and what inlines it are redone.
EDITS = {
    "f_beta": ("formula: (1 + beta**2) * precision * recall / (beta**2 * precision + recall)",
               "formula: (1 + beta**2) * TP / ((1 + beta**2) * TP + beta**2 * FN + FP)"),
}


def _build(project: Path, cache: Path | None, record: bool = False) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, str(cache or ""), "record" if record else ""], cwd=project,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edit", default="f_beta", choices=sorted(EDITS), help="the spec edited before the last build")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        project, cache = Path(folder) / "project", Path(folder) / "cache"
        shutil.copytree(REPO / "specs", project / "specs")
        shutil.copytree(REPO / "docs", project / "docs")
        shutil.copytree(REPO / "generated", project / "generated", ignore=shutil.ignore_patterns("__pycache__"))
        rows = [("without the cache", _build(project, None)), ("fresh clone: the record", _build(project, None, True)),
                ("cold cache", _build(project, cache)), ("warm cache", _build(project, cache))]
        spec = project / "specs" / f"{args.edit}.yaml"
        old, new = EDITS[args.edit]
        spec.write_text(spec.read_text().replace(old, new))
        rows += [(f"{args.edit} edited", _build(project, cache)), ("edited, without the cache", _build(project, None))]
    print(f"{'build':28} {'wall s':>8} {'CPU s':>8}  recomputed")
    for name, row in rows:
        computed = ", ".join(f"{n} {kind}" for kind, n in sorted(row["computed"].items())) or "nothing"
        recorded = ", ".join(f"{n} {kind}" for kind, n in sorted(row["recorded"].items()))
        print(f"{name:28} {row['wall']:8.2f} {row['cpu']:8.2f}  {computed}" + (f"; from the record: {recorded}" if recorded else ""))
    assert len({row["digest"] for _, row in rows[:4]}) == 1, "cached builds differ"
    assert not rows[1][1]["stale"], "the committed build record is stale: run `metricc build`"
    assert rows[4][1]["digest"] == rows[5][1]["digest"], "the rebuild after the edit differs from a fresh build"
    print("same files with and without the cache: yes")


if __name__ == "__main__":
    main()
