"""Fuzz the compiler with N random specs (issue 13): 0 tracebacks, 0 hangs, 0 wrong values.

The specs are drawn by tests/compiler/spec_strategies.py and judged by ``fuzz_one`` of
tests/compiler/test_spec_fuzz.py (a located refusal, or a module that imports and agrees
with sympy), each in a worker process with a time budget; a worker past its budget plus a
grace period is killed and replaced, so a hang in C code counts too. Prints the count of
each outcome and the rate; the first spec of each failure kind is saved under ``--save``.

The specs come in slices of ``--slice`` specs, slice k drawn with seed ``--seed`` + k, so a
long campaign runs in pieces on a shared machine: every judged spec is appended to the
``--log`` file (JSON lines: seed, index, kind), and a run with the same log skips what it
already holds and reports the totals of the whole log.

    python benchmarks/fuzz_specs.py --specs 10000 --seed 1 --timeout 20 --save fuzz-findings [--log fuzz.jsonl] [--minutes 20]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import resource
import sys
import time
from collections import Counter
from multiprocessing.connection import wait
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "compiler"))
import test_spec_fuzz as judge  # noqa: E402 - the judge lives beside the CI test

FAILURES = ("traceback", "hang", "module_error", "disagreement")
SAVED = FAILURES + ("oracle_gap",)  # kept for a look, not a finding about metricc
GRACE = 10.0  # CPU seconds past the budget before a worker is killed: a hang in C code that ignores SIGPROF
# A worker that uses no CPU for this many wall-clock budgets is waiting forever. Only CPU time
# measures a hang otherwise: at nice 19 on a shared machine a 1 s compile can take 30 s of wall clock.
WAITING = 15
MEMORY = 4 * 2**30  # address space per worker: a runaway allocation is a MemoryError, not a dead machine


def signature(kind: str, detail: str) -> str:
    """What tells two failures of a kind apart: the exception and the innermost metricc frame."""
    lines = [line.strip() for line in detail.splitlines() if line.strip()]
    ours = [line for line in lines if line.startswith("File ") and "/site-packages/" not in line]
    last = re.sub(r"\d+", "N", lines[-1])[:120] if lines else ""
    frame = re.sub(r"^File \".*?/((?:compiler|runtime|tests)/)", r"\1", ours[-1]) if ours else ""
    return f"{kind}: {last} @ {frame}" if kind != "hang" else f"hang: {lines[0] if lines else ''}"


def draw_texts(count: int, seed_value: int) -> list[str]:
    """``count`` spec texts from the strategies, reproducibly for a seed."""
    texts: list[str] = []

    @seed(seed_value)
    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(judge.strategies.spec_texts())
    def collect(text):
        texts.append(text)

    collect()
    return texts


def _worker(connection) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    while True:
        job = connection.recv()
        if job is None:
            return
        index, text, budget = job
        outcome = judge.fuzz_one(text, index, budget)
        connection.send((index, outcome.kind, outcome.detail[-4000:]))


def cpu_seconds(pid: int) -> float:
    """CPU time (user and system) a process has used so far, from /proc (Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:  # it just died: its connection says so on the next turn
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Pool:
    """Worker processes fed one spec at a time; a worker past its deadline is killed."""

    def __init__(self, size: int, budget: float) -> None:
        self.budget = budget
        self.context = multiprocessing.get_context("fork")
        self.workers = [self._start() for _ in range(size)]

    def _start(self) -> dict:
        parent, child = self.context.Pipe()
        process = self.context.Process(target=_worker, args=(child,), daemon=True)
        process.start()
        child.close()
        return {"process": process, "connection": parent, "job": None, "since": 0.0, "cpu": 0.0}

    def run(self, texts: list[str]):
        """Yield (index, kind, detail) for every text, in completion order."""
        pending = list(enumerate(texts))[::-1]
        while pending or any(w["job"] is not None for w in self.workers):
            for w in self.workers:
                if w["job"] is None and pending:
                    w["job"] = pending.pop()
                    w["since"], w["cpu"] = time.monotonic(), cpu_seconds(w["process"].pid)
                    w["connection"].send((*w["job"], self.budget))
            busy = [w["connection"] for w in self.workers if w["job"] is not None]
            ready = wait(busy, timeout=1.0)
            for i, w in enumerate(self.workers):
                if w["job"] is None:
                    continue
                if w["connection"] in ready:
                    try:
                        yield w["connection"].recv()
                        w["job"] = None
                        continue
                    except EOFError:  # the worker died (killed by the kernel, a crash in C)
                        detail = f"worker died with exit code {w['process'].exitcode}"
                        kind = "traceback"
                elif cpu_seconds(w["process"].pid) - w["cpu"] > self.budget + GRACE:
                    detail = f"no answer within {self.budget + GRACE} s of CPU time; worker killed"
                    kind = "hang"
                elif time.monotonic() - w["since"] > WAITING * self.budget:
                    detail = f"no answer within {WAITING * self.budget} s of wall-clock time; worker killed"
                    kind = "hang"
                else:
                    continue
                yield w["job"][0], kind, detail
                w["process"].kill()
                w["process"].join()
                self.workers[i] = self._start()

    def close(self) -> None:
        for w in self.workers:
            w["connection"].send(None)
            w["process"].join(5)


def read_log(log: Path | None) -> list[dict]:
    """The judged specs of earlier runs (none without a log)."""
    if log is None or not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]


def slices(total: int, size: int, first_seed: int) -> list[tuple[int, int]]:
    """(seed, count) of each slice: ``total`` specs in slices of ``size``, one seed each."""
    return [(first_seed + k, min(size, total - k * size)) for k in range((total + size - 1) // size)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--specs", type=int, default=10_000, help="how many specs (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="hypothesis seed of the first slice (default 0)")
    parser.add_argument("--slice", type=int, default=250, help="specs drawn per seed (default 250)")
    parser.add_argument("--log", type=Path, default=None, help="JSON-lines log of judged specs: resume from it")
    parser.add_argument("--timeout", type=float, default=20.0, help="time budget per spec in seconds (default 20)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2, help="worker processes (default: cores)")
    parser.add_argument("--save", metavar="DIR", default="fuzz-findings", help="folder for the reproducers")
    parser.add_argument("--minutes", type=float, default=None,
                        help="stop judging after this long and report the specs judged (a shared machine's share)")
    args = parser.parse_args(argv)

    earlier = read_log(args.log)
    done_before = {(entry["seed"], entry["index"]) for entry in earlier}
    counts: Counter = Counter(entry["kind"] for entry in earlier)
    save = Path(args.save)
    first: dict[str, str] = {}  # failure signature -> its first reproducer's text
    by_signature: Counter = Counter()
    start = time.monotonic()
    pool = Pool(args.workers, args.timeout)
    out_of_time = False
    try:
        for seed_value, count in slices(args.specs, args.slice, args.seed):
            if all((seed_value, i) in done_before for i in range(count)):
                continue
            drawn = time.monotonic()
            texts = draw_texts(count, seed_value)
            todo = [i for i in range(len(texts)) if (seed_value, i) not in done_before]
            print(f"seed {seed_value}: drew {len(texts)} specs in {time.monotonic() - drawn:.0f} s, "
                  f"{len(todo)} to judge", flush=True)
            for position, kind, detail in pool.run([texts[i] for i in todo]):
                index = todo[position]
                counts[kind] += 1
                if args.log is not None:
                    with args.log.open("a", encoding="utf-8") as log:
                        log.write(json.dumps({"seed": seed_value, "index": index, "kind": kind}) + "\n")
                if kind in SAVED:
                    save.mkdir(parents=True, exist_ok=True)
                    stem = f"{kind}-s{seed_value}-{index:04d}"
                    (save / f"{stem}.yaml").write_text(texts[index], encoding="utf-8", errors="surrogatepass")
                    (save / f"{stem}.txt").write_text(detail, encoding="utf-8", errors="replace")
                    by_signature[signature(kind, detail)] += 1
                    first.setdefault(signature(kind, detail), f"seed {seed_value}, spec {index}):\n{texts[index]}")
                judged = sum(counts.values())
                if judged % 250 == 0:
                    print(f"{judged}/{args.specs} {dict(counts)}", flush=True)
                if args.minutes is not None and time.monotonic() - start > 60 * args.minutes:
                    out_of_time = True
                    break
            if out_of_time:
                break
    finally:
        pool.close()
    elapsed = time.monotonic() - start
    judged = sum(counts.values())
    print(f"\n{judged} of {args.specs} specs (slices of {args.slice} from seed {args.seed}; "
          f"{judged - len(earlier)} judged in this run, {elapsed:.0f} s, {args.workers} workers)")
    for kind in judge.KINDS:
        print(f"  {kind:13} {counts[kind]}")
    for sig, reproducer in sorted(first.items()):
        print(f"\n{by_signature[sig]} x {sig}\nfirst reproducer ({reproducer}")
    return 1 if any(counts[k] for k in FAILURES) else 0


if __name__ == "__main__":
    sys.exit(main())
