"""Held-out benchmark of the audit tools on real published material (issue 29, "Done means").

Not a test. Runs ``identify``, ``consistent`` and the convention search of ``audit`` over the
corpus in ``benchmarks/corpus/audit_real/`` -- formulas, score sets and claims copied as printed
from papers, textbooks, library documentation and mlscorecheck's own examples, each with its
source -- that no unit test uses, and prints the fraction right per part:

- ``formulas``: ``identify`` on each formula with the definitions the source prints beside it
  (``, where ...``), and again on the formula alone where it has definitions. Right: the
  expected catalog metric (and averaging, when the case names one) is among the matches, or
  no match where the case expects ``none``. ``misread``: a match reported, but not the
  expected one (or any, where none is expected): the dangerous kind. ``missed``: no match
  where one was expected. ``label``: where a case states whether its printed label names what
  the formula defines, whether ``label_agrees`` says so.
- ``scores``: ``consistent`` on each score set, once with the catalog ids without averaging
  (``precision=0.45``, as a reader first types them) and once with the names as printed
  (``sens=0.85``). ``false_inconsistent``: a consistent set called inconsistent.
- ``conventions``: :func:`explain_claim` on a printed number under the convention a reader
  assumes (the catalog default); right when the source's own convention is among the
  explanations found, ``misread`` when only other conventions are, ``missed`` when none is.

Each case runs in a worker process with a per-case timeout (``--timeout``); a crash, a
timeout, an input error or a result of an unknown shape counts as an error and the run goes
on. Results are read field by field, defensively: the tools are being extended in parallel.

    python benchmarks/audit_real.py [--part formulas|scores|conventions] [--limit N] [--timeout S] [--json OUT]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing
import statistics
import sys
import time
import traceback
from pathlib import Path

import yaml

CORPUS = Path(__file__).resolve().parent / "corpus" / "audit_real"
PARTS = ("formulas", "scores", "conventions")
FILES = {"formulas": "formulas.yaml", "scores": "score_sets.yaml", "conventions": "conventions.yaml"}


# ---------------------------------------------------------------- worker side (child process)

def _plain(result):
    """A tool's result as plain data: ``to_json()``, a dataclass, or a mapping; else None."""
    if hasattr(result, "to_json"):
        return result.to_json()
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return dataclasses.asdict(result)
    if isinstance(result, dict):
        return result
    return None


def _run_task(task: dict) -> dict:
    kind = task["kind"]
    if kind == "identify":
        from metricc.audit import identify

        return _plain(identify(task["formula"], notation=task.get("notation", "latex")))
    if kind == "consistent":
        from metricc.audit import consistent

        return _plain(consistent(task["scores"], class_totals=task.get("class_totals"),
                                 samples=task.get("samples"), classes=task.get("classes"), progress=False))
    if kind == "explain":
        from metricc.audit import explain_claim

        result = explain_claim(task["metric"], task["printed"], **task["inputs"])
        plain = _plain(result)
        if isinstance(plain, dict) and "explained_by" in plain:
            plain["alternatives"] = list(plain.get("alternatives") or ())
        return plain
    raise ValueError(f"unknown task kind {kind!r}")


def _worker(conn) -> None:
    """Answer tasks from the pipe until it closes: ``{"ok": result}`` or ``{"error": text}``."""
    try:
        import metricc.audit  # noqa: F401  (imports paid once, before the first case)
    except Exception as error:  # noqa: BLE001
        conn.send({"error": f"import: {error!r}"})
        return
    conn.send({"ready": True})
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        start = time.perf_counter()
        try:
            answer = {"ok": _run_task(task)}
        except Exception as error:  # noqa: BLE001  (every failure is a data point)
            kind = type(error).__name__
            answer = {"error": f"{kind}: {error}", "input_error": kind == "InputError",
                      "where": traceback.format_exc(limit=-1).strip().splitlines()[-3:-1]}
        answer["seconds"] = time.perf_counter() - start
        try:
            conn.send(answer)
        except Exception as error:  # noqa: BLE001  (an answer that does not pickle)
            conn.send({"error": f"unsendable result: {error!r}", "seconds": answer["seconds"]})


# ---------------------------------------------------------------- parent side

class Runner:
    """One worker process at a time; a case that outlives ``timeout`` kills it (and a new one starts)."""

    def __init__(self, timeout: float):
        self.timeout = timeout
        self.context = multiprocessing.get_context("spawn")
        self.process = self.conn = None

    def _start(self) -> None:
        self.conn, child = self.context.Pipe()
        self.process = self.context.Process(target=_worker, args=(child,), daemon=True)
        self.process.start()
        child.close()
        if not self.conn.poll(300):
            self.stop()
            raise RuntimeError("the worker did not start within 300 s")
        hello = self.conn.recv()
        if "ready" not in hello:
            self.stop()
            raise RuntimeError(f"the worker could not start: {hello.get('error')}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.join()
        self.process = self.conn = None

    def run(self, task: dict) -> dict:
        if self.process is None or not self.process.is_alive():
            self._start()
        start = time.perf_counter()
        try:
            self.conn.send(task)
            if self.conn.poll(self.timeout):
                return self.conn.recv()
        except (EOFError, OSError, BrokenPipeError) as error:
            self.stop()
            return {"error": f"worker died: {error!r}", "seconds": time.perf_counter() - start}
        self.stop()
        return {"error": f"timeout after {self.timeout:g} s", "timeout": True, "seconds": time.perf_counter() - start}


class UnknownShape(Exception):
    """A tool answered, but not in a shape this benchmark can read."""


def _field(mapping, key, types):
    if not isinstance(mapping, dict) or key not in mapping or not isinstance(mapping[key], types):
        raise UnknownShape(f"no {key!r} of type {types} in {str(mapping)[:200]}")
    return mapping[key]


# ---------------------------------------------------------------- judging

def _matches(result) -> list[tuple[str, str | None]]:
    found = []
    for match in _field(result, "matches", list):
        found.append((_field(match, "metric", str), match.get("average") if isinstance(match, dict) else None))
    return found


def _expected_list(case) -> list[dict]:
    expected = case["expected"]
    if expected == "none":
        return []
    return expected if isinstance(expected, list) else [expected]


def judge_formula(case: dict, answer: dict) -> dict:
    if "error" in answer:
        return {"outcome": "error", "detail": answer["error"]}
    try:
        matches = _matches(answer["ok"])
        label_agrees = answer["ok"].get("label_agrees")
    except UnknownShape as error:
        return {"outcome": "error", "detail": f"unknown shape: {error}"}
    wanted = _expected_list(case)
    shown = [f"{m}[{a}]" if a else m for m, a in matches]
    if not wanted:
        return {"outcome": "misread" if matches else "right", "detail": ", ".join(shown)}
    hit = any(m == w["metric"] and (w.get("average") is None or a == w.get("average")) for m, a in matches
              for w in wanted)
    outcome = "right" if hit else "misread" if matches else "missed"
    judged = {"outcome": outcome, "detail": ", ".join(shown)}
    if "label_agrees" in case:
        judged["label_right"] = label_agrees is case["label_agrees"]
    return judged


def _verdict(result) -> str:
    """consistent | inconsistent | not_refuted, from whatever fields the tool gives."""
    status = result.get("status") if isinstance(result, dict) else None
    if isinstance(status, str):
        word = status.strip().lower().replace(" ", "_").replace("-", "_")
        if word in ("consistent", "inconsistent", "not_refuted"):
            return word
    return "consistent" if _field(result, "consistent", bool) else "inconsistent"


def judge_scores(case: dict, answer: dict) -> dict:
    if "error" in answer:
        return {"outcome": "error", "detail": answer["error"]}
    try:
        verdict = _verdict(answer["ok"])
    except UnknownShape as error:
        return {"outcome": "error", "detail": f"unknown shape: {error}"}
    truth = case["truth"]
    method = answer["ok"].get("method") if isinstance(answer["ok"], dict) else None
    if truth == "consistent":
        outcome = "false_inconsistent" if verdict == "inconsistent" else "right"
    else:
        outcome = "right" if verdict == "inconsistent" else "missed"
    return {"outcome": outcome, "detail": f"{verdict} ({method})", "verdict": verdict}


def _explains(found: dict, expected: dict) -> bool:
    return isinstance(found, dict) and all(found.get(k) == v for k, v in expected.items()) and \
        set(found) == set(expected)


def judge_convention(case: dict, answer: dict) -> dict:
    if "error" in answer:
        return {"outcome": "error", "detail": answer["error"]}
    result = answer["ok"]
    try:
        status = _field(result, "status", str)
    except UnknownShape as error:
        return {"outcome": "error", "detail": f"unknown shape: {error}"}
    found = [result.get("explained_by")] + list(result.get("alternatives") or [])
    found = [f for f in found if f]
    wanted = case["explained_by"] if isinstance(case["explained_by"], list) else [case["explained_by"]]
    if any(_explains(f, w) for f in found for w in wanted):
        return {"outcome": "right", "detail": json.dumps(found[0])}
    if found:
        return {"outcome": "misread", "detail": "explained otherwise: " + json.dumps(found[:3])}
    return {"outcome": "missed", "detail": status}


# ---------------------------------------------------------------- the parts

def formula_tasks(case: dict):
    """(variant, task): with the printed definitions, and without them where there are some."""
    notation = case.get("notation", "latex")
    definitions = case.get("definitions") or []
    if definitions:
        yield "with definitions", {"kind": "identify", "notation": notation,
                                   "formula": case["formula"] + ", where " + ", ".join(definitions)}
        yield "without definitions", {"kind": "identify", "notation": notation, "formula": case["formula"]}
    else:
        yield "as printed", {"kind": "identify", "notation": notation, "formula": case["formula"]}


def score_tasks(case: dict):
    sizes = {k: case[k] for k in ("class_totals", "samples", "classes") if k in case}
    ids = [s["metric"] + (f":{s['average']}" if s.get("average") else "") + f"={s['printed']}" for s in case["scores"]]
    printed = [s["name"] + f"={s['printed']}" for s in case["scores"]]
    yield "catalog ids", {"kind": "consistent", "scores": ids, **sizes}
    yield "names as printed", {"kind": "consistent", "scores": printed, **sizes}


def convention_tasks(case: dict):
    inputs = {"matrix": case["matrix"], **(case.get("stated") or {})}
    yield "stated", {"kind": "explain", "metric": case["metric"], "printed": case["printed"], "inputs": inputs}


PART_TASKS = {"formulas": formula_tasks, "scores": score_tasks, "conventions": convention_tasks}
PART_JUDGES = {"formulas": judge_formula, "scores": judge_scores, "conventions": judge_convention}


def load(part: str) -> list[dict]:
    cases = yaml.safe_load((CORPUS / FILES[part]).read_text(encoding="utf-8"))
    if not isinstance(cases, list):
        raise SystemExit(f"{FILES[part]}: expected a list of cases")
    return cases


def run_part(part: str, runner: Runner, limit: int | None, verbose: bool) -> dict:
    cases = load(part)[:limit] if limit else load(part)
    rows = []
    for case in cases:
        for variant, task in PART_TASKS[part](case):
            try:
                answer = runner.run(task)
            except Exception as error:  # noqa: BLE001  (the worker itself failed to start)
                answer = {"error": f"runner: {error!r}", "seconds": 0.0}
            judged = PART_JUDGES[part](case, answer)
            source = case.get("source") if isinstance(case.get("source"), dict) else {}
            row = {"id": case.get("id"), "variant": variant, "source": source.get("title"),
                   "seconds": round(answer.get("seconds", 0.0), 3), **judged}
            rows.append(row)
            if verbose:
                print(f"  {part:<11} {str(case.get('id')):<28} {variant:<20} {row['outcome']:<18} "
                      f"{row['seconds']:7.2f} s  {str(row.get('detail'))[:90]}", flush=True)
    return {"part": part, "cases": len(cases), "variants": summarize(rows), "rows": rows}


def summarize(rows: list[dict]) -> dict:
    out = {}
    for variant in dict.fromkeys(r["variant"] for r in rows):
        mine = [r for r in rows if r["variant"] == variant]
        count = lambda outcome: sum(r["outcome"] == outcome for r in mine)  # noqa: E731
        seconds = [r["seconds"] for r in mine if r["outcome"] != "error"]  # answered cases: errors are fast or cut off
        labels = [r["label_right"] for r in mine if "label_right" in r]
        out[variant] = {
            "n": len(mine), "right": count("right"),
            "wrong": count("missed") + count("misread") + count("false_inconsistent"),
            "misread": count("misread"), "missed": count("missed"),
            "false_inconsistent": count("false_inconsistent"), "errors": count("error"),
            "timeouts": sum("timeout after" in str(r.get("detail")) for r in mine),
            "fraction_right": round(count("right") / len(mine), 3) if mine else None,
            "median_seconds": round(statistics.median(seconds), 3) if seconds else None,
            "label_right": f"{sum(labels)}/{len(labels)}" if labels else None,
        }
    return out


def print_summary(results: list[dict]) -> None:
    print(f"{'part':<12}{'variant':<22}{'n':>4}{'right':>7}{'wrong':>7}{'misread':>9}{'missed':>8}"
          f"{'false inc.':>11}{'errors':>8}{'timeouts':>9}{'fraction':>10}{'median s':>10}  label")
    for result in results:
        for variant, s in result["variants"].items():
            print(f"{result['part']:<12}{variant:<22}{s['n']:>4}{s['right']:>7}{s['wrong']:>7}{s['misread']:>9}"
                  f"{s['missed']:>8}{s['false_inconsistent']:>11}{s['errors']:>8}{s['timeouts']:>9}"
                  f"{s['fraction_right'] if s['fraction_right'] is not None else '-':>10}"
                  f"{s['median_seconds'] if s['median_seconds'] is not None else '-':>10}  {s['label_right'] or ''}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=PARTS, action="append", help="run only this part (repeatable)")
    parser.add_argument("--limit", type=int, help="only the first N cases of each part")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per case (default 30)")
    parser.add_argument("--json", metavar="OUT", help="write every case's outcome and the summary as JSON")
    parser.add_argument("--quiet", action="store_true", help="no line per case")
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    runner = Runner(args.timeout)
    results = []
    try:
        for part in args.part or PARTS:
            started = time.perf_counter()
            results.append(run_part(part, runner, args.limit, not args.quiet))
            results[-1]["wall_seconds"] = round(time.perf_counter() - started, 1)
    finally:
        runner.stop()
    print_summary(results)
    if args.json:
        Path(args.json).write_text(json.dumps({"date": time.strftime("%Y-%m-%d", time.gmtime()),
                                               "timeout": args.timeout, "limit": args.limit, "parts": results},
                                              indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
